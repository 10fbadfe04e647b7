// Benchmark: 200,000 Drive changes over a 50,000-folder tree, against the fake Drive API on 127.0.0.1, starting
// from an empty cache. Prints changes/s and the files.get count, and checks each unknown folder is fetched once.
import Database from '../src/sqlite/binding.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { systemClock } from '../src/clock.js';
import { DriveMonitor } from '../src/drive/monitor.js';
import { withGoogleDefaults } from '../src/drive/settings.js';
import type { AccessTokenSource } from '../src/drive/token-store.js';
import { silentLogger } from '../src/log/logger.js';
import { FakeDrive } from '../test/fakes/drive.js';

const FOLDERS = 50_000;
const CHANGES = 200_000;

/** Deterministic, so every run walks the same tree. */
function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

export async function run(): Promise<Record<string, number | string>> {
  const drive = await new FakeDrive().start();
  const dir = mkdtempSync(join(tmpdir(), 'scanrelay-bench-drive-'));
  const db = new Database(join(dir, 'scanrelay.db'));
  db.pragma('journal_mode = WAL');
  try {
    // My Drive/Media/<library>/<show>/<season>: 1 + 20 + 400 + the rest as seasons.
    const media = drive.addFolder('Media', drive.rootId, { silent: true });
    let folders = 1;
    const shows: string[] = [];
    for (let l = 0; l < 20; l++) {
      const lib = drive.addFolder(`Library ${l}`, media, { silent: true });
      folders++;
      for (let s = 0; s < 20; s++, folders++) shows.push(drive.addFolder(`Show ${l}-${s}`, lib, { silent: true }));
    }
    const leaves: string[] = [];
    for (let i = 0; folders < FOLDERS; i++, folders++) leaves.push(drive.addFolder(`Season ${i}`, shows[i % shows.length], { silent: true }));

    const settings = withGoogleDefaults({
      ENABLED: true,
      API_URL: drive.baseUrl,
      ALLOWED: { FILE_PATHS: ['My Drive/Media/'], FILE_EXTENSIONS: true, FILE_EXTENSIONS_LIST: ['mkv'], MIME_TYPES: false, MIME_TYPES_LIST: [] },
    });
    const tokens: AccessTokenSource = { getAccessToken: async () => 'bench-token', invalidate: () => undefined, describe: () => 'bench' };
    let enqueued = 0;
    const monitor = new DriveMonitor({
      db,
      settings,
      configDir: dir,
      mapPath: (p) => `/mnt/unionfs/${p.slice('My Drive/'.length)}`,
      inPlex: () => false,
      enqueue: () => void enqueued++,
      clock: systemClock,
      logger: silentLogger,
      tokens,
    });
    await monitor.pollOnce(); // cursor at "now", My Drive root known
    drive.fileGets.clear();

    // Every season gets a file, then the rest land at random: all 50,000 folders are unknown parents.
    const rand = prng(42);
    for (let i = 0; i < CHANGES; i++) {
      const leaf = i < leaves.length ? leaves[i] : leaves[Math.floor(rand() * leaves.length)];
      drive.addFile(`Episode ${i}.mkv`, leaf, { size: 1000 + i });
    }

    const started = performance.now();
    const summary = await monitor.pollOnce();
    const seconds = (performance.now() - started) / 1000;
    if (summary.errors.length) throw new Error(`poll failed: ${summary.errors[0].error}`);

    const fetches = drive.totalFileGets;
    const maxPerFolder = Math.max(...drive.fileGets.values());
    const result = {
      folders,
      changes: summary.counts.changes,
      pages: summary.counts.pages,
      enqueued,
      seconds: Number(seconds.toFixed(2)),
      changesPerSecond: Math.round(summary.counts.changes / seconds),
      folderFetches: fetches,
      distinctFoldersFetched: drive.fileGets.size,
      maxFetchesPerFolder: maxPerFolder,
      eachUnknownFolderFetchedOnce: fetches === folders && maxPerFolder === 1 ? 'yes' : 'NO',
    };
    await monitor.stop();
    return result;
  } finally {
    db.close();
    await drive.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const r = await run();
  console.log(
    `drive-cache: ${r.changes} changes over ${r.folders} folders in ${r.seconds} s = ${r.changesPerSecond} changes/s; ` +
      `${r.folderFetches} files.get (${r.distinctFoldersFetched} distinct, max ${r.maxFetchesPerFolder} per folder); ` +
      `each unknown folder fetched once: ${r.eachUnknownFolderFetchedOnce}; ${r.enqueued} scan requests`,
  );
  console.log(JSON.stringify(r));
  if (r.eachUnknownFolderFetchedOnce !== 'yes') process.exitCode = 1;
}
