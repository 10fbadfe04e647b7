// The GOOGLE section of config.json as the Drive code reads it, its defaults, and the sign-in it selects.
import { isAbsolute, join, resolve } from 'node:path';
import { GOOGLE_TOKEN_URL } from '../google/token-endpoint.js';

/** GOOGLE.ALLOWED: which Drive files may lead to a scan (docs/drive.md). */
export interface GoogleAllowed {
  /** Drive-form prefixes ("My Drive/Media/TV/"), compared case-insensitively. Empty allows nothing. */
  FILE_PATHS: string[];
  FILE_EXTENSIONS: boolean;
  /** Extensions without the dot. */
  FILE_EXTENSIONS_LIST: string[];
  MIME_TYPES: boolean;
  /** Case-insensitive substrings of the file's mimeType. */
  MIME_TYPES_LIST: string[];
}

/**
 * Structural twin of the config schema's GOOGLE section (keys as plex_autoscan spells them), so this folder
 * does not depend on the schema module.
 */
export interface GoogleSettings {
  ENABLED: boolean;
  CLIENT_ID: string;
  CLIENT_SECRET: string;
  ALLOWED: GoogleAllowed;
  TEAMDRIVE: boolean;
  /** Shared drives to watch, by name or by ID. */
  TEAMDRIVES: string[];
  /** Seconds between polls. */
  POLL_INTERVAL: number;
  SHOW_CACHE_LOGS: boolean;
  /** true: a Drive file found in the Plex database is skipped without comparing sizes. */
  DISABLE_DISK_FILE_SIZE_CHECK: boolean;
  /** Service-account key file; non-empty selects that sign-in. */
  SERVICE_ACCOUNT_FILE: string;
  /** Name of an rclone remote whose token to reuse; non-empty (and no service account) selects that sign-in. */
  RCLONE_REMOTE: string;
  /** rclone.conf to read RCLONE_REMOTE from; "" = rclone's default location. */
  RCLONE_CONFIG: string;
  /** Where `authorize` stores the token; "" = token.json beside the config file. */
  TOKEN_FILE: string;
  /** Endpoints; changed only to point tests at fakes or to go through a private proxy. */
  AUTH_URL: string;
  TOKEN_URL: string;
  API_URL: string;
}

export const DEFAULT_AUTH_URL = 'https://accounts.google.com/o/oauth2/v2/auth';
export const DEFAULT_TOKEN_URL = GOOGLE_TOKEN_URL;
export const DEFAULT_API_URL = 'https://www.googleapis.com';
/** Full Drive scope, the one plex_autoscan's authorize asks for (the monitor itself only reads). */
export const DRIVE_SCOPE = 'https://www.googleapis.com/auth/drive';

export const GOOGLE_DEFAULTS: GoogleSettings = {
  ENABLED: false,
  CLIENT_ID: '',
  CLIENT_SECRET: '',
  ALLOWED: {
    FILE_PATHS: [],
    FILE_EXTENSIONS: false,
    FILE_EXTENSIONS_LIST: [],
    MIME_TYPES: false,
    MIME_TYPES_LIST: [],
  },
  TEAMDRIVE: false,
  TEAMDRIVES: [],
  POLL_INTERVAL: 120,
  SHOW_CACHE_LOGS: false,
  DISABLE_DISK_FILE_SIZE_CHECK: false,
  SERVICE_ACCOUNT_FILE: '',
  RCLONE_REMOTE: '',
  RCLONE_CONFIG: '',
  TOKEN_FILE: '',
  AUTH_URL: DEFAULT_AUTH_URL,
  TOKEN_URL: DEFAULT_TOKEN_URL,
  API_URL: DEFAULT_API_URL,
};

/** Fills missing keys with defaults (tests and partial configs). */
export function withGoogleDefaults(partial: Partial<GoogleSettings> & { ALLOWED?: Partial<GoogleAllowed> }): GoogleSettings {
  return {
    ...GOOGLE_DEFAULTS,
    ...partial,
    ALLOWED: { ...GOOGLE_DEFAULTS.ALLOWED, ...(partial.ALLOWED ?? {}) },
  } as GoogleSettings;
}

export type SignInMethod = 'service-account' | 'rclone' | 'oauth';

/** A service account wins over an rclone remote, which wins over `authorize`'s token file. */
export function signInMethod(s: GoogleSettings): SignInMethod {
  if (s.SERVICE_ACCOUNT_FILE.trim()) return 'service-account';
  if (s.RCLONE_REMOTE.trim()) return 'rclone';
  return 'oauth';
}

/** Relative paths in GOOGLE are relative to the config file's folder, like the rest of config.json. */
export function resolveFromConfig(configDir: string, p: string): string {
  return isAbsolute(p) ? p : resolve(configDir, p);
}

export function tokenFilePath(s: GoogleSettings, configDir: string): string {
  return s.TOKEN_FILE.trim() ? resolveFromConfig(configDir, s.TOKEN_FILE.trim()) : join(configDir, 'token.json');
}

/** Strips trailing slashes so "http://127.0.0.1:1234/" and "http://127.0.0.1:1234" build the same URLs. */
export function trimUrl(u: string): string {
  return u.replace(/\/+$/, '');
}
