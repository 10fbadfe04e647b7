// Config to targets, in one place for every kind: the first Plex from the PLEX_* keys, then each TARGETS entry,
// each built by its kind (kinds.ts) and given here what every target has alike: its name, SCAN_PAUSE,
// SCAN_CONCURRENCY, MAX_OUTSTANDING, PATH_MAPPINGS, INCLUDE/EXCLUDE and REFRESH_ITEMS, and the library-root guard
// of the kinds whose scan of a library's own folder is the whole library's.
import { existsSync } from 'node:fs';
import { entryUrlKey } from '../api-call.js';
import type { Clock } from '../clock.js';
import { PLEX_DATABASE_PATH_DEFAULT, type Config } from '../config/schema.js';
import type { Logger } from '../log.js';
import type { ScanContext, Target } from '../scan.js';
import type { Capabilities, Entry, KindContext } from './kind.js';
import { kindOf } from './kinds.js';
import { libraryRootRefusal } from './library-root.js';
import { targetPath } from './rewrite.js';

export interface BuildDeps {
  clock: Clock;
  logger: Logger;
  fetch?: typeof fetch;
  scannerSections?: KindContext['scannerSections'];
  plexDatabase?: KindContext['plexDatabase'];
}

/** PLEX_SCAN_MODE "auto": the API when a token is set (the scanner's --scan is deprecated), else the scanner. */
export function firstPlexMode(config: Config): 'api' | 'scanner' {
  if (config.PLEX_SCAN_MODE === 'api' || config.PLEX_SCAN_MODE === 'scanner') return config.PLEX_SCAN_MODE;
  return config.PLEX_TOKEN ? 'api' : 'scanner';
}

export function buildTargets(config: Config, deps: BuildDeps): Target[] {
  const entries: { entry: Entry; first: boolean }[] = config.TARGETS.filter((t) => t.ENABLED !== false).map((entry) => ({ entry, first: false }));
  const first = firstPlexEntry(config, deps.logger);
  if (first) entries.unshift({ entry: first, first: true });
  return entries.map(({ entry, first }) => {
    const context: KindContext = {
      ...deps,
      first,
      urlKey: first ? 'PLEX_LOCAL_URL' : entryUrlKey(entry.NAME),
      tokenKey: first ? 'PLEX_TOKEN' : `TOKEN of TARGETS entry "${entry.NAME}"`,
      plex: config,
    };
    return configured(entry, kindOf(entry.TYPE)!.build(entry, context), config.PLEX_REFRESH_ITEMS);
  });
}

/** The first Plex (plex_autoscan's only one), as the TARGETS entry its PLEX_* keys amount to. */
function firstPlexEntry(config: Config, logger: Logger): Entry | undefined {
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
    NAME: 'plex',
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

/** A kind's capabilities, with what the table applies to every kind alike. */
export function configured(entry: Entry, target: Capabilities, refreshItemsByDefault = false): Target {
  const rules = { mappings: entry.PATH_MAPPINGS, include: entry.INCLUDE, exclude: entry.EXCLUDE };
  const pathOf = (folder: string) => targetPath(folder, rules);
  /** An item lookup by file, in the target's form; a file INCLUDE/EXCLUDE keeps from the target is not found there. */
  const byFile =
    <R>(call: (path: string) => Promise<R>) =>
    async (file: string): Promise<R | { status: 'not-found'; detail: string }> => {
      const { path, excluded } = pathOf(file);
      return excluded ? { status: 'not-found', detail: excluded } : call(path);
    };
  return {
    name: entry.NAME,
    kind: target.kind,
    pauseMs: (entry.SCAN_PAUSE ?? 0) * 1000,
    concurrency: entry.SCAN_CONCURRENCY,
    ...(entry.MAX_OUTSTANDING !== undefined ? { maxOutstanding: entry.MAX_OUTSTANDING } : {}),
    follower: target.follower,
    ...(target.outstanding ? { outstanding: () => target.outstanding!() } : {}),
    refreshOnChange: entry.REFRESH_ITEMS ?? refreshItemsByDefault,
    pathOf,
    async scan(folder: string, context: ScanContext) {
      const { path, excluded } = pathOf(folder);
      if (excluded) return { status: 'unmatched', detail: excluded };
      const refused = await libraryRootRefusal(target, entry.NAME, path, context);
      if (refused) return refused;
      const file = context.file === undefined ? undefined : pathOf(context.file).path;
      const files = context.files && { ...context.files, live: context.files.live.map((f) => pathOf(f).path), gone: context.files.gone.map((f) => pathOf(f).path) };
      return target.scan(path, { ...context, ...(file === undefined ? {} : { file }), ...(files ? { files } : {}) });
    },
    available: () => target.available(),
    ...(target.libraries ? { libraries: (ask?: { fresh?: boolean; holding?: string }) => target.libraries!(ask) } : {}),
    ...(target.explainScan ? { explainScan: (folder: string) => target.explainScan!(pathOf(folder).path) } : {}),
    ...(target.serverNotes ? { serverNotes: () => target.serverNotes!() } : {}),
    ...(target.locate ? { locate: byFile((path) => target.locate!(path)) } : {}),
    ...(target.refreshItem ? { refreshItem: byFile((path) => target.refreshItem!(path)) } : {}),
  };
}
