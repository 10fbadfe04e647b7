// Plex's own part of building targets: the first Plex (plex_autoscan's only one) as the TARGETS entry its PLEX_*
// keys amount to, and the context the Plex kinds (target.ts, scanner-target.ts) are built with beyond every kind's:
// the PLEX_* keys a Plex entry falls back on, the keys its messages name, and Plex's read-only library database.
// No other kind sees any of it.
import { existsSync } from 'node:fs';
import type { Logger } from '../../log/logger.js';
import type { DeletedCounter } from './after-scan.js';
import type { FileInLibrary } from './confirm.js';
import { PLEX_DATABASE_PATH_DEFAULT, type PlexKeys } from './keys.js';
import type { SectionFolders } from './locations.js';
import type { Entry, KindContext } from '../kind.js';

/** The name the target built from the PLEX_* keys goes by (and its delivery key in the queue). */
export const FIRST_PLEX_NAME = 'plex';

/** Plex's read-only database, opened by the service (src/service.ts) for the Plex kinds that name one. */
export interface PlexDatabases {
  /** Plex's read-only database at a path: is a file in the library, how many items are marked deleted. */
  plexDatabase?: (databasePath: string) => { fileInLibrary?: FileInLibrary; deletedCount?: DeletedCounter } | undefined;
  /** A Plex's section folders from its database, for a scanner entry without a token. */
  scannerSections?: (databasePath: string) => Promise<SectionFolders[]>;
}

/** What a Plex kind is built with. */
export interface PlexContext extends KindContext, PlexDatabases {
  /** The first Plex, built from the PLEX_* keys rather than a TARGETS entry: messages name those keys. */
  first: boolean;
  /** The key that holds the entry's TOKEN, for messages ("PLEX_TOKEN", or the TARGETS entry's TOKEN). */
  tokenKey: string;
  /** The top-level keys a Plex entry's left-out keys fall back on. */
  plex: PlexKeys;
}

/** The top-level keys the first Plex is made of, beside those every Plex entry falls back on. */
export interface FirstPlexKeys extends PlexKeys {
  PLEX_ENABLED: boolean;
  PLEX_SCAN_MODE: 'auto' | 'api' | 'scanner';
  PLEX_SCAN_PAUSE: number;
  PLEX_SCAN_CONCURRENCY: number;
  PLEX_MAX_OUTSTANDING: number;
}

/** A Plex kind's context: every kind's, with Plex's own beside it. */
export function plexContext(common: KindContext, entry: Entry, first: boolean, keys: PlexKeys, databases: PlexDatabases): PlexContext {
  return {
    ...common,
    plexDatabase: databases.plexDatabase,
    scannerSections: databases.scannerSections,
    first,
    tokenKey: first ? 'PLEX_TOKEN' : `TOKEN of TARGETS entry "${entry.NAME}"`,
    plex: keys,
  };
}

/** PLEX_SCAN_MODE "auto": the API when a token is set (the scanner's --scan is deprecated), else the scanner. */
export function firstPlexMode(config: Pick<FirstPlexKeys, 'PLEX_SCAN_MODE' | 'PLEX_TOKEN'>): 'api' | 'scanner' {
  if (config.PLEX_SCAN_MODE === 'api' || config.PLEX_SCAN_MODE === 'scanner') return config.PLEX_SCAN_MODE;
  return config.PLEX_TOKEN ? 'api' : 'scanner';
}

/** The first Plex, as the TARGETS entry its PLEX_* keys amount to; none while it is off or cannot work yet. */
export function firstPlexEntry(config: FirstPlexKeys, logger: Logger): Entry | undefined {
  if (!config.PLEX_ENABLED) return undefined;
  const api = firstPlexMode(config) === 'api';
  if (api && !config.PLEX_TOKEN) {
    logger.warn('PLEX_SCAN_MODE is "api" but PLEX_TOKEN is empty: the first Plex is not used until PLEX_TOKEN is set. Requests are queued and kept until then.');
    return undefined;
  }
  // A first start: no token, and no Plex database where a local install keeps it, so the scanner could never
  // run. One line saying what to set, rather than a scanner target that fails at every probe.
  if (!api && config.PLEX_SCAN_MODE === 'auto' && config.PLEX_DATABASE_PATH === PLEX_DATABASE_PATH_DEFAULT && !existsSync(config.PLEX_DATABASE_PATH)) {
    logger.warn('PLEX_TOKEN is empty: set PLEX_LOCAL_URL and PLEX_TOKEN in config.json (README, "First scan", says where to find the token), then restart. Requests are queued and kept until then.');
    return undefined;
  }
  return {
    NAME: FIRST_PLEX_NAME,
    TYPE: api ? 'plex' : 'plex-scanner',
    ENABLED: true,
    URL: config.PLEX_LOCAL_URL,
    TOKEN: config.PLEX_TOKEN,
    DATABASE_PATH: config.PLEX_DATABASE_PATH,
    EMPTY_TRASH: config.PLEX_EMPTY_TRASH,
    PATH_MAPPINGS: {},
    INCLUDE: [],
    EXCLUDE: [],
    SCAN_PAUSE: config.PLEX_SCAN_PAUSE,
    SCAN_CONCURRENCY: config.PLEX_SCAN_CONCURRENCY,
    MAX_OUTSTANDING: config.PLEX_MAX_OUTSTANDING,
  };
}
