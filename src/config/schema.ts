// The shape of config.json: the top-level keys (plex_autoscan's and scanrelay's own) with their base defaults,
// and the blocks kept in their own files (GOOGLE and RCLONE, TARGETS, WATCH, AUTOSCAN).
//
// Keys keep plex_autoscan's UPPERCASE names and nesting so an existing config.json works unchanged. The base
// defaults here are what a missing key gets; a new install gets the friendlier values of defaults.ts instead.
import { randomBytes } from 'node:crypto';
import * as z from 'zod/mini';
import { arrSchema } from './arr-schema.js';
import { autoscanSchema } from './autoscan-schema.js';
import { googleSchema, rcloneSchema } from './drive-schema.js';
import { FIRST_PLEX_NAME, targetSchema } from './target-schema.js';
import { basePath, bool, choice, MAX_PASS_IN_URL, passTooLongReason, reservedPassReason, integer, logSize, optionalHttpUrl, pathMappings, positiveSeconds, seconds, stringList, text, trustProxy, withDefault } from '../value-rules.js';
import { watchSchema } from './watch-schema.js';
import { notifySchema } from '../notify/schema.js';
import { PLEX_DATABASE_PATH_DEFAULT } from '../targets/plex/keys.js';
import { typed } from '../version.js';

export { targetSchema };

/** A fresh secret path segment: 32 lowercase hex characters, like plex_autoscan's uuid4().hex. */
export function newServerPass(): string {
  // node:crypto from Node when a secret is made, not each time a config is read (src/server/secret.ts says why).
  return randomBytes(16).toString('hex');
}

export const PLEX_SCANNER_DEFAULT = '/usr/lib/plexmediaserver/Plex\\ Media\\ Scanner';
export const PLEX_SUPPORT_DIR_DEFAULT = '/var/lib/plexmediaserver/Library/Application\\ Support';
export const PLEX_LD_LIBRARY_PATH_DEFAULT = '/usr/lib/plexmediaserver/lib';

/**
 * The whole config's schema. Made anew for each reading of a config and let go after it: an idle relay keeps no
 * zod object (each carries its own methods; docs/performance.md, "Idle memory").
 */
export function configSchema() {
  return z
    .object(
      {
        // --- the first Plex server (plex_autoscan's only one)
        PLEX_ENABLED: withDefault(bool(), true),
        PLEX_USER: withDefault(text(), 'plex'),
        PLEX_SCANNER: withDefault(text(), PLEX_SCANNER_DEFAULT),
        PLEX_SUPPORT_DIR: withDefault(text(), PLEX_SUPPORT_DIR_DEFAULT),
        PLEX_LD_LIBRARY_PATH: withDefault(text(), PLEX_LD_LIBRARY_PATH_DEFAULT),
        PLEX_DATABASE_PATH: withDefault(text(), PLEX_DATABASE_PATH_DEFAULT),
        PLEX_LOCAL_URL: withDefault(optionalHttpUrl(), 'http://localhost:32400'),
        PLEX_TOKEN: withDefault(text(), ''),
        /** auto = the HTTP API when PLEX_TOKEN is set, else the scanner executable (plex_autoscan's way). */
        PLEX_SCAN_MODE: withDefault(choice(['auto', 'api', 'scanner']), 'auto'),
        PLEX_SCAN_PAUSE: withDefault(seconds(), 0),
        /** Scans sent to the first Plex at once while PLEX_SCAN_PAUSE is 0. */
        PLEX_SCAN_CONCURRENCY: withDefault(integer(1, 64, 'a whole number from 1 to 64'), 8),
        /** Scans the first Plex accepted and has not finished, at most: the rest wait in our queue, where they merge. */
        PLEX_MAX_OUTSTANDING: withDefault(integer(1, 100_000, 'a whole number from 1 to 100000'), 8),
        PLEX_EMPTY_TRASH: withDefault(bool(), false),
        // plex_autoscan treats 0 as "never empty": kept.
        PLEX_EMPTY_TRASH_MAX_FILES: withDefault(integer(0, Number.MAX_SAFE_INTEGER, 'a whole number, 0 or more'), 100),
        PLEX_EMPTY_TRASH_CONTROL_FILES: withDefault(stringList(true), []),
        PLEX_EMPTY_TRASH_ZERO_DELETED: withDefault(bool(), false),
        PLEX_WAIT_FOR_EXTERNAL_SCANNERS: withDefault(bool(), true),
        PLEX_ANALYZE_TYPE: withDefault(choice(['off', 'basic', 'deep']), 'basic'),
        PLEX_ANALYZE_DIRECTORY: withDefault(bool(), true),
        PLEX_FIX_MISMATCHED: withDefault(bool(), false),
        PLEX_FIX_MISMATCHED_LANG: withDefault(text(), 'en'),
        /** Log what the match check would split, match and refresh, and change nothing. */
        PLEX_FIX_MISMATCHED_DRY_RUN: withDefault(bool(), false),
        PLEX_CHECK_BEFORE_SCAN: withDefault(bool(), false),
        /** Follow each API scan to its end (GET /activities) and confirm the request's file is in the library. */
        PLEX_CONFIRM_SCANS: withDefault(bool(), true),
        /** The longest a scan is followed before it is recorded as scanned but unconfirmed. */
        PLEX_CONFIRM_TIMEOUT: withDefault(positiveSeconds(), 300),
        /** How often the follower asks each Plex which sections are scanning (one request for all folders). */
        PLEX_FOLLOW_INTERVAL: withDefault(positiveSeconds(), 1),
        /** Follow scans through Plex's notification socket; /activities polling stays the fallback. */
        PLEX_NOTIFICATIONS: withDefault(bool(), true),

        // --- the HTTP server and the scan pipeline
        SERVER_IP: withDefault(z.string({ error: 'a listen address' }).check(z.minLength(1, { error: 'a listen address' })), '0.0.0.0'),
        // 3468 rather than plex_autoscan's code default 3467: it is what the README, Cloudbox and users' arr apps use.
        SERVER_PORT: withDefault(integer(1, 65535, 'an integer 1-65535'), 3468),
        /** A prefix for every route, for a reverse proxy that publishes scanrelay at a sub-path ("/scanrelay"). */
        SERVER_BASE_PATH: withDefault(basePath(), ''),
        // A slash would split the URL segment the secret lives in; an empty one would expose "/".
        SERVER_PASS: withDefault(
          z.string({ error: 'a non-empty string without "/"' }).check(
            z.regex(/^[^/]+$/, { error: 'a non-empty string without "/"' }),
            // These are routes of their own: such a secret would make a public or Basic-auth path pass as it.
            z.refine((p) => reservedPassReason(p) === undefined, {
              error: `not "health", "metrics", "triggers", "api" or "favicon.ico" (routes of their own): run \`${typed('update-config --new-pass')}\` for a random one`,
            }),
            // Longer, every secret route would answer 414 (the router's limit on one URL segment).
            z.refine((p) => passTooLongReason(p) === undefined, {
              error: `at most ${MAX_PASS_IN_URL} characters as written in a URL (the longest URL segment the server takes): run \`${typed('update-config --new-pass')}\` for a random one`,
            }),
          ),
          newServerPass,
        ),
        SERVER_PATH_MAPPINGS: withDefault(pathMappings(), {}),
        SERVER_SCAN_DELAY: withDefault(seconds(), 180),
        /** However many requests follow, a folder is due no later than this after its first (src/queue/store.ts). */
        SERVER_SCAN_MAX_WAIT: withDefault(seconds(), 600),
        /** Per source or event ("upgrade", "sonarr", "sonarr:rename"): the delay a request of that kind asks for. */
        SERVER_SCAN_DELAYS: withDefault(z.record(z.string().check(z.minLength(1, { error: 'a non-empty source or event name as key' })), seconds(), { error: 'an object of "<event or source>": seconds' }), {}),
        SERVER_MAX_FILE_CHECKS: withDefault(integer(0, 1_000_000, 'a whole number, 0 or more'), 10),
        SERVER_FILE_CHECK_DELAY: withDefault(seconds(), 60),
        SERVER_FILE_EXIST_PATH_MAPPINGS: withDefault(pathMappings(), {}),
        SERVER_ALLOW_MANUAL_SCAN: withDefault(bool(), false),
        // An empty entry would be a substring of every path and silently ignore every manual request.
        SERVER_IGNORE_LIST: withDefault(stringList(true), []),
        /** The most paths one request may name; more is a 413 (a 30,000-file payload would hold the event loop for seconds). */
        SERVER_MAX_REQUEST_PATHS: withDefault(integer(1, 1_000_000, 'a whole number, 1 or more'), 1000),
        /** Accepted for compatibility; the queue is always durable. */
        SERVER_USE_SQLITE: withDefault(bool(), true),
        SERVER_SCAN_PRIORITIES: withDefault(
          z.record(
            z.string().check(z.regex(/^-?\d+$/, { error: 'an integer (as a string) as key, like "0"' })),
            stringList(true),
            { error: 'an object of "<integer>": ["substring", ...]' },
          ),
          {},
        ),
        SERVER_SCAN_FOLDER_ON_FILE_EXISTS_EXHAUSTION: withDefault(bool(), false),
        /** Files that must all exist before any scan: a vanished mount must not empty libraries. */
        SERVER_ANCHOR_FILES: withDefault(stringList(true), []),
        SERVER_METRICS_TOKEN: withDefault(text(), ''),
        SERVER_SCAN_RETRY_MAX_DELAY: withDefault(positiveSeconds(), 300),
        /** Whose X-Forwarded-For/-Host/-Proto to believe; false: the address in the log is the socket's. */
        SERVER_TRUST_PROXY: withDefault(trustProxy(), false),

        // --- bounded disk (src/queue/retention.ts, src/log/file.ts)
        HISTORY_DAYS: withDefault(z.number({ error: 'a number of days greater than 0' }).check(z.gt(0, { error: 'a number of days greater than 0' })), 30),
        HISTORY_MAX_ROWS: withDefault(integer(0, Number.MAX_SAFE_INTEGER, 'a whole number, 0 or more (0 = no row limit)'), 200_000),
        LOG_MAX_SIZE: withDefault(logSize(), '10MB'),
        LOG_KEEP: withDefault(integer(0, 1000, 'a whole number of files, 0-1000'), 5),

        RCLONE: rcloneSchema(),

        // --- how the scanner executable is run
        DOCKER_NAME: withDefault(text(), 'plex'),
        USE_DOCKER: withDefault(bool(), false),
        // false rather than plex_autoscan's true: scans go through the Plex HTTP API by default, and a sudo
        // prompt in a service just hangs.
        USE_SUDO: withDefault(bool(), false),
        RUN_COMMAND_BEFORE_SCAN: withDefault(text(), ''),
        RUN_COMMAND_AFTER_SCAN: withDefault(text(), ''),

        GOOGLE: googleSchema(),

        TARGETS: withDefault(z.array(targetSchema(), { error: 'a list of target objects' }), []),
        /** Rename and upgrade events also refresh the file's item (a request asking with refresh=item always gets it). */
        PLEX_REFRESH_ITEMS: withDefault(bool(), false),
        WATCH: watchSchema(),
        AUTOSCAN: autoscanSchema(),
        /** Notifications: off while empty (src/notify/). */
        NOTIFY: notifySchema(),
        /** The arr apps whose history fills in the webhooks missed while scanrelay was down (src/arr/). */
        ARR: arrSchema(),
      },
      { error: 'a JSON object' },
    )
    .check(z.superRefine((c, ctx) => {
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
    }));
}

export type Config = z.infer<ReturnType<typeof configSchema>>;
