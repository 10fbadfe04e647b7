// The value rules config keys are built from (numbers, seconds, URLs, lists, path mappings, proxy addresses),
// each carrying the "expected ..." phrase the loader prints, e.g. "SERVER_PORT: expected an integer 1-65535".
// Below both users: the config's schema (src/config/) and each target kind's own keys (src/targets/), which the
// schema gathers from the table of kinds.
import { isIP } from 'node:net';
import * as z from 'zod/mini';
import en from 'zod/v4/locales/en.js';
import { regexRule, withRegexRules, type PathMappings, type RegexRule } from './paths/mapping.js';
import { SIZE_PATTERN } from './log/file.js';

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

// zod's mini API: one function per rule instead of methods on every schema object, whose code and methods an idle
// relay would hold (docs/performance.md, "Idle memory").
// The mini API sets no language for zod's own messages (the classic one sets English): the few rules without a
// message of ours ("Invalid input: expected string, received number") read as they did.
z.config(en());

export function integer(min: number, max: number, expected: string) {
  return z.int({ error: expected }).check(z.gte(min, { error: expected }), z.lte(max, { error: expected }));
}

/** A schema's value when its key is missing (zod's `default`). */
export const withDefault = z._default;
/** A key that may be missing and has no default. */
export const optional = z.optional;
/** An object block whose missing keys each get their default when the block itself is missing (zod's `prefault`). */
export const prefault = z.prefault;

/** Seconds: fractions are fine; 0 means "no wait". */
export function seconds() {
  const expected = 'a number of seconds, 0 or more';
  return z.number({ error: expected }).check(z.gte(0, { error: expected }));
}

/** Seconds where 0 would spin (polling, backoff caps). */
export function positiveSeconds() {
  const expected = 'a number of seconds greater than 0';
  return z.number({ error: expected }).check(z.gt(0, { error: expected }));
}

/** LOG_MAX_SIZE: "10MB", "512K" or bytes. */
export function logSize() {
  const expected = 'a size like "10MB", "512K" or a number of bytes (0 = never rotate)';
  return z.union([integer(0, Number.MAX_SAFE_INTEGER, expected), z.string({ error: expected }).check(z.regex(SIZE_PATTERN, { error: expected }))], { error: expected });
}

export function httpUrl() {
  const expected = 'an http:// or https:// URL';
  return z.string({ error: expected }).check(z.refine(isHttpUrl, { error: expected }));
}

/** Empty means "not configured"; anything else must be a usable URL. */
export function optionalHttpUrl() {
  const expected = 'an http:// or https:// URL (or "" for none)';
  return z.string({ error: expected }).check(z.refine((v) => v === '' || isHttpUrl(v), { error: expected }));
}

/** Case-insensitive choice, stored lowercased: people write "Deep" and "API". */
export function choice<const T extends readonly [string, ...string[]]>(values: T) {
  const expected = `one of ${values.map((v) => `"${v}"`).join(', ')}`;
  return z.pipe(z.pipe(z.string({ error: expected }), z.transform((v) => v.toLowerCase())), z.enum(values, { error: expected }));
}

/**
 * A list of strings. A lone string is taken as a one-item list because hand-edited configs often forget the
 * brackets. Empty strings are refused where they would match every path (`nonEmpty`).
 */
export function stringList(nonEmpty: boolean) {
  const item = nonEmpty
    ? z.string({ error: 'a non-empty string' }).check(z.minLength(1, { error: 'a non-empty string' }))
    : z.string({ error: 'a string' });
  return oneOrList(z.array(item, { error: 'a list of strings' }));
}

/** zod's `preprocess`, which the mini API spells as a pipe: a lone string read as a one-item list. */
export function oneOrList<T extends z.core.$ZodType>(list: T) {
  return z.pipe(z.transform((v: unknown) => (typeof v === 'string' ? [v] : v)), list);
}

/**
 * `{ "<path>": ["<prefix>", ...] }`, the shape of SERVER_PATH_MAPPINGS and its relatives. Order of keys is
 * kept: the first mapping whose prefix matches wins. An entry may instead be a regex rule,
 * `"<name>": {"FROM": "<regex>", "TO": "<replacement with $1>"}` (autoscan's and autopulse's `rewrite`), tried
 * in the order written after no prefix matched; it is compiled here, so a pattern that does not compile stops
 * the start with its key.
 */
export function pathMappings() {
  const rule = z.strictObject(
    {
      FROM: z.string({ error: 'a regular expression' }).check(z.minLength(1, { error: 'a non-empty regular expression' })),
      TO: z.string({ error: 'a replacement string (may use $1, ${name})' }),
    },
    { error: 'an object {"FROM": "<regex>", "TO": "<replacement>"}' },
  );
  const prefixes = stringList(true);
  // An object with FROM or TO is a rule; anything else is read as a list of prefixes, so its errors stay as precise.
  const isRule = (v: unknown) => v !== null && typeof v === 'object' && !Array.isArray(v) && ('FROM' in v || 'TO' in v);
  return z.pipe(
    z.record(z.string().check(z.minLength(1, { error: 'a non-empty path as key' })), z.unknown(), { error: 'an object of "path": ["prefix", ...]' }),
    z.transform((value: Record<string, unknown>, ctx): PathMappings => {
      const forms: Record<string, string[]> = {};
      const rules: RegexRule[] = [];
      for (const [key, v] of Object.entries(value)) {
        const parsed = isRule(v) ? rule.safeParse(v) : prefixes.safeParse(v);
        if (!parsed.success) {
          for (const issue of parsed.error.issues) ctx.issues.push({ code: 'custom', message: issue.message, path: [key, ...issue.path], input: v });
          continue;
        }
        if (Array.isArray(parsed.data)) {
          forms[key] = parsed.data;
          continue;
        }
        const { FROM, TO } = parsed.data as { FROM: string; TO: string };
        try {
          rules.push(regexRule(key, FROM, TO));
        } catch (err) {
          ctx.issues.push({ code: 'custom', path: [key, 'FROM'], message: `a regular expression that compiles (${(err as Error).message})`, input: FROM });
        }
      }
      return withRegexRules(forms, rules);
    }),
  );
}

/** An address, a CIDR range ("10.0.0.0/8", "fd00::/8") or one of proxy-addr's names for a range. */
function isProxyAddress(value: string): boolean {
  if (['loopback', 'linklocal', 'uniquelocal'].includes(value)) return true;
  const [ip, bits, extra] = value.split('/');
  const family = isIP(ip);
  if (family === 0 || extra !== undefined) return false;
  if (bits === undefined) return true;
  return /^\d{1,3}$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128);
}

/** SERVER_TRUST_PROXY: false (nobody), true (any direct peer), or the proxies' addresses (one, or a list). */
export function trustProxy() {
  const expected = 'false, true, or a list of proxy addresses like ["127.0.0.1", "172.18.0.0/16"]';
  return z.pipe(z.unknown(), z.transform((v: unknown, ctx): boolean | string[] => {
    if (typeof v === 'boolean') return v;
    const list = typeof v === 'string' ? [v] : v;
    if (Array.isArray(list) && list.length > 0 && list.every((x) => typeof x === 'string' && isProxyAddress(x))) return list as string[];
    ctx.issues.push({ code: 'custom', message: expected, input: v });
    return z.NEVER;
  }));
}

/**
 * SERVER_BASE_PATH: "" (none) or "/a/b", stored without a trailing slash. Only URL-safe segment characters: the
 * prefix is compared as the proxy sends it, before any decoding.
 */
export function basePath() {
  const expected = 'a path like "/scanrelay" (letters, digits, "-", "_", ".", "~" between slashes), or "" for none';
  return z.pipe(
    z.string({ error: expected }).check(z.regex(/^$|^(\/[A-Za-z0-9._~-]+)+\/?$|^\/$/, { error: expected }), z.refine((v) => !/(^|\/)\.{1,2}(\/|$)/.test(v), { error: expected })),
    z.transform((v) => v.replace(/\/+$/, '')),
  );
}

export function bool() {
  return z.boolean({ error: 'true or false' });
}

export function text() {
  return z.string({ error: 'a string' });
}

/**
 * URL segments that are routes of their own. A SERVER_PASS equal to one would make a public or Basic-auth path
 * look like the secret, so none of them is ever a valid one (the config refuses it at start).
 */
export const RESERVED_PASSES = ['health', 'metrics', 'triggers', 'api', 'favicon.ico', 'stats'] as const;

export function reservedPassReason(pass: string): string | undefined {
  const lower = pass.toLowerCase();
  return (RESERVED_PASSES as readonly string[]).includes(lower) ? `"${pass}" is the name of a route of its own` : undefined;
}

/**
 * The longest SERVER_PASS, as a URL spells it (percent-encoded), that fits the URL segment it is sent in: Fastify's
 * router answers 414 to a longer path parameter (maxParamLength; src/server/app.ts sets it to this), so every
 * secret route would be out of reach.
 */
export const MAX_PASS_IN_URL = 100;

export function passTooLongReason(pass: string): string | undefined {
  let inUrl: number;
  try {
    inUrl = encodeURIComponent(pass).length;
  } catch {
    return 'it holds a lone surrogate, which no URL can carry';
  }
  return inUrl > MAX_PASS_IN_URL ? `it is ${inUrl} characters long in a URL, and at most ${MAX_PASS_IN_URL} fit the URL segment it is sent in` : undefined;
}
