// Plex target that scans through the "Plex Media Scanner" executable, for servers whose HTTP API
// cannot be used: every section holding the folder is scanned, and a scanner that fails is a retry.
import { access } from 'node:fs/promises';
import type { Config, TargetConfig } from '../config/schema.js';
import { silentLogger, type Logger } from '../log.js';
import { isInside, trimTrailingSeparator } from '../paths/folder.js';
import { scanSection, ScannerError, unescapeShellPath, type ScannerSettings } from '../plex/scanner.js';
import { waitForExternalScanners, type WaitOptions } from '../plex/scanner-processes.js';
import type { ScanContext, ScanOutcome, Target } from '../scan.js';

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
  pauseMs?: number;
  concurrency?: number;
  /** Kill one scanner run after this long. */
  timeoutMs?: number;
  /** Bounds for PLEX_WAIT_FOR_EXTERNAL_SCANNERS, plus injected sleep and process lookup. */
  wait?: WaitOptions;
  logger?: Logger;
}

/**
 * Scanner settings for the first Plex (PLEX_* keys), or for a TARGETS entry: its fields left out fall back
 * to the top-level PLEX_* / USE_* / DOCKER_NAME values.
 */
export function scannerSettingsFrom(config: Config, target?: TargetConfig): ScannerSettings {
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

export function plexScannerTarget(opts: PlexScannerTargetOptions): Target {
  const log = opts.logger ?? silentLogger;
  const who = `plex-scanner '${opts.name}'`;

  async function sections(): Promise<SectionLocations[]> {
    try {
      return await opts.sections();
    } catch (err) {
      throw new Error(`${who} cannot read Plex's sections: ${(err as Error).message}`);
    }
  }

  return {
    name: opts.name,
    kind: 'plex-scanner',
    pauseMs: opts.pauseMs ?? 0,
    concurrency: opts.concurrency,

    async sectionsOf(folder: string): Promise<string[]> {
      const path = trimTrailingSeparator(folder);
      return (await sections()).filter((s) => s.locations.some((loc) => isInside(path, loc))).map((s) => String(s.id));
    },

    async scan(folder: string, _context: ScanContext): Promise<ScanOutcome> {
      const path = trimTrailingSeparator(folder);
      let all: SectionLocations[];
      try {
        all = await sections();
      } catch (err) {
        return { status: 'retry', error: (err as Error).message, targetDown: true };
      }
      const matching = all.filter((s) => s.locations.some((loc) => isInside(path, loc)));
      if (matching.length === 0) {
        const known = all.flatMap((s) => s.locations);
        return {
          status: 'unmatched',
          detail: `'${path}' is in no section of ${who} (known locations: ${known.length ? known.join(', ') : 'none'})`,
        };
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
        const label = `${section.id} (${section.title})`;
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
      return { status: 'scanned', detail: `sections ${done.join(', ')}`, sections: matching.map((s) => String(s.id)) };
    },

    async available() {
      try {
        await sections();
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
