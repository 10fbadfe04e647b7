// The list of targets a config describes: the first Plex from PLEX_* keys, then every TARGETS entry.
import type { Clock } from '../clock.js';
import type { Config, TargetConfig } from '../config/schema.js';
import type { Logger } from '../log.js';
import type { DeletedCounter } from '../plex/after-scan.js';
import { PlexApi } from '../plex/api.js';
import type { FileInLibrary } from '../plex/confirm.js';
import { entryUrlKey } from './api-call.js';
import { arrTarget } from './arr.js';
import { audiobookshelfTarget } from './audiobookshelf.js';
import { commandTarget } from './command.js';
import { embyTarget } from './emby.js';
import { jellyfinTarget } from './jellyfin.js';
import { plexScannerTarget, scannerSettingsFrom, type SectionLocations } from './plex-scanner.js';
import { PlexTarget, type PlexTargetOptions } from './plex.js';
import { relayTarget } from './relay.js';
import { withRewrite } from './rewrite.js';
import { tdarrTarget } from './tdarr.js';
import type { Target } from '../scan.js';

export interface BuildDeps {
  clock: Clock;
  logger: Logger;
  fetch?: typeof fetch;
  /** Where a scanner-route target learns its sections' folders when there is no token (the Plex database). */
  scannerSections?: (databasePath: string) => Promise<SectionLocations[]>;
  /** Plex's read-only database at a path, for confirming files and counting deleted items (empty trash). */
  plexDatabase?: (databasePath: string) => { fileInLibrary?: FileInLibrary; deletedCount?: DeletedCounter } | undefined;
}

/** PLEX_SCAN_MODE "auto": the API when a token is set (the scanner's --scan is deprecated), else the scanner. */
export function firstPlexMode(config: Config): 'api' | 'scanner' {
  if (config.PLEX_SCAN_MODE === 'api' || config.PLEX_SCAN_MODE === 'scanner') return config.PLEX_SCAN_MODE;
  return config.PLEX_TOKEN ? 'api' : 'scanner';
}

export function buildTargets(config: Config, deps: BuildDeps): Target[] {
  const targets: Target[] = [];
  if (config.PLEX_ENABLED) {
    if (firstPlexMode(config) === 'api') {
      if (config.PLEX_TOKEN) {
        targets.push(
          new PlexTarget({
            name: 'plex',
            url: config.PLEX_LOCAL_URL,
            urlKey: 'PLEX_LOCAL_URL',
            token: config.PLEX_TOKEN,
            pauseMs: config.PLEX_SCAN_PAUSE * 1000,
            concurrency: config.PLEX_SCAN_CONCURRENCY,
            clock: deps.clock,
            fetch: deps.fetch,
            ...plexAfterScanOptions(config, deps, config.PLEX_DATABASE_PATH),
          }),
        );
      } else {
        deps.logger.warn('PLEX_SCAN_MODE is "api" but PLEX_TOKEN is empty: the first Plex is not used until PLEX_TOKEN is set.');
      }
    } else {
      targets.push(
        plexScannerTarget({
          name: 'plex',
          settings: scannerSettingsFrom(config),
          sections: scannerSectionSource(config.PLEX_LOCAL_URL, config.PLEX_TOKEN, config.PLEX_DATABASE_PATH, deps),
          pauseMs: config.PLEX_SCAN_PAUSE * 1000,
          concurrency: config.PLEX_SCAN_CONCURRENCY,
          logger: deps.logger,
        }),
      );
    }
  }
  for (const t of config.TARGETS) {
    if (t.ENABLED === false) continue;
    targets.push(withRewrite(buildOne(t, config, deps), { mappings: t.PATH_MAPPINGS, include: t.INCLUDE, exclude: t.EXCLUDE }));
  }
  return targets;
}

function buildOne(t: TargetConfig, config: Config, deps: BuildDeps): Target {
  const pauseMs = (t.SCAN_PAUSE ?? 0) * 1000;
  const common = { name: t.NAME, url: t.URL ?? '', urlKey: entryUrlKey(t.NAME), token: t.TOKEN ?? '', pauseMs, concurrency: t.SCAN_CONCURRENCY, clock: deps.clock, logger: deps.logger, fetch: deps.fetch };
  switch (t.TYPE) {
    case 'jellyfin':
      return jellyfinTarget(common);
    case 'emby':
      return embyTarget(common);
    case 'plex':
      return new PlexTarget({ ...common, ...plexAfterScanOptions(config, deps, t.DATABASE_PATH, t) });
    case 'plex-scanner':
      return plexScannerTarget({
        name: t.NAME,
        settings: scannerSettingsFrom(config, t),
        sections: scannerSectionSource(t.URL ?? config.PLEX_LOCAL_URL, t.TOKEN ?? '', t.DATABASE_PATH ?? config.PLEX_DATABASE_PATH, deps),
        pauseMs,
        concurrency: t.SCAN_CONCURRENCY,
        logger: deps.logger,
      });
    case 'command':
      return commandTarget({ name: t.NAME, argv: t.COMMAND ?? [], timeoutMs: t.TIMEOUT === undefined ? undefined : t.TIMEOUT * 1000, pauseMs });
    case 'audiobookshelf':
      return audiobookshelfTarget(common);
    case 'tdarr':
      return tdarrTarget({ ...common, libraryId: t.LIBRARY_ID ?? '' });
    case 'sonarr':
    case 'radarr':
      return arrTarget(t.TYPE, common);
    case 'relay':
      return relayTarget({ name: t.NAME, url: t.URL ?? '', user: t.USER, password: t.PASSWORD, pauseMs, fetch: deps.fetch });
  }
}

/**
 * What follows an API scan: the first Plex's from the PLEX_* keys; a TARGETS entry's from its own keys, each
 * falling back to the PLEX_* one. EMPTY_TRASH is the exception: the deleted count that guards it must come from
 * that server's own database, so without the entry's DATABASE_PATH it stays off unless asked for (and then warns).
 */
function plexAfterScanOptions(config: Config, deps: BuildDeps, databasePath?: string, entry?: TargetConfig): Partial<PlexTargetOptions> {
  const database = databasePath ? deps.plexDatabase?.(databasePath) : undefined;
  const emptyTrash = entry ? (entry.EMPTY_TRASH ?? (entry.DATABASE_PATH ? config.PLEX_EMPTY_TRASH : false)) : config.PLEX_EMPTY_TRASH;
  if (entry && entry.EMPTY_TRASH && !entry.DATABASE_PATH) {
    deps.logger.warn(
      `TARGETS "${entry.NAME}": EMPTY_TRASH is true but the entry has no DATABASE_PATH, so its trash is never emptied: ` +
        `the number of deleted items that guards it must come from that Plex's own database.`,
    );
  }
  return {
    fileInLibrary: database?.fileInLibrary,
    deletedCount: database?.deletedCount,
    logger: deps.logger,
    confirmScans: config.PLEX_CONFIRM_SCANS,
    confirmTimeoutMs: (config.PLEX_CONFIRM_TIMEOUT ?? 300) * 1000,
    followIntervalMs: config.PLEX_FOLLOW_INTERVAL * 1000,
    ...(fixMismatched(config, deps) ? { fixMismatched: { lang: config.PLEX_FIX_MISMATCHED_LANG, dryRun: config.PLEX_FIX_MISMATCHED_DRY_RUN } } : {}),
    checkBeforeScan: config.PLEX_CHECK_BEFORE_SCAN,
    after: {
      emptyTrash,
      emptyTrashMaxFiles: entry?.EMPTY_TRASH_MAX_FILES ?? config.PLEX_EMPTY_TRASH_MAX_FILES,
      emptyTrashControlFiles: entry?.EMPTY_TRASH_CONTROL_FILES ?? config.PLEX_EMPTY_TRASH_CONTROL_FILES,
      emptyTrashZeroDeleted: entry?.EMPTY_TRASH_ZERO_DELETED ?? config.PLEX_EMPTY_TRASH_ZERO_DELETED,
      analyze: entry?.ANALYZE_TYPE ?? config.PLEX_ANALYZE_TYPE,
      analyzeDirectory: entry?.ANALYZE_DIRECTORY ?? config.PLEX_ANALYZE_DIRECTORY,
      entry: entry?.NAME,
    },
  };
}

/** PLEX_FIX_MISMATCHED works on confirmed API scans, so it needs PLEX_CONFIRM_SCANS too, and says so when it can't. */
function fixMismatched(config: Config, deps: BuildDeps): boolean {
  if (!config.PLEX_FIX_MISMATCHED) return false;
  if (!config.PLEX_CONFIRM_SCANS) {
    deps.logger.warn('PLEX_FIX_MISMATCHED is on but PLEX_CONFIRM_SCANS is false: matches are checked only for confirmed files, so none are.');
    return false;
  }
  return true;
}

/** Section folders for the scanner route: through the API when there is a token, else from Plex's database. */
function scannerSectionSource(url: string, token: string, databasePath: string, deps: BuildDeps): () => Promise<SectionLocations[]> {
  if (token) {
    const api = new PlexApi({ url, token, fetch: deps.fetch });
    return async () => (await api.sections()).map((s) => ({ id: s.id, title: s.title, locations: s.locations }));
  }
  return async () => {
    if (!deps.scannerSections) {
      throw new Error(`cannot learn Plex's section folders: set PLEX_TOKEN, or make PLEX_DATABASE_PATH ('${databasePath}') readable`);
    }
    return deps.scannerSections(databasePath);
  };
}
