// The credentials the gate compares (the secret path segment, Basic auth, a bearer token): each in constant time,
// and never echoed into logs.

import { hash, timingSafeEqual } from 'node:crypto';

const digest = (s: string): Buffer => hash('sha256', s, 'buffer');

/** Constant-time comparison whatever the lengths: both sides are hashed to 32 bytes first. */
export function secretMatches(given: string, expected: string): boolean {
  // The one-shot hash: no Hash object per request.
  return timingSafeEqual(digest(given), digestOf(expected)) && expected.length > 0;
}

/** Constant time whatever the lengths: both sides are hashed first, and user and password are both always compared. */
export function basicAuthMatches(header: string | undefined, user: string, password: string): boolean {
  const m = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header ?? '');
  const decoded = m ? Buffer.from(m[1], 'base64').toString('utf8') : '';
  const colon = decoded.indexOf(':');
  const givenUser = colon < 0 ? '' : decoded.slice(0, colon);
  const givenPassword = colon < 0 ? '' : decoded.slice(colon + 1);
  const userOk = timingSafeEqual(digest(givenUser), digest(user));
  const passwordOk = timingSafeEqual(digest(givenPassword), digest(password));
  return userOk && passwordOk && colon >= 0 && user !== '' && password !== '';
}

/** `Authorization: Bearer <token>`, compared as the secret is; never true for an empty token. */
export function bearerMatches(header: string | undefined, token: string): boolean {
  const given = header?.startsWith('Bearer ') ? header.slice('Bearer '.length).trim() : '';
  return timingSafeEqual(digest(given), digest(token)) && token !== '';
}

// The configured secret's digest, computed once per secret rather than once per request.
let known: { secret: string; digest: Buffer } | undefined;
function digestOf(secret: string): Buffer {
  if (known?.secret !== secret) known = { secret, digest: digest(secret) };
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
