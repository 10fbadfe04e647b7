// Benchmark 7 — deliver, then follow, with the DEFAULT settings (file checks on, scans followed and confirmed):
// a queued backlog against three fake Plex behaviours. (a) Scans end before anyone can poll (an empty
// /activities): folders delivered per second, and how long each follow-up took after its scan. (b) Plex's own
// pace, one scan at a time for 40 ms each, visible in /activities: everything delivered AND confirmed against the
// floor N × 40 ms, for N = 200 and 2,000, and the /activities requests per poll interval. (c) A 60 s library scan
// running while 100 folders are due: how many refreshes Plex is handed while it runs (at most
// PLEX_MAX_OUTSTANDING; the rest wait here), and follow-ups after it ended.
// The fake Plex has its notification socket, as a real Plex does (the default PLEX_NOTIFICATIONS); with
// BENCH_FOLLOW=poll it refuses the upgrade and the follower polls /activities (the fallback, where the
// PLEX_MAX_OUTSTANDING cap lets about that many scans out per PLEX_FOLLOW_INTERVAL).
import { DEFAULT_MAX_OUTSTANDING } from '../src/processor/server-backlog.js';
import Database from '../src/sqlite/binding.js';
import { join } from 'node:path';
import { FakePlex } from '../test/fakes/plex.js';
import { attachPlexNotifications } from '../test/fakes/plex-notifications.js';
import { cleanup, createMediaFiles, log, prefilledFile, prefillQueue, sleep, standalone, startServer, tempDir, writeConfig, type Figure } from './support.js';

const INTERVAL_MS = 1_000; // PLEX_FOLLOW_INTERVAL's default
const POLL = process.env.BENCH_FOLLOW === 'poll';
const HOW = POLL ? 'polling /activities' : "Plex's socket";

/** The fake Plex as a real one: with its notification socket (or refusing it, BENCH_FOLLOW=poll). */
async function fakePlex(): Promise<FakePlex> {
  const plex = await new FakePlex({ sections }).start();
  const socket = attachPlexNotifications(plex);
  if (POLL) socket.refuseUpgrades = 404;
  return plex;
}
const sections = [{ key: '2', title: 'TV', type: 'show', locations: ['/data/media/tv'] }];
const BACKLOG = Number(process.env.BENCH_FOLLOW_BACKLOG ?? 2_000);
const LIBRARY_SCAN_MS = Number(process.env.BENCH_LIBRARY_SCAN_MS ?? 60_000);
/** PLEX_MAX_OUTSTANDING's default: the scans Plex may hold at once. */
const MAX_OUTSTANDING = DEFAULT_MAX_OUTSTANDING;

interface Run {
  /** Plex's arrival time of each folder's (first) refresh. */
  refreshedAt: Map<string, number>;
  /** history.finished_at per folder, and its outcome. */
  finished: Map<string, { at: number; outcome: string }>;
  activities: number[];
  readyAt: number;
}

/** Starts the server on a prefilled backlog of `n` folders (all due), waits until history holds all of them. */
async function backlog(plex: FakePlex, n: number, before?: () => void): Promise<Run> {
  const dir = tempDir('follow');
  try {
    const queuefile = join(dir, 'queue.db');
    prefillQueue(queuefile, n, { delayMs: 0 });
    const files = Array.from({ length: n }, (_, i) => prefilledFile(i));
    createMediaFiles(dir, files);
    for (const f of files) plex.onDisk.add(f);
    const config = writeConfig(dir, { SERVER_SCAN_DELAY: 0, PLEX_LOCAL_URL: plex.url, PLEX_TOKEN: plex.token });
    plex.requests.length = 0;
    before?.();
    const server = await startServer({ dir, config, queuefile, console: 'file' });
    const readyAt = Date.now();
    const deadline = Date.now() + 300_000;
    const db = new Database(queuefile, { readonly: true });
    try {
      for (;;) {
        const left = (db.prepare('SELECT COUNT(*) AS n FROM folders').get() as { n: number }).n;
        if (left === 0) break;
        if (Date.now() > deadline) throw new Error(`${left} of ${n} folders still queued after 300 s:\n${server.tail()}`);
        await sleep(50);
      }
      await server.stop();
      const rows = db.prepare('SELECT folder, finished_at, outcome FROM history').all() as { folder: string; finished_at: number; outcome: string }[];
      const refreshedAt = new Map<string, number>();
      for (const r of plex.requests) if (r.path.endsWith('/refresh') && !refreshedAt.has(r.query.path)) refreshedAt.set(r.query.path, r.at);
      return {
        refreshedAt,
        finished: new Map(rows.map((r) => [r.folder, { at: r.finished_at, outcome: r.outcome }])),
        activities: plex.requests.filter((r) => r.path === '/activities').map((r) => r.at),
        readyAt,
      };
    } finally {
      db.close();
    }
  } finally {
    cleanup(dir);
  }
}

const confirmedShare = (run: Run) => [...run.finished.values()].filter((f) => f.outcome === 'confirmed').length;
const minGap = (times: number[]) => Math.min(...times.slice(1).map((t, i) => t - times[i]));
const p99 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * 0.99))];

/** What the fake Plex takes from a plain client with 8 refreshes in flight: the delivery baseline. */
async function plainClient(plex: FakePlex, n: number): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next < n) {
        const u = new URL(`${plex.url}/library/sections/2/refresh`);
        u.searchParams.set('path', `/data/media/tv/Baseline ${next++}/Season 01`);
        const res = await fetch(u, { method: 'PUT', headers: { 'X-Plex-Token': plex.token } });
        await res.arrayBuffer();
      }
    }),
  );
  return n / ((performance.now() - started) / 1000);
}

async function instant(): Promise<Figure[]> {
  const plex = await fakePlex();
  try {
    plex.hideActivities = true;
    plex.scanPolls = 0;
    const base = await plainClient(plex, 2_000);
    plex.requests.length = 0;
    const run = await backlog(plex, BACKLOG);
    const times = [...run.refreshedAt.values()].sort((a, b) => a - b);
    const rate = (times.length - 1) / ((times[times.length - 1] - times[0]) / 1000);
    // The scan ends at the refresh here (Plex was done before anyone could poll): the lag is follow-up time.
    const lags = [...run.finished.entries()].map(([folder, f]) => f.at - (run.refreshedAt.get(folder) ?? f.at));
    const worst = Math.max(...lags);
    log(`follow (a): ${times.length} delivered at ${Math.round(rate)}/s (plain client ${Math.round(base)}/s); follow-up lag p99 ${p99(lags)} ms, max ${worst} ms; ${confirmedShare(run)} confirmed`);
    return [
      {
        id: '7a',
        name: `follow (${HOW}), Plex done before the first poll (empty /activities), ${BACKLOG} queued, defaults: folders delivered/s (${confirmedShare(run)} of ${BACKLOG} confirmed)`,
        value: rate,
        unit: 'folders/s',
        baseline: { label: 'plain client, 8 in flight, same Plex', value: base },
        ratio: rate / base,
        target: '>= 500/s',
        pass: rate >= 500 && confirmedShare(run) === BACKLOG,
        note: rate >= 500 ? undefined : 'below 500/s',
      },
      {
        id: '7a',
        name: `follow, same run: slowest follow-up after its scan ended (p99 ${p99(lags)} ms)`,
        value: worst,
        unit: 'ms',
        baseline: { label: '2 × PLEX_FOLLOW_INTERVAL', value: 2 * INTERVAL_MS },
        ratio: worst / (2 * INTERVAL_MS),
        target: `<= ${2 * INTERVAL_MS} ms`,
        pass: worst <= 2 * INTERVAL_MS,
        note: worst <= 2 * INTERVAL_MS ? undefined : 'a follow-up took longer than two intervals',
      },
    ];
  } finally {
    await plex.stop();
  }
}

async function plexPace(n: number): Promise<Figure[]> {
  const plex = await fakePlex();
  try {
    plex.fifoMs = 40;
    const run = await backlog(plex, n);
    const first = Math.min(...run.refreshedAt.values());
    const last = Math.max(...[...run.finished.values()].map((f) => f.at));
    const took = last - first;
    // The fake's timers run late on a loaded machine: its floor is the time its FIFO really took, at least N × 40 ms.
    const spent = (plex.fifoSpan.last ?? 0) - (plex.fifoSpan.first ?? 0);
    const floor = Math.max(n * 40, spent);
    const polls = run.activities.filter((t) => t >= first && t <= last).length;
    const allowed = Math.floor(took / INTERVAL_MS) + 1;
    log(`follow (b) N=${n}: all delivered and followed in ${took} ms (N × 40 = ${n * 40} ms, the fake's FIFO took ${spent} ms); ${confirmedShare(run)} confirmed; ${polls} /activities in that time (at most ${allowed} allowed), smallest gap ${minGap(run.activities)} ms`);
    return [
      {
        id: '7b',
        name: `follow (${HOW}), Plex scanning one folder at a time for 40 ms, N = ${n}, defaults: first refresh to last outcome (${confirmedShare(run)} of ${n} confirmed)`,
        value: took,
        unit: 'ms',
        baseline: { label: `Plex's own floor: N × 40 ms, or the fake's FIFO time if longer (${spent} ms)`, value: floor },
        ratio: took / floor,
        target: '<= 1.25 × floor',
        pass: took <= 1.25 * floor && confirmedShare(run) === n,
        note: took <= 1.25 * floor ? (confirmedShare(run) === n ? undefined : 'not all confirmed') : 'slower than 1.25 × the floor',
      },
      {
        id: '7b',
        name: `follow, same run: /activities requests while ${n} folders were followed (smallest gap at Plex ${minGap(run.activities)} ms)`,
        value: polls,
        unit: 'requests',
        baseline: { label: `one per PLEX_FOLLOW_INTERVAL over ${(took / 1000).toFixed(1)} s`, value: allowed },
        ratio: polls / allowed,
        target: '<= one per interval',
        pass: polls <= allowed,
        note: polls <= allowed ? undefined : 'more than one poll per interval',
      },
    ];
  } finally {
    await plex.stop();
  }
}

async function libraryScan(): Promise<Figure[]> {
  const plex = await fakePlex();
  try {
    plex.fifoMs = 0;
    let scanStarted = 0;
    const run = await backlog(plex, 100, () => {
      plex.startLibraryScan('2', LIBRARY_SCAN_MS);
      scanStarted = Date.now();
    });
    const refreshes = [...run.refreshedAt.values()];
    // From the first refresh: the server's own start-up is measured by the start-up benchmark.
    const delivered = Math.max(...refreshes) - Math.min(...refreshes);
    const scanEnded = scanStarted + LIBRARY_SCAN_MS;
    // What Plex was handed while its library scan ran: with PLEX_MAX_OUTSTANDING the rest wait here, not in
    // Plex's own queue behind the library scan, and go once it ends (their scans could not run before anyway).
    const duringScan = refreshes.filter((at) => at < scanEnded).length;
    const lastOutcome = Math.max(...[...run.finished.values()].map((f) => f.at));
    const after = lastOutcome - scanEnded;
    log(
      `follow (c): 100 delivered within ${delivered} ms (${Math.max(...refreshes) - run.readyAt} ms after the server printed its URL), ${duringScan} of them during the ${LIBRARY_SCAN_MS / 1000} s library scan; ` +
        `last outcome ${after} ms after it ended; ${confirmedShare(run)} confirmed`,
    );
    return [
      {
        id: '7c',
        name: `follow (${HOW}), 100 folders due during a ${LIBRARY_SCAN_MS / 1000} s library scan, defaults: refreshes handed to Plex while it ran (first to last refresh ${delivered.toLocaleString('en-US')} ms; the rest after it)`,
        value: duringScan,
        unit: 'scans',
        baseline: { label: 'no cap: all 100 at once', value: 100 },
        ratio: duringScan / 100,
        target: `<= ${MAX_OUTSTANDING} (PLEX_MAX_OUTSTANDING)`,
        pass: duringScan <= MAX_OUTSTANDING,
        note: duringScan <= MAX_OUTSTANDING ? undefined : 'flooded Plex during its library scan',
      },
      {
        id: '7c',
        name: `follow, same run: last follow-up after the library scan ended (${confirmedShare(run)} of 100 confirmed; includes Plex's 100 partial scans queued behind it)`,
        value: after,
        unit: 'ms',
        baseline: { label: 'PLEX_FOLLOW_INTERVAL', value: INTERVAL_MS },
        ratio: after / INTERVAL_MS,
        target: `<= ${INTERVAL_MS} ms + the batch's lookups`,
        pass: after <= INTERVAL_MS * 1.5 && confirmedShare(run) === 100,
        note: after <= INTERVAL_MS * 1.5 ? undefined : 'follow-ups lagged the end of the scan',
      },
    ];
  } finally {
    await plex.stop();
  }
}

export async function run(): Promise<Figure[]> {
  const figures: Figure[] = [];
  figures.push(...(await instant()));
  figures.push(...(await plexPace(200)));
  figures.push(...(await plexPace(2_000)));
  figures.push(...(await libraryScan()));
  return figures;
}

await standalone(import.meta.url, run);
