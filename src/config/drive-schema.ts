// The GOOGLE block (the Drive change monitor: sign-in, endpoints, what passes the ALLOWED filter) and the RCLONE
// block (crypt names, the remote-control cache refresh).
import * as z from 'zod/mini';
import { bool, httpUrl, optionalHttpUrl, pathMappings, positiveSeconds, prefault, stringList, text, withDefault } from '../value-rules.js';

function allowedSchema() {
  return prefault(
    z.object(
      {
        FILE_PATHS: withDefault(stringList(false), []),
        FILE_EXTENSIONS: withDefault(bool(), false),
        FILE_EXTENSIONS_LIST: withDefault(stringList(false), []),
        MIME_TYPES: withDefault(bool(), false),
        MIME_TYPES_LIST: withDefault(stringList(false), []),
      },
      { error: 'an object with FILE_PATHS, FILE_EXTENSIONS, FILE_EXTENSIONS_LIST, MIME_TYPES, MIME_TYPES_LIST' },
    ),
    {},
  );
}

/** The GOOGLE block's schema, made for one reading of a config. */
export function googleSchema() {
  return prefault(
    z.object(
      {
        ENABLED: withDefault(bool(), false),
        CLIENT_ID: withDefault(text(), ''),
        CLIENT_SECRET: withDefault(text(), ''),
        /** Service-account JSON key; replaces the OAuth client (Google blocked plex_autoscan's OOB flow). */
        SERVICE_ACCOUNT_FILE: withDefault(text(), ''),
        /** An rclone drive remote whose credentials the monitor borrows instead of its own. */
        RCLONE_REMOTE: withDefault(text(), ''),
        RCLONE_CONFIG: withDefault(text(), ''),
        /** "" = token.json beside config.json (the caller resolves it). */
        TOKEN_FILE: withDefault(text(), ''),
        // The three endpoints exist so tests and private gateways can point the monitor elsewhere.
        AUTH_URL: withDefault(httpUrl(), 'https://accounts.google.com/o/oauth2/v2/auth'),
        TOKEN_URL: withDefault(httpUrl(), 'https://oauth2.googleapis.com/token'),
        API_URL: withDefault(httpUrl(), 'https://www.googleapis.com'),
        ALLOWED: allowedSchema(),
        TEAMDRIVE: withDefault(bool(), false),
        TEAMDRIVES: withDefault(stringList(false), []),
        POLL_INTERVAL: withDefault(positiveSeconds(), 120),
        SHOW_CACHE_LOGS: withDefault(bool(), false),
        DISABLE_DISK_FILE_SIZE_CHECK: withDefault(bool(), false),
      },
      { error: 'an object of Google Drive settings' },
    ),
    {},
  );
}

/** The RCLONE block's schema, made for one reading of a config. */
export function rcloneSchema() {
  return prefault(
    z.object(
      {
        BINARY: withDefault(text(), '/usr/bin/rclone'),
        CONFIG: withDefault(text(), ''),
        CRYPT_MAPPINGS: withDefault(pathMappings(), {}),
        RC_CACHE_REFRESH: prefault(
          z.object(
            {
              ENABLED: withDefault(bool(), false),
              RC_URL: withDefault(optionalHttpUrl(), 'http://localhost:5572'),
              FILE_EXISTS_TO_REMOTE_MAPPINGS: withDefault(pathMappings(), {}),
            },
            { error: 'an object with ENABLED, RC_URL, FILE_EXISTS_TO_REMOTE_MAPPINGS' },
          ),
          {},
        ),
      },
      { error: 'an object with BINARY, CONFIG, CRYPT_MAPPINGS, RC_CACHE_REFRESH' },
    ),
    {},
  );
}
