// `scanrelay build-caches`: walks every watched drive once to fill the Drive path cache, with a progress bar and
// a summary, and starts change cursors for drives that have none.
import { Presets, SingleBar } from 'cli-progress';
import { Command } from 'commander';
import type Database from 'better-sqlite3';
import { systemClock, type Clock } from '../clock.js';
import { DriveApi } from '../drive/api.js';
import { DriveCache } from '../drive/cache.js';
import { DriveCursors } from '../drive/cursors.js';
import { findWatchedDrives } from '../drive/drives.js';
import { createTokenSource } from '../drive/sign-in.js';
import { walkDrive } from '../drive/walk.js';
import type { Logger } from '../log/logger.js';
import { keepStart } from '../text-cut.js';
import type { DriveCommandConfig } from './authorize.js';

export interface BuildCachesDeps {
  loadConfig: () => DriveCommandConfig | Promise<DriveCommandConfig>;
  /** The service's SQLite file (the cache lives in its drive_ tables). */
  openDatabase: () => Database.Database;
  logger: Logger;
  output?: NodeJS.WritableStream;
  fetch?: typeof fetch;
  clock?: Clock;
  exit?: (code: number) => void;
}

export function buildCachesCommand(deps: BuildCachesDeps): Command {
  return new Command('build-caches')
    .description('walk the watched Google Drives once and fill the path cache, so the monitor starts without fetching folders')
    .addHelpText(
      'after',
      `
Walks My Drive and, with GOOGLE.TEAMDRIVE, each shared drive in GOOGLE.TEAMDRIVES, using the sign-in the
monitor uses (token file, service account or rclone remote). Safe to run while scanrelay is running and to
run again. Drives without a change cursor get one taken before the walk, so nothing changed during it is missed.`,
    )
    .action(async () => {
      const exit = deps.exit ?? ((code: number) => void (process.exitCode = code));
      exit(await runBuildCaches(deps));
    });
}

async function runBuildCaches(deps: BuildCachesDeps): Promise<number> {
  const out = deps.output ?? process.stdout;
  const clock = deps.clock ?? systemClock;
  const { logger } = deps;
  let db: Database.Database | undefined;
  try {
    const cfg = await deps.loadConfig();
    const g = cfg.google;
    if (!g.ENABLED) logger.warn('GOOGLE.ENABLED is false: the cache is built, but the monitor will not run until it is true');
    db = deps.openDatabase();
    const tokens = createTokenSource(g, cfg.configDir, { clock, logger, fetch: deps.fetch });
    const api = new DriveApi({ apiUrl: g.API_URL, tokens, logger, fetch: deps.fetch });
    const cache = new DriveCache(db, { clock, logger, showCacheLogs: false });
    const cursors = new DriveCursors(db);
    const drives = await findWatchedDrives(api, cache, g, logger, tokens.describe());
    const lines: string[] = [];
    let total = 0;
    for (const d of drives) {
      const startToken = cursors.get(d.key) ? undefined : await api.getStartPageToken(d.driveId);
      const bar = new SingleBar(
        { format: `${keepStart(d.name, 20).padEnd(20)} |{bar}| {value} items`, stream: out as NodeJS.WritableStream & { isTTY?: boolean }, hideCursor: true },
        Presets.shades_classic,
      );
      bar.start(1000, 0);
      const s = await walkDrive(
        api,
        cache,
        d,
        (listed, more) => {
          bar.setTotal(more ? listed + 1000 : Math.max(listed, 1));
          bar.update(listed);
        },
        () => clock.now(),
      );
      bar.stop();
      if (startToken) cursors.set(d.key, d.name, startToken, clock.now());
      total += s.items;
      lines.push(
        `${d.name}: ${s.items} items (${s.folders} folders) cached` +
          `${s.fetched ? `, ${s.fetched} parent(s) fetched` : ''}` +
          `${s.unresolved ? `, ${s.unresolved} without a path (ancestor not visible)` : ''}` +
          ` in ${(s.ms / 1000).toFixed(1)} s`,
      );
    }
    out.write(`\n${lines.join('\n')}\nDone: ${total} items from ${drives.length} drive(s); the cache now holds ${cache.count()} items.\n`);
    return 0;
  } catch (err) {
    logger.error(`build-caches failed: ${(err as Error).message}`);
    return 1;
  } finally {
    db?.close();
  }
}
