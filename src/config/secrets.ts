// The config keys that hold secrets, listed once: the logger scrubs their values and config error messages
// never print them. The URL keys are listed too: a user and password written into a URL are secrets of their own.
import { splitUserinfo } from '../http/url-credentials.js';
import type { Config } from './schema.js';

/** Each secret's key path; "*" stands for every entry of a list. */
export const SECRET_KEYS: readonly (readonly string[])[] = [
  ['SERVER_PASS'],
  ['PLEX_TOKEN'],
  ['SERVER_METRICS_TOKEN'],
  ['GOOGLE', 'CLIENT_SECRET'],
  ['AUTOSCAN', 'PASSWORD'],
  ['TARGETS', '*', 'TOKEN'],
  ['TARGETS', '*', 'PASSWORD'],
  // A webhook URL holds its token (Discord's path, Gotify's ?token=).
  ['NOTIFY', '*', 'URL'],
  ['ARR', '*', 'API_KEY'],
];

/** Each key that holds a URL a person may write `user:pass@` into (sent as Basic auth, src/http/url-credentials.ts). */
export const URL_KEYS: readonly (readonly string[])[] = [
  ['PLEX_LOCAL_URL'],
  ['TARGETS', '*', 'URL'],
  ['NOTIFY', '*', 'URL'],
  ['RCLONE', 'RC_CACHE_REFRESH', 'RC_URL'],
  ['GOOGLE', 'AUTH_URL'],
  ['GOOGLE', 'TOKEN_URL'],
  ['GOOGLE', 'API_URL'],
  ['ARR', '*', 'URL'],
];

/** Whether `path` (as in a zod issue: TARGETS, 0, TOKEN) names a secret. */
export function isSecretKey(path: readonly PropertyKey[]): boolean {
  return SECRET_KEYS.some(
    (key) => key.length === path.length && key.every((part, i) => (part === '*' ? typeof path[i] === 'number' : part === path[i])),
  );
}

function valuesAt(value: unknown, key: readonly string[]): unknown[] {
  if (key.length === 0) return [value];
  const [part, ...rest] = key;
  if (part === '*') return Array.isArray(value) ? value.flatMap((item) => valuesAt(item, rest)) : [];
  if (typeof value !== 'object' || value === null || !Object.hasOwn(value, part)) return [];
  return valuesAt((value as Record<string, unknown>)[part], rest);
}

/**
 * Every secret value that is set, for the logger to scrub. SERVER_PASS is also listed URL-encoded, the form in
 * which it appears in request URLs; a URL key's password in each form it could be written (as in the URL,
 * decoded, with its user, as the Basic header's value). A user name alone is not: "plex" would star out every
 * line that names the server.
 */
export function secretsOf(config: Config): string[] {
  const values = SECRET_KEYS.flatMap((key) => valuesAt(config, key)).filter((v): v is string => typeof v === 'string' && v !== '');
  for (const url of URL_KEYS.flatMap((key) => valuesAt(config, key))) if (typeof url === 'string') values.push(...splitUserinfo(url).secrets);
  if (config.SERVER_PASS !== '') values.push(encodeURIComponent(config.SERVER_PASS));
  return [...new Set(values)];
}
