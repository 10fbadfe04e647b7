// Benchmark 19 — the due line under a steady load: BENCH_BUSY_SECONDS (default 60) of Sonarr webhooks at about
// 100/s over 600 season folders, 50 of which receive one every second (a season imported file by file) while the
// other 550 share the rest in turn, against the fake Plex scanning one folder at a time (10 ms each), through the
// bundle with SERVER_SCAN_DELAY 5 and SERVER_SCAN_MAX_WAIT 25. Run with Plex's notification socket on, then with
// it silent (open, but nothing comes through and no ping is answered: a half-open connection). Figures: the longest
// any folder waited from the first request of a wait to its refresh (target: SERVER_SCAN_DELAY + 30 s); the
// longest Plex sat idle while folders were due here (target: 2 s); refreshes a second during the load (silent
// against on: at least 60 %); the queue empty after the load's end (target: 60 s). BENCH_CLI: another build of the
// CLI to measure (the same run against an earlier scanrelay). BENCH_BUSY_ONLY=silent runs one of the two;
// BENCH_BUSY_KEEP=1 keeps each run's folder (log, queue).
import { Agent } from 'node:http';
import { join } from 'node:path';
import Database from '../src/sqlite/binding.js';
import { FakePlex } from '../test/fakes/plex.js';
import { attachPlexNotifications } from '../test/fakes/plex-notifications.js';
import { cleanup, createMediaFiles, log, postJson, SECRET, sleep, sonarrDownload, standalone, startServer, tempDir, writeConfig, type Figure } from './support.js';

const SECONDS = Number(process.env.BENCH_BUSY_SECONDS ?? 60);
const BUSY = 50;
const OTHERS = 550;
const RATE = 100;
const DELAY_S = 5;
const MAX_WAIT_S = 25;
const PLEX_SCAN_MS = 10;
const DRAIN_LIMIT_MS = 180_000;
const sections = [{ key: '2', title: 'TV', type: 'show', locations: ['/data/media/tv'] }];

const showOf = (f: number) => (f < BUSY ? `Busy ${f}` : `Show ${f - BUSY}`);
const folderOf = (f: number) => `/data/media/tv/${showOf(f)}/Season 01`;
const fileOf = (f: number, e: number) => `${folderOf(f)}/${showOf(f)} - S01E${String(e).padStart(2, '0')} - Episode WEBDL-1080p.mkv`;

interface Run {
  /** The longest from a wait's first request to the refresh that ended it (ms), and its folder. */
  longestWaitMs: number;
  longestWaitFolder: string;
  /** Waits that had no refresh at all by the end. */
  unrefreshed: number;
  /** The longest span Plex had nothing to scan while folders were due here (ms, sampled every 100 ms). */
  idleWhileDueMs: number;
  /** Refreshes a second while the load lasted. */
  pace: number;
  /** From the load's end until the relay's queue was empty (ms), or undefined past the limit. */
  drainMs?: number;
  webhooks: number;
  refreshes: number;
}

async function busy(socketMode: 'on' | 'silent'): Promise<Run> {
  const plex = await new FakePlex({ sections }).start();
  const socket = attachPlexNotifications(plex);
  const dir = tempDir('busy');
  const agent = new Agent({ keepAlive: true, maxSockets: 16 });
  try {
    plex.fifoMs = PLEX_SCAN_MS;
    if (socketMode === 'silent') socket.silence('silent');
    // Each webhook names the folder's next episode: the files, made before the load (the relay checks they exist).
    const plan: number[] = [];
    for (let s = 0, other = 0; s < SECONDS; s++) {
      for (let k = 0; k < RATE; k++) plan.push(k % 2 === 0 && k / 2 < BUSY ? k / 2 : BUSY + (other++ % OTHERS));
    }
    const episodes = new Array<number>(BUSY + OTHERS).fill(0);
    const files = plan.map((f) => fileOf(f, ++episodes[f]));
    createMediaFiles(dir, files);
    const queuefile = join(dir, 'queue.db');
    const config = writeConfig(dir, { SERVER_SCAN_DELAY: DELAY_S, SERVER_SCAN_MAX_WAIT: MAX_WAIT_S, PLEX_LOCAL_URL: plex.url, PLEX_TOKEN: plex.token });
    const server = await startServer({ dir, config, queuefile, console: 'file', cli: process.env.BENCH_CLI });
    const url = new URL(`${server.url}/${SECRET}`);
    const db = new Database(queuefile, { readonly: true });
    const requests: { folder: string; at: number }[] = [];
    const post = (f: number, e: number): Promise<void> => postJson(agent, url, sonarrDownload(showOf(f), 1, e));
    try {
      plex.requests.length = 0;
      let sampling = true;
      let idleSince: number | undefined;
      let idleWhileDueMs = 0;
      const due = db.prepare(
        `SELECT (SELECT COUNT(*) FROM folders WHERE state = 'waiting' AND due_at <= @now) + (SELECT COUNT(*) FROM deliveries WHERE state = 'pending' AND next_at <= @now) AS n`,
      );
      const sampler = (async () => {
        while (sampling) {
          const now = Date.now();
          const waiting = (due.get({ now }) as { n: number }).n > 0;
          if (waiting && plex.scansQueued === 0) {
            idleSince ??= now;
            idleWhileDueMs = Math.max(idleWhileDueMs, now - idleSince);
          } else idleSince = undefined;
          await sleep(100);
        }
      })();
      const started = Date.now();
      const sent = new Array<number>(BUSY + OTHERS).fill(0);
      const inFlight = new Set<Promise<void>>();
      for (let i = 0; i < plan.length; i++) {
        const wait = started + (i * 1000) / RATE - Date.now();
        if (wait > 0) await sleep(wait);
        const f = plan[i];
        const e = ++sent[f];
        plex.onDisk.add(fileOf(f, e));
        requests.push({ folder: folderOf(f), at: Date.now() });
        const p = post(f, e);
        inFlight.add(p);
        void p.finally(() => inFlight.delete(p));
      }
      await Promise.all(inFlight);
      const loadEnd = Date.now();
      const refreshesInLoad = plex.requests.filter((r) => r.path.endsWith('/refresh') && r.at <= loadEnd).length;
      let drainMs: number | undefined;
      while (Date.now() - loadEnd < DRAIN_LIMIT_MS) {
        if ((db.prepare('SELECT COUNT(*) AS n FROM folders').get() as { n: number }).n === 0) {
          drainMs = Date.now() - loadEnd;
          break;
        }
        await sleep(100);
      }
      sampling = false;
      await sampler;
      await server.stop();
      // Each folder's waits: from the first request after a refresh to the next refresh.
      const refreshes = new Map<string, number[]>();
      for (const r of plex.requests) if (r.path.endsWith('/refresh')) refreshes.set(r.query.path, [...(refreshes.get(r.query.path) ?? []), r.at]);
      let longestWaitMs = 0;
      let longestWaitFolder = '';
      let unrefreshed = 0;
      const byFolder = new Map<string, number[]>();
      for (const r of requests) byFolder.set(r.folder, [...(byFolder.get(r.folder) ?? []), r.at]);
      for (const [folder, times] of byFolder) {
        const done = refreshes.get(folder) ?? [];
        let i = 0;
        while (i < times.length) {
          const first = times[i];
          const refresh = done.find((t) => t > first);
          if (refresh === undefined) {
            unrefreshed++;
            break;
          }
          if (refresh - first > longestWaitMs) [longestWaitMs, longestWaitFolder] = [refresh - first, folder];
          while (i < times.length && times[i] < refresh) i++;
        }
      }
      return {
        longestWaitMs,
        longestWaitFolder,
        unrefreshed,
        idleWhileDueMs,
        pace: refreshesInLoad / ((loadEnd - started) / 1000),
        drainMs,
        webhooks: requests.length,
        refreshes: [...refreshes.values()].reduce((n, t) => n + t.length, 0),
      };
    } finally {
      db.close();
    }
  } finally {
    agent.destroy();
    await socket.close();
    await plex.stop();
    if (process.env.BENCH_BUSY_KEEP) log(`kept ${dir}`);
    else cleanup(dir);
  }
}

export async function run(): Promise<Figure[]> {
  const only = process.env.BENCH_BUSY_ONLY;
  const runs: Partial<Record<'on' | 'silent', Run>> = {};
  for (const mode of ['on', 'silent'] as const) if (!only || only === mode) runs[mode] = await busy(mode);
  const figures: Figure[] = [];
  for (const [mode, r] of Object.entries(runs)) {
    log(
      `busy folders, socket ${mode}: ${r.webhooks} webhooks, ${r.refreshes} refreshes; longest wait ${(r.longestWaitMs / 1000).toFixed(1)} s (${r.longestWaitFolder}), ${r.unrefreshed} never refreshed; ` +
        `Plex idle while due up to ${(r.idleWhileDueMs / 1000).toFixed(1)} s; ${r.pace.toFixed(1)} refreshes/s during the load; queue empty ${r.drainMs === undefined ? 'never' : `${(r.drainMs / 1000).toFixed(1)} s`} after it`,
    );
    const waitLimit = (DELAY_S + 30) * 1000;
    const drained = r.drainMs !== undefined && r.drainMs <= 60_000;
    figures.push(
      {
        id: '19',
        name: `busy folders (socket ${mode}), ${SECONDS} s at ${RATE} webhooks/s over ${BUSY + OTHERS} folders, ${BUSY} asked every second: longest from a wait's first request to its refresh (${r.unrefreshed} never refreshed)`,
        value: r.longestWaitMs / 1000,
        unit: 's',
        target: `≤ SERVER_SCAN_DELAY + 30 s (${DELAY_S + 30} s)`,
        pass: r.longestWaitMs <= waitLimit && r.unrefreshed === 0,
        note: r.longestWaitMs <= waitLimit ? undefined : 'a folder waited longer',
      },
      {
        id: '19',
        name: `busy folders (socket ${mode}), same run: longest Plex idle while folders were due`,
        value: r.idleWhileDueMs / 1000,
        unit: 's',
        target: '≤ 2 s',
        pass: r.idleWhileDueMs <= 2_000,
        note: r.idleWhileDueMs <= 2_000 ? undefined : 'Plex idled with work due',
      },
      {
        id: '19',
        name: `busy folders (socket ${mode}), same run: queue empty after the load (${r.pace.toFixed(1)} refreshes/s during it)`,
        value: r.drainMs === undefined ? Number.POSITIVE_INFINITY : r.drainMs / 1000,
        unit: 's',
        target: '≤ 60 s',
        pass: drained,
        note: drained ? undefined : 'slower to drain',
      },
    );
  }
  if (!runs.on || !runs.silent) return figures;
  const ratio = runs.silent.pace / runs.on.pace;
  figures.push({
    id: '19',
    name: 'busy folders: refreshes a second during the load, socket silent against on',
    value: ratio * 100,
    unit: '%',
    baseline: { label: 'socket on', value: runs.on.pace, unit: 'refreshes/s' },
    target: '≥ 60 %',
    pass: ratio >= 0.6,
    note: ratio >= 0.6 ? undefined : 'a silent socket costs more than 40 % of the pace',
  });
  return figures;
}

await standalone(import.meta.url, run);
