// One TARGETS entry: a media server or other receiver beside the first Plex, with the keys each type needs.
import { z } from 'zod';
import { requiredTargetKeys } from './target-keys.js';
import { bool, choice, integer, optionalHttpUrl, pathMappings, positiveSeconds, seconds, stringList, text } from './values.js';

const TARGET_TYPES = ['plex', 'plex-scanner', 'jellyfin', 'emby', 'command', 'audiobookshelf', 'tdarr', 'sonarr', 'radarr', 'relay'] as const;
const TARGET_NAME_PATTERN = /^[A-Za-z0-9_.-]+$/;
/** The name the target built from the PLEX_* keys goes by (and its delivery key in the queue). */
export const FIRST_PLEX_NAME = 'plex';

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
