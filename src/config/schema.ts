// The shape of config.json: the top-level keys (plex_autoscan's and scanrelay's own) with their base defaults,
// and the blocks kept in their own files (GOOGLE and RCLONE, TARGETS, WATCH, AUTOSCAN).
//
// Keys keep plex_autoscan's UPPERCASE names and nesting so an existing config.json works unchanged. The base
// defaults here are what a missing key gets; a new install gets the friendlier values of defaults.ts instead.
import { randomBytes } from 'node:crypto';
import * as z from 'zod';
import { autoscanSchema } from './autoscan-schema.js';
import { googleSchema, rcloneSchema } from './drive-schema.js';
import { FIRST_PLEX_NAME, targetSchema } from './target-schema.js';
import { bool, choice, reservedPassReason, integer, logSize, optionalHttpUrl, pathMappings, positiveSeconds, seconds, stringList, text, trustProxy } from './values.js';
import { watchSchema } from './watch-schema.js';
import { notifySchema } from '../notify/schema.js';

export { targetSchema };

/** A fresh secret path segment: 32 lowercase hex characters, like plex_autoscan's uuid4().hex. */
export function newServerPass(): string {
  return randomBytes(16).toString('hex');
}

export const PLEX_SCANNER_DEFAULT = '/usr/lib/plexmediaserver/Plex\\ Media\\ Scanner';
export const PLEX_SUPPORT_DIR_DEFAULT = '/var/lib/plexmediaserver/Library/Application\\ Support';
export const PLEX_LD_LIBRARY_PATH_DEFAULT = '/usr/lib/plexmediaserver/lib';
export const PLEX_DATABASE_PATH_DEFAULT =
  '/var/lib/plexmediaserver/Library/Application Support/Plex Media Server/Plug-in Support/Databases/com.plexapp.plugins.library.db';

/**
 * The whole config's schema. Made anew for each reading of a config and let go after it: an idle relay keeps no
 * zod object (each carries its own methods; kept, they held about 2 MB, docs/performance.md).
 */
export function configSchema() {
  return z
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
        /** Scans the first Plex accepted and has not finished, at most: the rest wait in our queue, where they merge. */
        PLEX_MAX_OUTSTANDING: integer(1, 100_000, 'a whole number from 1 to 100000').default(8),
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
        /** Follow scans through Plex's notification socket; /activities polling stays the fallback. */
        PLEX_NOTIFICATIONS: bool().default(true),

        // --- the HTTP server and the scan pipeline
        SERVER_IP: z.string({ error: 'a listen address' }).min(1, { error: 'a listen address' }).default('0.0.0.0'),
        // 3468 rather than plex_autoscan's code default 3467: it is what the README, Cloudbox and users' arr apps use.
        SERVER_PORT: integer(1, 65535, 'an integer 1-65535').default(3468),
        // A slash would split the URL segment the secret lives in; an empty one would expose "/".
        SERVER_PASS: z
          .string({ error: 'a non-empty string without "/"' })
          .regex(/^[^/]+$/, { error: 'a non-empty string without "/"' })
          // These are routes of their own: such a secret would make a public or Basic-auth path pass as it.
          .refine((p) => reservedPassReason(p) === undefined, {
            error: 'not "health", "metrics", "triggers", "api" or "favicon.ico" (routes of their own): run `scanrelay update-config --new-pass` for a random one',
          })
          .default(newServerPass),
        SERVER_PATH_MAPPINGS: pathMappings().default({}),
        SERVER_SCAN_DELAY: seconds().default(180),
        /** Per source or event ("upgrade", "sonarr", "sonarr:rename"): the delay a request of that kind asks for. */
        SERVER_SCAN_DELAYS: z.record(z.string().min(1, { error: 'a non-empty source or event name as key' }), seconds(), { error: 'an object of "<event or source>": seconds' }).default({}),
        SERVER_MAX_FILE_CHECKS: integer(0, 1_000_000, 'a whole number, 0 or more').default(10),
        SERVER_FILE_CHECK_DELAY: seconds().default(60),
        SERVER_FILE_EXIST_PATH_MAPPINGS: pathMappings().default({}),
        SERVER_ALLOW_MANUAL_SCAN: bool().default(false),
        // An empty entry would be a substring of every path and silently ignore every manual request.
        SERVER_IGNORE_LIST: stringList(true).default([]),
        /** The most paths one request may name; more is a 413 (a 30,000-file payload would hold the event loop for seconds). */
        SERVER_MAX_REQUEST_PATHS: integer(1, 1_000_000, 'a whole number, 1 or more').default(1000),
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

        RCLONE: rcloneSchema(),

        // --- how the scanner executable is run
        DOCKER_NAME: text().default('plex'),
        USE_DOCKER: bool().default(false),
        // false rather than plex_autoscan's true: scans go through the Plex HTTP API by default, and a sudo
        // prompt in a service just hangs.
        USE_SUDO: bool().default(false),
        RUN_COMMAND_BEFORE_SCAN: text().default(''),
        RUN_COMMAND_AFTER_SCAN: text().default(''),

        GOOGLE: googleSchema(),

        TARGETS: z.array(targetSchema(), { error: 'a list of target objects' }).default([]),
        /** Rename and upgrade events also refresh the file's item (a request asking with refresh=item always gets it). */
        PLEX_REFRESH_ITEMS: bool().default(false),
        WATCH: watchSchema(),
        AUTOSCAN: autoscanSchema(),
        /** Notifications: off while empty (src/notify/). */
        NOTIFY: notifySchema(),
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
}

export type Config = z.infer<ReturnType<typeof configSchema>>;
export type TargetConfig = Config['TARGETS'][number];
export type TargetType = TargetConfig['TYPE'];
