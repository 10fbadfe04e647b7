// The "plex-scanner" kind: Plex through its "Plex Media Scanner" executable, for servers whose HTTP API cannot be
// used. Every section holding the folder is scanned; a scanner that fails is a retry of that folder.
import { systemClock, type Clock } from '../../clock.js';
import { bool, optional, text } from '../../value-rules.js';
import { access } from '../../file-system.js';
import { silentLogger, type Logger } from '../../log/logger.js';
import { trimTrailingSeparator } from '../../paths/folder.js';
import type { PlexKeys } from './keys.js';
import { PlexApi } from './api.js';
import { scanSection, ScannerError, unescapeShellPath, type ScannerSettings } from './scanner.js';
import { waitForExternalScanners, type WaitOptions } from './scanner-processes.js';
import type { ScanContext, ScanOutcome } from '../../scan.js';
import { targetKind, type Capabilities, type Entry } from '../kind.js';
import type { PlexContext } from './context.js';
import { knownLocations, LibraryList } from '../library-list.js';
import { plexItems, plexLibrary, type PlexLibrary } from './target.js';

export interface SectionLocations {
  id: number | string;
  title: string;
  locations: string[];
}

export interface PlexScannerTargetOptions {
  name: string;
  settings: ScannerSettings;
  /** The server's sections and their folders (from the Plex API or database; the scanner's --list has no paths). */
  sections: () => Promise<SectionLocations[]>;
  /** Item refresh, when the server's API can be asked (a token). */
  api?: PlexApi;
  /** Kill one scanner run after this long. */
  timeoutMs?: number;
  /** Bounds for PLEX_WAIT_FOR_EXTERNAL_SCANNERS, plus injected sleep and process lookup. */
  wait?: WaitOptions;
  logger?: Logger;
  clock?: Clock;
}

const keys = () => ({
  DATABASE_PATH: optional(text()),
  // Each left out means the top-level PLEX_* / USE_* / DOCKER_NAME value: a second container on the same machine
  // only names what differs.
  SCANNER: optional(text()),
  SUPPORT_DIR: optional(text()),
  LD_LIBRARY_PATH: optional(text()),
  USER: optional(text()),
  USE_SUDO: optional(bool()),
  USE_DOCKER: optional(bool()),
  DOCKER_NAME: optional(text()),
});

/**
 * Scanner settings for the first Plex (PLEX_* keys), or for a TARGETS entry: its fields left out fall back
 * to the top-level PLEX_* / USE_* / DOCKER_NAME values.
 */
export function scannerSettingsFrom(config: PlexKeys, target?: Partial<Entry<ReturnType<typeof keys>>>): ScannerSettings {
  return {
    scanner: target?.SCANNER ?? config.PLEX_SCANNER,
    supportDir: target?.SUPPORT_DIR ?? config.PLEX_SUPPORT_DIR,
    ldLibraryPath: target?.LD_LIBRARY_PATH ?? config.PLEX_LD_LIBRARY_PATH,
    user: target?.USER ?? config.PLEX_USER,
    useSudo: target?.USE_SUDO ?? config.USE_SUDO,
    useDocker: target?.USE_DOCKER ?? config.USE_DOCKER,
    dockerName: target?.DOCKER_NAME ?? config.DOCKER_NAME,
    waitForExternalScanners: config.PLEX_WAIT_FOR_EXTERNAL_SCANNERS,
  };
}

export function plexScannerTarget(opts: PlexScannerTargetOptions): Capabilities {
  const log = opts.logger ?? silentLogger;
  const who = `plex-scanner '${opts.name}'`;
  const list = new LibraryList<PlexLibrary>(async () => {
    try {
      return (await opts.sections()).map((s) => plexLibrary({ ...s, id: String(s.id) }));
    } catch (err) {
      throw new Error(`${who} cannot read Plex's sections: ${(err as Error).message}`);
    }
  }, opts.clock ?? systemClock);

  return {
    kind: 'plex-scanner',
    // The scanner run on a section's own folder scans the whole section.
    wholeLibraryAtRoot: true,
    libraries: (ask) => list.get(ask),
    ...(opts.api ? plexItems(opts.api, list) : {}),

    async scan(folder: string, _context: ScanContext): Promise<ScanOutcome> {
      const path = trimTrailingSeparator(folder);
      let found: { holders: PlexLibrary[]; all: PlexLibrary[] };
      try {
        found = await list.holding(path);
      } catch (err) {
        return { status: 'retry', error: (err as Error).message, targetDown: true };
      }
      const matching = found.holders;
      if (matching.length === 0) {
        return { status: 'unmatched', detail: `'${path}' is in no section of ${who} (known locations: ${knownLocations(found.all)})` };
      }

      if (opts.settings.waitForExternalScanners) {
        const waited = await waitForExternalScanners(opts.settings, { logger: log, ...opts.wait });
        if (!waited.clear) {
          return {
            status: 'retry',
            error: `${who}: another Plex Media Scanner (pid ${waited.running.map((p) => p.pid).join(', ')}) was still running after ${Math.round(waited.waitedMs / 1000)} s; will try again later`,
            targetDown: false,
          };
        }
      }

      const done: string[] = [];
      for (const section of matching) {
        const label = `${section.id} (${section.name})`;
        log.info({ target: opts.name, section: section.id, path }, 'running Plex Media Scanner');
        try {
          await scanSection(opts.settings, section.id, path, {
            timeoutMs: opts.timeoutMs,
            logger: log,
            onLine: (line) => log.debug({ target: opts.name }, line),
          });
          done.push(label);
        } catch (err) {
          const cause = err instanceof ScannerError ? err.message : `could not run: ${(err as Error).message}`;
          const before = done.length ? ` (already scanned: ${done.join(', ')})` : '';
          // A scanner failure is about this run, not the server being away: retry the folder, keep the target up.
          return { status: 'retry', error: `${who} section ${label}: ${cause}${before}`, targetDown: false };
        }
      }
      return { status: 'scanned', detail: `sections ${done.join(', ')}`, sections: matching.map((s) => s.id) };
    },

    async available() {
      try {
        await list.get({ fresh: true });
      } catch (err) {
        return { ok: false, error: (err as Error).message };
      }
      // Inside a container or behind sudo the path may not be visible to us; only check what we can see.
      if (!opts.settings.useDocker && !opts.settings.useSudo) {
        const scanner = unescapeShellPath(opts.settings.scanner);
        try {
          await access(scanner);
        } catch {
          return { ok: false, error: `${who}: the scanner '${scanner}' does not exist: check PLEX_SCANNER` };
        }
      }
      return { ok: true };
    },
  };
}

export const plexScanner = targetKind({
  keys,
  requires: {},
  build: (entry, ctx: PlexContext) => {
    // With a TOKEN the server's API tells its sections (and can refresh items); without one, its own database does.
    const url = entry.URL || ctx.plex.PLEX_LOCAL_URL;
    const api = entry.TOKEN ? new PlexApi({ url, token: entry.TOKEN, fetch: ctx.fetch, clock: ctx.clock, urlKey: ctx.urlKey, tokenKey: ctx.tokenKey, logger: ctx.logger }) : undefined;
    return plexScannerTarget({
      name: entry.NAME,
      settings: scannerSettingsFrom(ctx.plex, entry),
      sections: api ? () => api.sections() : databaseSections(entry.DATABASE_PATH ?? ctx.plex.PLEX_DATABASE_PATH, ctx),
      api,
      logger: ctx.logger,
      clock: ctx.clock,
    });
  },
});

function databaseSections(databasePath: string, ctx: PlexContext): () => Promise<SectionLocations[]> {
  return async () => {
    if (!ctx.scannerSections) {
      throw new Error(`cannot learn Plex's section folders: set PLEX_TOKEN, or make PLEX_DATABASE_PATH ('${databasePath}') readable`);
    }
    return ctx.scannerSections(databasePath);
  };
}
