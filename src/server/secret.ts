// The secret path segment: compared in constant time, and never echoed into logs.
import { hash, timingSafeEqual } from 'node:crypto';

/** Constant-time comparison whatever the lengths: both sides are hashed to 32 bytes first. */
export function secretMatches(given: string, expected: string): boolean {
  // The one-shot hash: no Hash object per request.
  const a = hash('sha256', given, 'buffer');
  return timingSafeEqual(a, digestOf(expected)) && expected.length > 0;
}

// The configured secret's digest, computed once per secret rather than once per request.
let known: { secret: string; digest: Buffer } | undefined;
function digestOf(secret: string): Buffer {
  if (known?.secret !== secret) known = { secret, digest: hash('sha256', secret, 'buffer') };
  return known.digest;
}

/** A URL safe to log: every path segment that could hold the secret is replaced. */
export function redactUrl(url: string): string {
  const [path] = url.split('?');
  const parts = path.split('/');
  return parts.map((p, i) => (i === 0 || p === '' || p === 'api' || p === 'health' || p === 'metrics' ? p : '***')).join('/');
}

/** The example SERVER_PASS of plex_autoscan's README and sample configs, copied into many real configs. */
export const PUBLISHED_EXAMPLE_PASS = '9c4b81fe234e4d6eb9011cefe514d915';
export const MIN_PASS_LENGTH = 16;

/** Why a SERVER_PASS is too weak to guard the service, or undefined when it is fine. */
export function weakPassReason(pass: string): string | undefined {
  if (pass.toLowerCase() === PUBLISHED_EXAMPLE_PASS) return "it is plex_autoscan's published example, known to everyone";
  if (pass.length < MIN_PASS_LENGTH) return `it is ${pass.length} characters long; use at least ${MIN_PASS_LENGTH}`;
  return undefined;
}
