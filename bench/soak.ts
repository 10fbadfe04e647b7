// Benchmark 10 — soak: Sonarr webhooks at a steady rate for minutes (100/s, 300/s, then as fast as the intake
// takes them) over 3,000 season folders, SERVER_SCAN_DELAY 5, against a fake Plex that scans one folder at a time
// and is slower than the load (about 42 scans/s), with its notification socket as a real Plex has it (activity
// started/updated/ended per scan, timeline entries for the items a scan created: test/fakes/plex-notifications.ts).
// Each rate gets a fresh server (the bundle, as `npm start` runs it, the default config) and queue file. Printed
// over time: Plex's own backlog (scans queued at Plex), the relay's queue, the WAL's size, the server's RSS. At the
// end of each rate: refreshes per folder, the largest WAL seen, the queue file's bytes per history line (dbstat:
// the history tables and their indexes over the lines they hold), the drain after the load, requests still queued
// when the bench gave up waiting, requests lost (answered 2xx, never refreshed after, and not queued any more) and
// refreshes sent twice (a folder refreshed again with no request in between), RSS at its peak and settled.
//
// BENCH_SOAK_SECONDS (300): how long each rate's load lasts. BENCH_SOAK_RATES ("100,300,max"): the rates, in
// webhooks a second, "max" meaning 48 clients sending as fast as they are answered. BENCH_SOAK_FOLLOW ("socket"):
// "poll" leaves the fake without its socket, so scans are followed by polling /activities (a Plex whose socket a
// proxy drops): the side-by-side finding, not what users run.
import { statSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { join } from 'node:path';
import { DEFAULT_MAX_OUTSTANDING } from '../src/processor/server-backlog.js';
import Database from '../src/sqlite/binding.js';
import { FakePlex } from '../test/fakes/plex.js';
import { attachPlexNotifications } from '../test/fakes/plex-notifications.js';
import { cleanup, createMediaFiles, log, median, postJson, rssMb, SECRET, sleep, sonarrDownload, standalone, startServerWith, tempDir, writeConfig, type Figure } from './support.js';

const SECONDS = Number(process.env.BENCH_SOAK_SECONDS ?? 300);
/** Folders pushed through a fast Plex to measure history on disk (0: skip that part). */
const HISTORY_FOLDERS = Number(process.env.BENCH_SOAK_HISTORY ?? 20_000);
/** Set: each run's folder (queue file, log, console) is kept and named instead of deleted. */
const KEEP = process.env.BENCH_SOAK_KEEP === '1';
const done = (dir: string) => (KEEP ? log(`kept ${dir}`) : cleanup(dir));
const RATES = (process.env.BENCH_SOAK_RATES ?? '100,300,max').split(',').map((r) => r.trim()).filter(Boolean);
/** How the fake Plex tells a scan ended: its notification socket (the default, as a real Plex), or /activities only. */
const FOLLOW = process.env.BENCH_SOAK_FOLLOW === 'poll' ? 'poll' : 'socket';
/** The longest the bench waits for the relay's queue to empty after the load. */
const DRAIN_LIMIT_MS = Number(process.env.BENCH_SOAK_DRAIN_SECONDS ?? 120) * 1000;
const SHOWS = 1_000;
const SEASONS = 3;
const FOLDERS = SHOWS * SEASONS;
const EPISODES = 10;
const DELAY_S = 5;
/** Plex scans one folder at a time, each this long: about 42 a second, slower than the load. */
const PLEX_SCAN_MS = 24;
const MAX_CLIENTS = 48;
/** The targets. */
const WAL_LIMIT_MB = 64;
const BYTES_PER_LINE = 200;
/** A second refresh this soon after a request acknowledged before the first arrived is the merge race, not a duplicate. */
const RACE_MS = 2_000;

const sections = [{ key: '2', title: 'TV', type: 'show', locations: ['/data/media/tv'] }];

const show = (f: number) => `Soak Show ${f % SHOWS} (20${String(10 + (f % 15)).padStart(2, '0')})`;
const season = (f: number) => 1 + Math.floor(f / SHOWS);
const plexFolder = (f: number) => `/data/media/tv/${show(f)}/Season ${String(season(f)).padStart(2, '0')}`;

interface RateResult {
  rate: string;
  seconds: number;
  sent: number;
  acked: number;
  non2xx: number;
  errors: number;
  achieved: number;
  walMaxMb: number;
  walMedianMb: number;
  walResets: number;
  rss: number[];
  rssPeakMb: number;
  backlog: { at: number; plex: number; relay: number }[];
  /** The most scans Plex held at once (the fake's own count: waiting and running). */
  plexPeak: number;
  /** Scans Plex ran, and the seconds from its first scan's start to its last scan's end: its pace against its floor. */
  plexScans: number;
  plexSpanSeconds: number;
  refreshes: number;
  foldersRefreshed: number;
  requestsPerFolder: number;
  lost: number;
  /** Requests not yet followed by a refresh of their folder whose folder was still in the relay's queue at the end. */
  stillQueued: number;
  foldersStillQueued: number;
  /** From the end of the load until the relay's queue was empty (undefined: not within DRAIN_LIMIT_MS). */
  drainSeconds?: number;
  /** RSS after the drain (the last sample). */
  rssSettledMb: number;
  duplicates: number;
  historyLines: number;
  bytesPerLine: number;
  historyBytes: number;
  byObject: string;
  fileMb: number;
}

/** Bytes the history's tables and indexes take in the file (dbstat), and the lines they hold. */
export function historyBytes(file: string): { lines: number; bytes: number; fileBytes: number; byObject: string } {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const objects = db
      .prepare<[], { name: string }>(`SELECT name FROM sqlite_master WHERE (type = 'table' AND (name = 'history' OR name LIKE 'history\\_%' ESCAPE '\\')) OR (type = 'index' AND tbl_name LIKE 'history%')`)
      .all()
      .map((r) => r.name);
    const each = objects.map((name) => ({ name, b: db.prepare<[string], { b: number | null }>('SELECT SUM(pgsize) AS b FROM dbstat WHERE name = ?').get(name)!.b ?? 0 }));
    const bytes = each.reduce((sum, o) => sum + o.b, 0);
    const lines = db.prepare<[], { n: number }>('SELECT COUNT(*) AS n FROM history').get()!.n;
    const pages = db.pragma('page_count', { simple: true }) as number;
    const pageSize = db.pragma('page_size', { simple: true }) as number;
    const byObject = each.map((o) => `${o.name} ${lines ? (o.b / lines).toFixed(0) : o.b}`).join(', ');
    return { lines, bytes, fileBytes: pages * pageSize, byObject };
  } finally {
    db.close();
  }
}

async function soak(rate: string): Promise<RateResult> {
  const dir = tempDir('soak');
  // A Plex of its own for each rate: an empty library and an empty queue of scans.
  const plex = await new FakePlex({ sections }).start();
  plex.fifoMs = PLEX_SCAN_MS;
  const socket = FOLLOW === 'socket' ? attachPlexNotifications(plex) : undefined;
  const agent = new Agent({ keepAlive: true, maxSockets: MAX_CLIENTS });
  try {
    const queuefile = join(dir, 'queue.db');
    const files: string[] = [];
    for (let f = 0; f < FOLDERS; f++) for (let e = 1; e <= EPISODES; e++) files.push(fileOf(f, e));
    createMediaFiles(dir, files);
    for (const file of files) plex.onDisk.add(file);
    const config = writeConfig(dir, { SERVER_SCAN_DELAY: DELAY_S, PLEX_LOCAL_URL: plex.url, PLEX_TOKEN: plex.token });
    const server = await startServerWith({ dir, config, queuefile, loglevel: 'WARN' });
    const url = new URL(`${server.url}/${SECRET}`);
    // The server dials the socket when it starts: open before the load, as in steady use.
    for (let i = 0; socket && socket.clients === 0 && i < 200; i++) await sleep(25);
    if (socket && socket.clients === 0) log(`soak ${rate}: the server did not open the notification socket`);
    const seenFrom = plex.requests.length;

    // Per folder: when requests were answered 2xx, and when Plex got refreshes.
    const acks: number[][] = Array.from({ length: FOLDERS }, () => []);
    let sent = 0;
    let acked = 0;
    let non2xx = 0;
    let errors = 0;
    const post = (f: number): Promise<void> => {
      sent++;
      const body = sonarrDownload(show(f), season(f), 1 + Math.floor(Math.random() * EPISODES));
      return new Promise<void>((resolve) => {
        const req = request(
          { agent, host: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } },
          (res) => {
            res.resume();
            res.on('end', () => {
              if (res.statusCode! >= 200 && res.statusCode! < 300) {
                acked++;
                acks[f].push(Date.now());
              } else non2xx++;
              resolve();
            });
          },
        );
        req.on('error', () => {
          errors++;
          resolve();
        });
        req.end(body);
      });
    };

    // Samples: WAL every 100 ms, RSS every second, backlogs every 5 s.
    const wal: number[] = [];
    let walResets = 0;
    const rss: number[] = [];
    const backlog: { at: number; plex: number; relay: number }[] = [];
    const started = Date.now();
    let sampling = true;
    const walSampler = (async () => {
      let last = 0;
      while (sampling) {
        let size = 0;
        try {
          size = statSync(`${queuefile}-wal`).size;
        } catch {
          // no WAL at this instant
        }
        if (size < last) walResets++;
        last = size;
        wal.push(size);
        await sleep(100);
      }
    })();
    const slowSampler = (async () => {
      for (let tick = 0; sampling; tick++) {
        try {
          rss.push(rssMb(server.pid));
        } catch {
          // exited
        }
        if (tick % 5 === 0) backlog.push({ at: (Date.now() - started) / 1000, plex: plex.scansQueued, relay: await relayQueued(server.url) });
        await sleep(1000);
      }
    })();

    const endAt = started + SECONDS * 1000;
    const inFlight = new Set<Promise<void>>();
    const track = (p: Promise<void>) => {
      inFlight.add(p);
      void p.finally(() => inFlight.delete(p));
    };
    let lastLog = Date.now();
    const progress = () => {
      if (Date.now() - lastLog < Math.max(10_000, (SECONDS * 1000) / 10)) return;
      lastLog = Date.now();
      const b = backlog[backlog.length - 1];
      log(`soak ${rate}: ${Math.round((Date.now() - started) / 1000)} s, ${acked} answered 2xx, ${non2xx} other; WAL ${mb(wal[wal.length - 1] ?? 0)} MB (max ${mb(Math.max(0, ...wal))}); RSS ${rss[rss.length - 1]?.toFixed(0)} MB; Plex backlog ${b?.plex ?? 0}, relay queue ${b?.relay ?? 0}`);
    };
    if (rate === 'max') {
      await Promise.all(
        Array.from({ length: MAX_CLIENTS }, async () => {
          while (Date.now() < endAt) await post(Math.floor(Math.random() * FOLDERS));
        }).concat(
          (async () => {
            while (Date.now() < endAt) {
              progress();
              await sleep(1000);
            }
          })(),
        ),
      );
    } else {
      // Open loop at the rate: requests go out on schedule whether or not earlier ones were answered.
      const perSecond = Number(rate);
      let due = 0;
      let tickAt = Date.now();
      while (Date.now() < endAt) {
        const now = Date.now();
        due += ((now - tickAt) / 1000) * perSecond;
        tickAt = now;
        for (; due >= 1; due--) track(post(Math.floor(Math.random() * FOLDERS)));
        progress();
        await sleep(10);
      }
    }
    await Promise.all(inFlight);
    const loadSeconds = (Date.now() - started) / 1000;

    // Drained: nothing waiting or pending at the relay (what is left is followed at Plex's pace).
    const loadEnded = Date.now();
    const drainUntil = loadEnded + DRAIN_LIMIT_MS;
    let drainSeconds: number | undefined;
    for (;;) {
      if ((await relayQueued(server.url)) === 0) {
        drainSeconds = (Date.now() - loadEnded) / 1000;
        break;
      }
      if (Date.now() >= drainUntil) break;
      await sleep(500);
    }
    // Settled: a few more seconds of samples once drained (or given up).
    await sleep(5_000);
    sampling = false;
    await Promise.all([walSampler, slowSampler]);
    const queued = await queuedFolders(server.url);
    await server.stop();

    const refreshed: number[][] = Array.from({ length: FOLDERS }, () => []);
    const index = new Map<string, number>(Array.from({ length: FOLDERS }, (_, f) => [plexFolder(f), f]));
    let refreshes = 0;
    for (let i = seenFrom; i < plex.requests.length; i++) {
      const r = plex.requests[i];
      if (!r.path.endsWith('/refresh')) continue;
      const f = index.get(r.query.path?.replace(/\/$/, '') ?? '');
      if (f === undefined) continue;
      refreshes++;
      refreshed[f].push(r.at);
    }
    let lost = 0;
    let stillQueued = 0;
    let foldersStillQueued = 0;
    let duplicates = 0;
    let foldersRefreshed = 0;
    let foldersAsked = 0;
    for (let f = 0; f < FOLDERS; f++) {
      const a = acks[f];
      const r = refreshed[f];
      if (a.length) foldersAsked++;
      if (r.length) foldersRefreshed++;
      // Lost: a request answered 2xx with no refresh of its folder after it, and the folder no longer queued.
      const lastRefresh = r.length ? r[r.length - 1] : -Infinity;
      const unserved = a.filter((t) => t > lastRefresh).length;
      if (queued.has(tail(plexFolder(f)))) {
        stillQueued += unserved;
        foldersStillQueued++;
      } else lost += unserved;
      // Duplicate: a refresh with no request answered since the one before it (or just before it, the merge race).
      for (let k = 1; k < r.length; k++) if (!a.some((t) => t > r[k - 1] - RACE_MS && t <= r[k])) duplicates++;
    }
    const h = historyBytes(queuefile);
    return {
      rate,
      seconds: loadSeconds,
      sent,
      acked,
      non2xx,
      errors,
      achieved: acked / loadSeconds,
      walMaxMb: mb(Math.max(0, ...wal)),
      walMedianMb: mb(median(wal)),
      walResets,
      rss,
      rssPeakMb: Math.max(0, ...rss),
      backlog,
      plexPeak: plex.peakQueued,
      plexScans: plex.finishedScans.length,
      plexSpanSeconds: ((plex.fifoSpan.last ?? 0) - (plex.fifoSpan.first ?? 0)) / 1000,
      refreshes,
      foldersRefreshed,
      requestsPerFolder: acked / Math.max(1, foldersAsked),
      lost,
      stillQueued,
      foldersStillQueued,
      drainSeconds,
      rssSettledMb: rss[rss.length - 1] ?? NaN,
      duplicates,
      historyLines: h.lines,
      bytesPerLine: h.lines ? h.bytes / h.lines : NaN,
      historyBytes: h.bytes,
      byObject: h.byObject,
      fileMb: mb(h.fileBytes),
    };
  } finally {
    agent.destroy();
    await socket?.close();
    await plex.stop();
    done(dir);
  }
}

/** A season folder as "Show/Season NN", whatever the path before it (the relay's own or Plex's). */
const tail = (folder: string) => folder.split('/').slice(-2).join('/');

/** The folders still in the relay's queue (GET /api/<SERVER_PASS>/queue), by their last two parts. */
async function queuedFolders(base: string): Promise<Set<string>> {
  const res = await fetch(`${base}/api/${SECRET}/queue?limit=5000`, { signal: AbortSignal.timeout(10_000) });
  const body = (await res.json()) as { folders: { folder: string }[] };
  return new Set(body.folders.map((f) => tail(f.folder.replace(/\/$/, ''))));
}

function fileOf(f: number, episode: number): string {
  const s = String(season(f)).padStart(2, '0');
  const e = String(episode).padStart(2, '0');
  return `${plexFolder(f)}/${show(f)} - S${s}E${e} - Episode WEBDL-1080p.mkv`;
}

const mb = (bytes: number) => bytes / 1024 / 1024;

/** Folders waiting at the relay plus deliveries not yet sent (GET /health). */
async function relayQueued(base: string): Promise<number> {
  try {
    const res = await fetch(`${base}/health`, { signal: AbortSignal.timeout(5_000) });
    const h = (await res.json()) as { queue?: { waiting: number; pendingByTarget: Record<string, number> } };
    if (!h.queue) return NaN;
    return h.queue.waiting + Object.values(h.queue.pendingByTarget).reduce((a, b) => a + b, 0);
  } catch {
    return NaN;
  }
}

/**
 * History on disk: `n` webhooks, each for a folder of its own, pushed through a fast Plex (scans end at once; each
 * is confirmed from the socket's timeline, or with BENCH_SOAK_FOLLOW=poll through the recently added items) until
 * every folder is in history; one in 50 names a folder in no Plex library and goes to history at once as
 * unmatched. Then dbstat.
 */
async function historyRun(n: number): Promise<{ lines: number; bytesPerLine: number; fileMb: number; seconds: number; sample: string[]; byObject: string }> {
  const dir = tempDir('soak-history');
  const plex = await new FakePlex({ sections }).start();
  plex.scanPolls = 0;
  const socket = FOLLOW === 'socket' ? attachPlexNotifications(plex) : undefined;
  const agent = new Agent({ keepAlive: true, maxSockets: MAX_CLIENTS });
  try {
    const queuefile = join(dir, 'queue.db');
    const showOf = (i: number) => `History Show ${i} (20${String(10 + (i % 15)).padStart(2, '0')})`;
    const files = Array.from({ length: n }, (_, i) => `/data/media/tv/${showOf(i)}/Season 01/${showOf(i)} - S01E01 - Episode WEBDL-1080p.mkv`);
    createMediaFiles(dir, files);
    for (const f of files) plex.onDisk.add(f);
    const config = writeConfig(dir, { SERVER_SCAN_DELAY: 1, PLEX_LOCAL_URL: plex.url, PLEX_TOKEN: plex.token });
    const server = await startServerWith({ dir, config, queuefile, loglevel: 'WARN' });
    const url = new URL(`${server.url}/${SECRET}`);
    for (let i = 0; socket && socket.clients === 0 && i < 200; i++) await sleep(25);
    const started = Date.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: MAX_CLIENTS }, async () => {
        while (next < n) {
          const i = next++;
          // One in 50 outside every library: history says why, with the advice.
          const body = i % 50 === 49 ? sonarrDownload(showOf(i), 1, 1).replaceAll('/tv/', '/elsewhere/') : sonarrDownload(showOf(i), 1, 1);
          await postJson(agent, url, body);
        }
      }),
    );
    const deadline = Date.now() + Math.max(120_000, n * 10);
    for (;;) {
      const res = await fetch(`${server.url}/health`);
      const h = (await res.json()) as { queue: { folders: number } };
      if (h.queue.folders === 0 || Date.now() > deadline) break;
      await sleep(500);
    }
    const seconds = (Date.now() - started) / 1000;
    const res = await fetch(`${server.url}/api/${SECRET}/history?limit=3`);
    const sample = ((await res.json()) as { history: { outcome: string; detail: string | null }[] }).history.map((h) => `${h.outcome}: ${h.detail}`);
    await server.stop();
    const h = historyBytes(queuefile);
    return { lines: h.lines, bytesPerLine: h.bytes / Math.max(1, h.lines), fileMb: mb(h.fileBytes), seconds, sample, byObject: h.byObject };
  } finally {
    agent.destroy();
    await socket?.close();
    await plex.stop();
    done(dir);
  }
}

function report(r: RateResult): void {
  const every = Math.max(1, Math.ceil(r.backlog.length / 12));
  const series = r.backlog.filter((_, i) => i % every === 0 || i === r.backlog.length - 1);
  log(`soak ${r.rate}/s for ${r.seconds.toFixed(0)} s (scans followed by ${FOLLOW === 'socket' ? "Plex's notification socket" : 'polling /activities, no socket'}): ${r.acked} answered 2xx (${r.achieved.toFixed(0)}/s), ${r.non2xx} non-2xx, ${r.errors} errors`);
  log(`  Plex's backlog (scans queued at Plex) over time: ${series.map((b) => `${b.at.toFixed(0)} s ${b.plex}`).join(', ')}; largest ${r.plexPeak}`);
  log(`  Plex ran ${r.plexScans} scans in ${r.plexSpanSeconds.toFixed(0)} s from its first to its last: ${(r.plexScans / Math.max(1, r.plexSpanSeconds)).toFixed(1)}/s, at most ${(1000 / PLEX_SCAN_MS).toFixed(1)}/s (busy ${((100 * r.plexScans * PLEX_SCAN_MS) / 1000 / Math.max(1, r.plexSpanSeconds)).toFixed(0)}% of that span)`);
  log(`  relay queue (waiting + pending) over time: ${series.map((b) => `${b.at.toFixed(0)} s ${b.relay}`).join(', ')}`);
  const rssEvery = Math.max(1, Math.ceil(r.rss.length / 12));
  log(`  RSS over time (MB, every ${rssEvery} s): ${r.rss.filter((_, i) => i % rssEvery === 0).map((v) => v.toFixed(0)).join(', ')}; peak ${r.rssPeakMb.toFixed(0)} MB, median ${median(r.rss).toFixed(0)} MB, settled ${r.rssSettledMb.toFixed(0)} MB`);
  log(`  WAL: max ${r.walMaxMb.toFixed(1)} MB, median ${r.walMedianMb.toFixed(1)} MB, shrank ${r.walResets} times`);
  log(`  refreshes ${r.refreshes} over ${r.foldersRefreshed} folders (${(r.refreshes / Math.max(1, r.foldersRefreshed)).toFixed(2)} per folder; ${r.requestsPerFolder.toFixed(1)} requests per folder)`);
  if (r.historyLines >= 1_000) log(`  history: ${r.historyLines} lines, ${r.bytesPerLine.toFixed(0)} bytes a line (dbstat, ${mb(r.historyBytes).toFixed(2)} MB; per line: ${r.byObject}); queue file ${r.fileMb.toFixed(1)} MB`);
  log(`  drained ${r.drainSeconds === undefined ? `not within ${DRAIN_LIMIT_MS / 1000} s` : `${r.drainSeconds.toFixed(0)} s`} after the load; still queued at the end ${r.stillQueued} requests (${r.foldersStillQueued} folders); lost ${r.lost}, duplicates ${r.duplicates}`);
}

export async function run(): Promise<Figure[]> {
  const figures: Figure[] = [];
  {
    for (const rate of RATES) {
      const r = await soak(rate);
      report(r);
      const label = rate === 'max' ? `as fast as answered (${MAX_CLIENTS} clients; ${r.achieved.toFixed(0)}/s)` : `${rate} webhooks/s`;
      const head = `soak${FOLLOW === 'poll' ? ' (polling /activities, no socket)' : ''}, ${label} over ${FOLDERS.toLocaleString('en-US')} season folders for ${r.seconds.toFixed(0)} s, SERVER_SCAN_DELAY ${DELAY_S}, Plex ${Math.round(1000 / PLEX_SCAN_MS)} scans/s`;
      const plexMax = Math.max(r.plexPeak, ...r.backlog.map((b) => b.plex));
      const plexLast = r.backlog[r.backlog.length - 1]?.plex ?? 0;
      figures.push(
        {
          id: '10',
          name: `${head}: largest WAL (median ${r.walMedianMb.toFixed(1)} MB, shrank ${r.walResets} times; ${r.non2xx} non-2xx answers of ${r.sent})`,
          value: r.walMaxMb,
          unit: 'MB',
          target: `WAL <= ${WAL_LIMIT_MB} MB, no 503`,
          pass: r.walMaxMb <= WAL_LIMIT_MB && r.non2xx === 0 && r.errors === 0,
          note: r.walMaxMb > WAL_LIMIT_MB ? `WAL over ${WAL_LIMIT_MB} MB` : r.non2xx || r.errors ? `${r.non2xx} non-2xx, ${r.errors} errors` : undefined,
        },
        {
          id: '10',
          name: `soak ${rate}: requests lost / refreshes sent twice (${r.refreshes.toLocaleString('en-US')} refreshes, ${(r.refreshes / Math.max(1, r.foldersRefreshed)).toFixed(1)} per folder; drained ${r.drainSeconds === undefined ? `not within ${DRAIN_LIMIT_MS / 1000} s` : `${r.drainSeconds.toFixed(0)} s`} after the load, ${r.stillQueued} requests still queued at the end)`,
          value: r.lost + r.duplicates,
          unit: 'lost + duplicates',
          baseline: { label: 'requests answered 2xx', value: r.acked, unit: 'requests' },
          target: 'lost 0, duplicates 0',
          pass: r.lost === 0 && r.duplicates === 0,
          note: r.lost || r.duplicates || r.stillQueued ? `lost ${r.lost}, duplicates ${r.duplicates}, still queued ${r.stillQueued}` : undefined,
        },
        {
          id: '10',
          name: `soak ${rate}: server RSS (peak; median ${median(r.rss).toFixed(0)} MB, settled after the drain ${r.rssSettledMb.toFixed(0)} MB)`,
          value: r.rssPeakMb,
          unit: 'MB',
          target: 'informational',
          pass: true,
        },
        {
          id: '10',
          name: `soak ${rate}: Plex's own backlog, scans queued at Plex, largest (last ${plexLast}; PLEX_MAX_OUTSTANDING default ${DEFAULT_MAX_OUTSTANDING})`,
          value: plexMax,
          unit: 'scans',
          target: `<= ${DEFAULT_MAX_OUTSTANDING}`,
          pass: plexMax <= DEFAULT_MAX_OUTSTANDING,
        },
      );
    }
  }
  if (HISTORY_FOLDERS > 0) {
    const h = await historyRun(HISTORY_FOLDERS);
    log(`history: ${h.lines} lines from ${HISTORY_FOLDERS} folders in ${h.seconds.toFixed(0)} s, ${h.bytesPerLine.toFixed(0)} bytes a line (dbstat; per line: ${h.byObject}); queue file ${h.fileMb.toFixed(1)} MB`);
    for (const line of h.sample) log(`  e.g. ${line}`);
    figures.push({
      id: '10',
      name: `history on disk: ${HISTORY_FOLDERS.toLocaleString('en-US')} folders pushed through a fast Plex (1 in 50 unmatched), queue file bytes per history line (dbstat over ${h.lines.toLocaleString('en-US')} lines: the history tables and their indexes; file ${h.fileMb.toFixed(1)} MB)`,
      value: h.bytesPerLine,
      unit: 'bytes',
      target: `<= ${BYTES_PER_LINE}`,
      pass: h.bytesPerLine <= BYTES_PER_LINE && h.lines >= HISTORY_FOLDERS,
      note: h.lines < HISTORY_FOLDERS ? `only ${h.lines} of ${HISTORY_FOLDERS} lines` : h.bytesPerLine <= BYTES_PER_LINE ? undefined : `over ${BYTES_PER_LINE} bytes`,
    });
  }
  return figures;
}

await standalone(import.meta.url, run);
