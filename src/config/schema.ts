// The shape of config.json: every key plex_autoscan knows plus scanrelay's own, with types, limits and base defaults.
//
// Keys keep plex_autoscan's UPPERCASE names and nesting so an existing config.json works unchanged. The base
// defaults here are what a missing key gets (plex_autoscan's "base config"); a brand-new install gets the
// friendlier generated values of defaults.ts instead. Each rule carries the "expected ..." phrase that the
// loader prints after the file name and key path, so a user reads e.g.
// "SERVER_PORT: expected an integer 1-65535, got "abc"".
import { randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import { z } from 'zod';
import { autoscanSchema } from './autoscan-schema.js';
import { requiredTargetKeys } from './target-keys.js';
import { watchSchema } from './watch-schema.js';
import { SIZE_PATTERN } from '../log-file.js';

/** A fresh secret path segment: 32 lowercase hex characters, like plex_autoscan's uuid4().hex. */
export function newServerPass(): string {
  return randomBytes(16).toString('hex');
}

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

function integer(min: number, max: number, expected: string) {
  return z
    .number({ error: expected })
    .int({ error: expected })
    .min(min, { error: expected })
    .max(max, { error: expected });
}

/** Seconds: fractions are fine; 0 means "no wait". */
function seconds() {
  const expected = 'a number of seconds, 0 or more';
  return z.number({ error: expected }).min(0, { error: expected });
}

/** Seconds where 0 would spin (polling, backoff caps). */
function positiveSeconds() {
  const expected = 'a number of seconds greater than 0';
  return z.number({ error: expected }).gt(0, { error: expected });
}

/** LOG_MAX_SIZE: "10MB", "512K" or bytes. */
function logSize() {
  const expected = 'a size like "10MB", "512K" or a number of bytes (0 = never rotate)';
  return z.union([integer(0, Number.MAX_SAFE_INTEGER, expected), z.string({ error: expected }).regex(SIZE_PATTERN, { error: expected })], { error: expected });
}

function httpUrl() {
  const expected = 'an http:// or https:// URL';
  return z.string({ error: expected }).refine(isHttpUrl, { error: expected });
}

/** Empty means "not configured"; anything else must be a usable URL. */
function optionalHttpUrl() {
  const expected = 'an http:// or https:// URL (or "" for none)';
  return z.string({ error: expected }).refine((v) => v === '' || isHttpUrl(v), { error: expected });
}

/** Case-insensitive choice, stored lowercased: people write "Deep" and "API". */
function choice<const T extends readonly [string, ...string[]]>(values: T) {
  const expected = `one of ${values.map((v) => `"${v}"`).join(', ')}`;
  return z
    .string({ error: expected })
    .transform((v) => v.toLowerCase())
    .pipe(z.enum(values, { error: expected }));
}

/**
 * A list of strings. A lone string is taken as a one-item list because hand-edited configs often forget the
 * brackets. Empty strings are refused where they would match every path (`nonEmpty`).
 */
function stringList(nonEmpty: boolean) {
  const item = nonEmpty
    ? z.string({ error: 'a non-empty string' }).min(1, { error: 'a non-empty string' })
    : z.string({ error: 'a string' });
  return z.preprocess((v) => (typeof v === 'string' ? [v] : v), z.array(item, { error: 'a list of strings' }));
}

/**
 * `{ "<path>": ["<prefix>", ...] }`, the shape of SERVER_PATH_MAPPINGS and its relatives. Order of keys is
 * kept: the first mapping whose prefix matches wins.
 */
function pathMappings() {
  return z.record(
    z.string().min(1, { error: 'a non-empty path as key' }),
    stringList(true),
    { error: 'an object of "path": ["prefix", ...]' },
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
function trustProxy() {
  const expected = 'false, true, or a list of proxy addresses like ["127.0.0.1", "172.18.0.0/16"]';
  return z.unknown().transform((v, ctx): boolean | string[] => {
    if (typeof v === 'boolean') return v;
    const list = typeof v === 'string' ? [v] : v;
    if (Array.isArray(list) && list.length > 0 && list.every((x) => typeof x === 'string' && isProxyAddress(x))) return list as string[];
    ctx.addIssue({ code: 'custom', message: expected, input: v });
    return z.NEVER;
  });
}

function bool() {
  return z.boolean({ error: 'true or false' });
}

function text() {
  return z.string({ error: 'a string' });
}

export const PLEX_SCANNER_DEFAULT = '/usr/lib/plexmediaserver/Plex\\ Media\\ Scanner';
export const PLEX_SUPPORT_DIR_DEFAULT = '/var/lib/plexmediaserver/Library/Application\\ Support';
export const PLEX_LD_LIBRARY_PATH_DEFAULT = '/usr/lib/plexmediaserver/lib';
export const PLEX_DATABASE_PATH_DEFAULT =
  '/var/lib/plexmediaserver/Library/Application Support/Plex Media Server/Plug-in Support/Databases/com.plexapp.plugins.library.db';

export const TARGET_TYPES = ['plex', 'plex-scanner', 'jellyfin', 'emby', 'command', 'audiobookshelf', 'tdarr', 'sonarr', 'radarr', 'relay'] as const;
export const TARGET_NAME_PATTERN = /^[A-Za-z0-9_.-]+$/;
/** The name the target built from the PLEX_* keys goes by (and its delivery key in the queue). */
export const FIRST_PLEX_NAME = 'plex';

const allowedSchema = z
  .object(
    {
      FILE_PATHS: stringList(false).default([]),
      FILE_EXTENSIONS: bool().default(false),
      FILE_EXTENSIONS_LIST: stringList(false).default([]),
      MIME_TYPES: bool().default(false),
      MIME_TYPES_LIST: stringList(false).default([]),
    },
    { error: 'an object with FILE_PATHS, FILE_EXTENSIONS, FILE_EXTENSIONS_LIST, MIME_TYPES, MIME_TYPES_LIST' },
  )
  .prefault({});

const googleSchema = z
  .object(
    {
      ENABLED: bool().default(false),
      CLIENT_ID: text().default(''),
      CLIENT_SECRET: text().default(''),
      /** Service-account JSON key; replaces the OAuth client (Google blocked plex_autoscan's OOB flow). */
      SERVICE_ACCOUNT_FILE: text().default(''),
      /** An rclone drive remote whose credentials the monitor borrows instead of its own. */
      RCLONE_REMOTE: text().default(''),
      RCLONE_CONFIG: text().default(''),
      /** "" = token.json beside config.json (the caller resolves it). */
      TOKEN_FILE: text().default(''),
      // The three endpoints exist so tests and private gateways can point the monitor elsewhere.
      AUTH_URL: httpUrl().default('https://accounts.google.com/o/oauth2/v2/auth'),
      TOKEN_URL: httpUrl().default('https://oauth2.googleapis.com/token'),
      API_URL: httpUrl().default('https://www.googleapis.com'),
      ALLOWED: allowedSchema,
      TEAMDRIVE: bool().default(false),
      TEAMDRIVES: stringList(false).default([]),
      POLL_INTERVAL: positiveSeconds().default(120),
      SHOW_CACHE_LOGS: bool().default(false),
      DISABLE_DISK_FILE_SIZE_CHECK: bool().default(false),
    },
    { error: 'an object of Google Drive settings' },
  )
  .prefault({});

const rcloneSchema = z
  .object(
    {
      BINARY: text().default('/usr/bin/rclone'),
      CONFIG: text().default(''),
      CRYPT_MAPPINGS: pathMappings().default({}),
      RC_CACHE_REFRESH: z
        .object(
          {
            ENABLED: bool().default(false),
            RC_URL: optionalHttpUrl().default('http://localhost:5572'),
            FILE_EXISTS_TO_REMOTE_MAPPINGS: pathMappings().default({}),
          },
          { error: 'an object with ENABLED, RC_URL, FILE_EXISTS_TO_REMOTE_MAPPINGS' },
        )
        .prefault({}),
    },
    { error: 'an object with BINARY, CONFIG, CRYPT_MAPPINGS, RC_CACHE_REFRESH' },
  )
  .prefault({});

const targetNameExpected = 'a name made of letters, digits, "_", "." or "-"';

/**
 * One extra media server. Plex-scanner fields left out mean "same as the top-level PLEX_* / USE_* /
 * DOCKER_NAME value", so a second container on the same machine only names what differs.
 */
export const targetSchema = z
  .object(
    {
      NAME: z
        .string({ error: targetNameExpected })
        .regex(TARGET_NAME_PATTERN, { error: targetNameExpected }),
      TYPE: choice(TARGET_TYPES),
      ENABLED: bool().default(true),
      URL: optionalHttpUrl().optional(),
      TOKEN: text().optional(),
      /** Rewrites the first Plex's path into this server's path; same shape as SERVER_PATH_MAPPINGS. */
      PATH_MAPPINGS: pathMappings().default({}),
      /** Path prefixes; empty INCLUDE = everything. */
      INCLUDE: stringList(true).default([]),
      EXCLUDE: stringList(true).default([]),
      SCAN_PAUSE: seconds().default(0),
      /** Scans sent to this server at once while SCAN_PAUSE is 0. */
      SCAN_CONCURRENCY: integer(1, 64, 'a whole number from 1 to 64').optional(),
      DATABASE_PATH: text().optional(),
      SCANNER: text().optional(),
      SUPPORT_DIR: text().optional(),
      LD_LIBRARY_PATH: text().optional(),
      USER: text().optional(),
      USE_SUDO: bool().optional(),
      USE_DOCKER: bool().optional(),
      DOCKER_NAME: text().optional(),
      // What follows a "plex" entry's scan; each left out means the matching PLEX_* key. EMPTY_TRASH alone
      // defaults to false without this entry's own DATABASE_PATH: the deleted count must come from its own library.
      EMPTY_TRASH: bool().optional(),
      EMPTY_TRASH_MAX_FILES: integer(0, Number.MAX_SAFE_INTEGER, 'a whole number, 0 or more').optional(),
      EMPTY_TRASH_CONTROL_FILES: stringList(true).optional(),
      EMPTY_TRASH_ZERO_DELETED: bool().optional(),
      ANALYZE_TYPE: choice(['off', 'basic', 'deep']).optional(),
      ANALYZE_DIRECTORY: bool().optional(),
      /** Rename and upgrade events also refresh the file's item on this server; unset = PLEX_REFRESH_ITEMS. */
      REFRESH_ITEMS: bool().optional(),
      // "command": the program and its arguments (no shell), and how long it may run.
      COMMAND: stringList(true).optional(),
      TIMEOUT: positiveSeconds().optional(),
      /** "tdarr": the library (dbID) the files are scanned into. */
      LIBRARY_ID: text().optional(),
      /** "relay": Basic auth password of the other instance's /triggers/ routes (USER is the user name). */
      PASSWORD: text().optional(),
    },
    { error: 'an object with at least NAME and TYPE' },
  )
  .superRefine(requiredTargetKeys);

export const configSchema = z
  .object(
    {
      // --- the first Plex server (plex_autoscan's only one)
      PLEX_ENABLED: bool().default(true),
      PLEX_USER: text().default('plex'),
      PLEX_SCANNER: text().default(PLEX_SCANNER_DEFAULT),
      PLEX_SUPPORT_DIR: text().default(PLEX_SUPPORT_DIR_DEFAULT),
      PLEX_LD_LIBRARY_PATH: text().default(PLEX_LD_LIBRARY_PATH_DEFAULT),
      PLEX_DATABASE_PATH: text().default(PLEX_DATABASE_PATH_DEFAULT),
      PLEX_LOCAL_URL: optionalHttpUrl().default('http://localhost:32400'),
      PLEX_TOKEN: text().default(''),
      /** auto = the HTTP API when PLEX_TOKEN is set, else the scanner executable (plex_autoscan's way). */
      PLEX_SCAN_MODE: choice(['auto', 'api', 'scanner']).default('auto'),
      PLEX_SCAN_PAUSE: seconds().default(0),
      /** Scans sent to the first Plex at once while PLEX_SCAN_PAUSE is 0. */
      PLEX_SCAN_CONCURRENCY: integer(1, 64, 'a whole number from 1 to 64').default(8),
      PLEX_EMPTY_TRASH: bool().default(false),
      // plex_autoscan treats 0 as "never empty": kept.
      PLEX_EMPTY_TRASH_MAX_FILES: integer(0, Number.MAX_SAFE_INTEGER, 'a whole number, 0 or more').default(100),
      PLEX_EMPTY_TRASH_CONTROL_FILES: stringList(true).default([]),
      PLEX_EMPTY_TRASH_ZERO_DELETED: bool().default(false),
      PLEX_WAIT_FOR_EXTERNAL_SCANNERS: bool().default(true),
      PLEX_ANALYZE_TYPE: choice(['off', 'basic', 'deep']).default('basic'),
      PLEX_ANALYZE_DIRECTORY: bool().default(true),
      PLEX_FIX_MISMATCHED: bool().default(false),
      PLEX_FIX_MISMATCHED_LANG: text().default('en'),
      /** Log what the match check would split, match and refresh, and change nothing. */
      PLEX_FIX_MISMATCHED_DRY_RUN: bool().default(false),
      PLEX_CHECK_BEFORE_SCAN: bool().default(false),
      /** Follow each API scan to its end (GET /activities) and confirm the request's file is in the library. */
      PLEX_CONFIRM_SCANS: bool().default(true),
      /** The longest a scan is followed before it is recorded as scanned but unconfirmed. */
      PLEX_CONFIRM_TIMEOUT: positiveSeconds().default(300),
      /** How often the follower asks each Plex which sections are scanning (one request for all folders). */
      PLEX_FOLLOW_INTERVAL: positiveSeconds().default(1),

      // --- the HTTP server and the scan pipeline
      SERVER_IP: z.string({ error: 'a listen address' }).min(1, { error: 'a listen address' }).default('0.0.0.0'),
      // 3468 rather than plex_autoscan's code default 3467: it is what the README, Cloudbox and users' arr apps use.
      SERVER_PORT: integer(1, 65535, 'an integer 1-65535').default(3468),
      // A slash would split the URL segment the secret lives in; an empty one would expose "/".
      SERVER_PASS: z
        .string({ error: 'a non-empty string without "/"' })
        .regex(/^[^/]+$/, { error: 'a non-empty string without "/"' })
        .default(newServerPass),
      SERVER_PATH_MAPPINGS: pathMappings().default({}),
      SERVER_SCAN_DELAY: seconds().default(180),
      SERVER_MAX_FILE_CHECKS: integer(0, 1_000_000, 'a whole number, 0 or more').default(10),
      SERVER_FILE_CHECK_DELAY: seconds().default(60),
      SERVER_FILE_EXIST_PATH_MAPPINGS: pathMappings().default({}),
      SERVER_ALLOW_MANUAL_SCAN: bool().default(false),
      // An empty entry would be a substring of every path and silently ignore every manual request.
      SERVER_IGNORE_LIST: stringList(true).default([]),
      /** Accepted for compatibility; the queue is always durable. */
      SERVER_USE_SQLITE: bool().default(true),
      SERVER_SCAN_PRIORITIES: z
        .record(
          z.string().regex(/^-?\d+$/, { error: 'an integer (as a string) as key, like "0"' }),
          stringList(true),
          { error: 'an object of "<integer>": ["substring", ...]' },
        )
        .default({}),
      SERVER_SCAN_FOLDER_ON_FILE_EXISTS_EXHAUSTION: bool().default(false),
      /** Files that must all exist before any scan: a vanished mount must not empty libraries. */
      SERVER_ANCHOR_FILES: stringList(true).default([]),
      SERVER_METRICS_TOKEN: text().default(''),
      SERVER_SCAN_RETRY_MAX_DELAY: positiveSeconds().default(300),
      /** Whose X-Forwarded-For/-Host/-Proto to believe; false: the address in the log is the socket's. */
      SERVER_TRUST_PROXY: trustProxy().default(false),

      // --- bounded disk (src/queue/retention.ts, src/log-file.ts)
      HISTORY_DAYS: z.number({ error: 'a number of days greater than 0' }).gt(0, { error: 'a number of days greater than 0' }).default(30),
      HISTORY_MAX_ROWS: integer(0, Number.MAX_SAFE_INTEGER, 'a whole number, 0 or more (0 = no row limit)').default(200_000),
      LOG_MAX_SIZE: logSize().default('10MB'),
      LOG_KEEP: integer(0, 1000, 'a whole number of files, 0-1000').default(5),

      RCLONE: rcloneSchema,

      // --- how the scanner executable is run
      DOCKER_NAME: text().default('plex'),
      USE_DOCKER: bool().default(false),
      // false rather than plex_autoscan's true: scans go through the Plex HTTP API by default, and a sudo
      // prompt in a service just hangs.
      USE_SUDO: bool().default(false),
      RUN_COMMAND_BEFORE_SCAN: text().default(''),
      RUN_COMMAND_AFTER_SCAN: text().default(''),

      GOOGLE: googleSchema,

      TARGETS: z.array(targetSchema, { error: 'a list of target objects' }).default([]),
      /** Rename and upgrade events also refresh the file's item (a request asking with refresh=item always gets it). */
      PLEX_REFRESH_ITEMS: bool().default(false),
      WATCH: watchSchema,
      AUTOSCAN: autoscanSchema,
    },
    { error: 'a JSON object' },
  )
  .superRefine((c, ctx) => {
    const seen = new Map<string, number>();
    c.TARGETS.forEach((t, i) => {
      const key = t.NAME.toLowerCase();
      const first = seen.get(key);
      if (first !== undefined) {
        ctx.addIssue({ code: 'custom', path: ['TARGETS', i, 'NAME'], message: `a name not already used by TARGETS[${first}]` });
      } else {
        seen.set(key, i);
      }
      if (c.PLEX_ENABLED && key === FIRST_PLEX_NAME) {
        ctx.addIssue({
          code: 'custom',
          path: ['TARGETS', i, 'NAME'],
          message: `a name other than "${FIRST_PLEX_NAME}" (it is the Plex server of the PLEX_* keys while PLEX_ENABLED is true)`,
        });
      }
    });
    if (c.PLEX_ENABLED && c.PLEX_SCAN_MODE === 'api' && c.PLEX_LOCAL_URL === '') {
      ctx.addIssue({ code: 'custom', path: ['PLEX_LOCAL_URL'], message: 'the Plex URL, because PLEX_SCAN_MODE is "api"' });
    }
  });

export type Config = z.infer<typeof configSchema>;
export type TargetConfig = Config['TARGETS'][number];
export type TargetType = TargetConfig['TYPE'];
