// The GOOGLE block (the Drive change monitor: sign-in, endpoints, what passes the ALLOWED filter) and the RCLONE
// block (crypt names, the remote-control cache refresh).
import * as z from 'zod';
import { bool, httpUrl, optionalHttpUrl, pathMappings, positiveSeconds, stringList, text } from './values.js';

function allowedSchema() {
  return z
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
}

/** The GOOGLE block's schema, made for one reading of a config. */
export function googleSchema() {
  return z
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
        ALLOWED: allowedSchema(),
        TEAMDRIVE: bool().default(false),
        TEAMDRIVES: stringList(false).default([]),
        POLL_INTERVAL: positiveSeconds().default(120),
        SHOW_CACHE_LOGS: bool().default(false),
        DISABLE_DISK_FILE_SIZE_CHECK: bool().default(false),
      },
      { error: 'an object of Google Drive settings' },
    )
    .prefault({});
}

/** The RCLONE block's schema, made for one reading of a config. */
export function rcloneSchema() {
  return z
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
}
