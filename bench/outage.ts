// Benchmark 18 — after an outage: Plex down while BENCH_OUTAGE_FOLDERS (default 200) season folders of ten
// imported episodes each wait here, then back, against the fake Plex with its notification socket and the default
// settings. Three Plex behaviours: each partial scan ends at once (a folder it mostly knows), each takes 40 ms (one
// at a time), and scans end at once while their "processed" timeline entries come seconds later (as a real Plex's
// agents send them). Figures: from Plex's first refresh after it came back to its last, against 2 × Plex's own floor
// (its scans' time, one after another) + 5 s; every folder confirmed; no folder refreshed twice. BENCH_CLI: another
// build of the CLI to measure, and BENCH_SOURCE the checkout it was built from (the same run against an earlier
// scanrelay). BENCH_OUTAGE_ONLY=0,2 runs some of the behaviours; BENCH_OUTAGE_KEEP=1 keeps each run's folder (log,
// queue) and BENCH_OUTAGE_LOGLEVEL sets the server's log level.
import { join } from 'node:path';
import Database from '../src/sqlite/binding.js';
import { FakePlex } from '../test/fakes/plex.js';
import { attachPlexNotifications } from '../test/fakes/plex-notifications.js';
import { ManualClock } from '../src/clock.js';
import type { Queue } from '../src/queue/store.js';
import { cleanup, createMediaFiles, log, prefilledFile, sleep, standalone, startServer, tempDir, writeConfig, type Figure } from './support.js';

const FOLDERS = Number(process.env.BENCH_OUTAGE_FOLDERS ?? 200);
const FILES = 10;
/** How long Plex stays down after the relay starts: it has tried, and marked Plex down. */
const DOWN_MS = 3_000;
const sections = [{ key: '2', title: 'TV', type: 'show', locations: ['/data/media/tv'] }];

/**
 * The folders queued while Plex was down, written by the queue of the checkout the CLI was built from
 * (BENCH_SOURCE, with BENCH_CLI), so an earlier scanrelay reads a queue file of its own schema.
 */
async function prefill(file: string): Promise<void> {
  const source = process.env.BENCH_SOURCE ? join(process.env.BENCH_SOURCE, 'src/queue/store.ts') : '../src/queue/store.js';
  const { Queue: Store } = (await import(source)) as { Queue: typeof Queue };
  const queue = new Store(file, new ManualClock(Date.now()), { delayMs: 0 });
  queue.enqueueMany(Array.from({ length: FOLDERS }, (_, i) => ({ folder: `/data/media/tv/Show ${i}/Season 01`, priority: 0, source: 'sonarr', event: 'Download', fileHint: prefilledFile(i), deleted: false })));
  queue.db.pragma('wal_checkpoint(TRUNCATE)');
  queue.close();
}

interface Behaviour {
  label: string;
  /** Each scan's time in Plex's FIFO (one at a time). */
  scanMs: number;
  /** The "processed" entries of a scan's items come this long after its end. */
  processedAfterMs: number;
}

const ALL_BEHAVIOURS: Behaviour[] = [
  { label: 'scans end at once', scanMs: 0, processedAfterMs: 0 },
  { label: '40 ms scans', scanMs: 40, processedAfterMs: 0 },
  { label: 'scans end at once, "processed" entries 3 s later', scanMs: 0, processedAfterMs: 3_000 },
];
/** BENCH_OUTAGE_ONLY=0,2: some of them. */
const BEHAVIOURS = process.env.BENCH_OUTAGE_ONLY ? process.env.BENCH_OUTAGE_ONLY.split(',').map((i) => ALL_BEHAVIOURS[Number(i)]) : ALL_BEHAVIOURS;

interface Result {
  /** Plex's first refresh after it came back to its last (ms). */
  reachMs: number;
  /** The same first refresh to the last folder's outcome in history (ms). */
  outcomeMs: number;
  /** Plex's own floor: the time its scans take, one at a time (ms). */
  floorMs: number;
  confirmed: number;
  /** Outcomes other than confirmed, by name. */
  others: string;
  refreshedTwice: number;
}

async function afterOutage(b: Behaviour): Promise<Result> {
  const plex = await new FakePlex({ sections }).start();
  const socket = attachPlexNotifications(plex);
  const dir = tempDir('outage');
  try {
    plex.fifoMs = b.scanMs;
    socket.processedAfterMs = b.processedAfterMs;
    const queuefile = join(dir, 'queue.db');
    await prefill(queuefile);
    const files = Array.from({ length: FOLDERS }, (_, i) => Array.from({ length: FILES }, (_, e) => `/data/media/tv/Show ${i}/Season 01/e${String(e + 1).padStart(2, '0')}.mkv`)).flat();
    createMediaFiles(dir, files);
    for (const f of files) plex.onDisk.add(f);
    const config = writeConfig(dir, { SERVER_SCAN_DELAY: 0, PLEX_LOCAL_URL: plex.url, PLEX_TOKEN: plex.token });
    // Down: every request's connection reset, the socket refused.
    plex.failure = 'reset';
    socket.refuseUpgrades = 503;
    const server = await startServer({ dir, config, queuefile, console: 'file', loglevel: process.env.BENCH_OUTAGE_LOGLEVEL, cli: process.env.BENCH_CLI });
    const db = new Database(queuefile, { readonly: true });
    try {
      await sleep(DOWN_MS);
      plex.requests.length = 0;
      plex.failure = undefined;
      socket.refuseUpgrades = undefined;
      const deadline = Date.now() + 300_000;
      for (;;) {
        const left = (db.prepare('SELECT COUNT(*) AS n FROM folders').get() as { n: number }).n;
        if (left === 0) break;
        if (Date.now() > deadline) throw new Error(`${left} of ${FOLDERS} folders still queued 300 s after Plex came back:\n${server.tail()}`);
        await sleep(50);
      }
      await server.stop();
      const refreshes = plex.requests.filter((r) => r.path.endsWith('/refresh'));
      const perFolder = new Map<string, number>();
      for (const r of refreshes) perFolder.set(r.query.path, (perFolder.get(r.query.path) ?? 0) + 1);
      const history = db.prepare('SELECT finished_at, outcome FROM history').all() as { finished_at: number; outcome: string }[];
      const first = refreshes[0].at;
      return {
        reachMs: refreshes[refreshes.length - 1].at - first,
        outcomeMs: Math.max(...history.map((h) => h.finished_at)) - first,
        floorMs: FOLDERS * b.scanMs,
        confirmed: history.filter((h) => h.outcome === 'confirmed').length,
        others: [...new Set(history.map((h) => h.outcome))].filter((o) => o !== 'confirmed').map((o) => `${history.filter((h) => h.outcome === o).length} ${o}`).join(', '),
        refreshedTwice: [...perFolder.values()].filter((n) => n > 1).length,
      };
    } finally {
      db.close();
    }
  } finally {
    await socket.close();
    await plex.stop();
    if (process.env.BENCH_OUTAGE_KEEP) log(`kept ${dir}`);
    else cleanup(dir);
  }
}

export async function run(): Promise<Figure[]> {
  const figures: Figure[] = [];
  for (const b of BEHAVIOURS) {
    const r = await afterOutage(b);
    const limit = 2 * r.floorMs + 5_000;
    const ok = r.reachMs <= limit && r.confirmed === FOLDERS && r.refreshedTwice === 0;
    log(
      `outage, ${b.label}: ${FOLDERS} folders of ${FILES} files reached Plex in ${r.reachMs} ms (Plex's floor ${r.floorMs} ms), last outcome at ${r.outcomeMs} ms; ` +
        `${r.confirmed} confirmed${r.others ? ` (${r.others})` : ''}, ${r.refreshedTwice} refreshed twice`,
    );
    figures.push({
      id: '18',
      name: `after an outage, ${FOLDERS} ten-file season folders, ${b.label}: first refresh to last (last outcome ${(r.outcomeMs / 1000).toFixed(1)} s; ${r.confirmed} of ${FOLDERS} confirmed${r.others ? `, ${r.others}` : ''}, ${r.refreshedTwice} refreshed twice)`,
      value: r.reachMs / 1000,
      unit: 's',
      baseline: { label: "2 × Plex's own floor + 5 s", value: limit / 1000 },
      ratio: r.reachMs / limit,
      target: `≤ 2 × floor + 5 s, all confirmed, none twice`,
      pass: ok,
      note: ok ? undefined : r.reachMs > limit ? 'slower than 2 × floor + 5 s' : 'not all confirmed once',
    });
  }
  return figures;
}

await standalone(import.meta.url, run);
