// The first Plex's top-level keys that a Plex TARGETS entry falls back on for each key it leaves out. Written as a
// view of the config (which the loaded config satisfies) so the target kinds need not import the config schema,
// which imports them; and PLEX_DATABASE_PATH's default, which the schema and the first Plex share for that reason.

/** Where a local install of Plex keeps its library database: PLEX_DATABASE_PATH's default. */
export const PLEX_DATABASE_PATH_DEFAULT =
  '/var/lib/plexmediaserver/Library/Application Support/Plex Media Server/Plug-in Support/Databases/com.plexapp.plugins.library.db';

export interface PlexKeys {
  PLEX_LOCAL_URL: string;
  PLEX_TOKEN: string;
  PLEX_DATABASE_PATH: string;
  PLEX_USER: string;
  PLEX_SCANNER: string;
  PLEX_SUPPORT_DIR: string;
  PLEX_LD_LIBRARY_PATH: string;
  USE_SUDO: boolean;
  USE_DOCKER: boolean;
  DOCKER_NAME: string;
  PLEX_WAIT_FOR_EXTERNAL_SCANNERS: boolean;
  PLEX_EMPTY_TRASH: boolean;
  PLEX_EMPTY_TRASH_MAX_FILES: number;
  PLEX_EMPTY_TRASH_CONTROL_FILES: string[];
  PLEX_EMPTY_TRASH_ZERO_DELETED: boolean;
  PLEX_ANALYZE_TYPE: 'off' | 'basic' | 'deep';
  PLEX_ANALYZE_DIRECTORY: boolean;
  PLEX_FIX_MISMATCHED: boolean;
  PLEX_FIX_MISMATCHED_LANG: string;
  PLEX_FIX_MISMATCHED_DRY_RUN: boolean;
  PLEX_CHECK_BEFORE_SCAN: boolean;
  PLEX_CONFIRM_SCANS: boolean;
  PLEX_CONFIRM_TIMEOUT: number;
  PLEX_FOLLOW_INTERVAL: number;
  PLEX_NOTIFICATIONS: boolean;
  PLEX_REFRESH_ITEMS: boolean;
}
