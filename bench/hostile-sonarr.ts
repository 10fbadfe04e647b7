// Benchmark 17 — the hostile Sonarr: the relay (the bundle, with the launchers' heap flags) catches up every second on
// a Sonarr whose every answer is one of the worst an attacker found (issue 52), in turn at each catch-up: a history
// of 100,000 renames of one file (answered page by page, dated at each catch-up, so every page is new each time),
// pages just under the page cap made of [{},…], of [{},0.5,…] and of nested [[[…, and pages over the cap; its series
// list is 31 MiB of [{},…] throughout. Meanwhile a Sonarr webhook every 200 ms, each for a folder of its own (to a
// fake Plex with its notification socket), and /health every 20 ms. Figures: /health's p99 and slowest answer, the webhooks' folders Plex was asked to scan (each
// second of the run), and the relay's peak RSS; it must live through it all.
import { createServer, type Server } from 'node:http';
import { Worker } from 'node:worker_threads';
import { join } from 'node:path';
import { ARR_HISTORY_PAGE } from '../src/http/answer-caps.js';
import { FakePlex } from '../test/fakes/plex.js';
import { attachPlexNotifications } from '../test/fakes/plex-notifications.js';
import { closeServer, listenLocal } from '../test/support/net.js';
import { writeConfigFile } from '../test/support/config-file.js';
import { until } from '../test/support/until.js';
import { cleanup, log, peakRssMb, SECRET, startServerWith, tempDir, type Figure } from './support.js';

const API_KEY = 'bench-hostile-sonarr-key-4d1e';
const SECONDS = Number(process.env.BENCH_HOSTILE_SECONDS ?? 60);
const MiB = 1024 * 1024;
const RENAMES = 100_000;

/** `[entry,entry,…]` of about `bytes`. */
function list(entry: string, bytes: number): Buffer {
  const count = Math.floor((bytes - 2) / (entry.length + 1));
  return Buffer.from('[' + `${entry},`.repeat(count - 1) + entry + ']');
}

/** A page of history (PagingResource) whose records are `records`, `bytes` long in all. */
function page(records: (bytes: number) => Buffer, bytes: number): Buffer {
  const head = `{"page":1,"pageSize":500,"sortKey":"date","sortDirection":"ascending","totalRecords":${RENAMES},"records":`;
  return Buffer.concat([Buffer.from(head), records(bytes - head.length - 1), Buffer.from('}')]);
}

/** The worst history answers, one kind per catch-up in turn; the fixed ones built before the clock starts. */
const TURNS: { name: string; body?: Buffer }[] = [
  { name: `${RENAMES.toLocaleString('en')} renames of one file, page by page` },
  { name: 'pages of [{},…] under the cap', body: page((n) => list('{}', n), ARR_HISTORY_PAGE.bytes) },
  { name: 'pages of [{},0.5,…] under the cap', body: page((n) => list('{},0.5', n), ARR_HISTORY_PAGE.bytes) },
  { name: 'pages nested [[[…', body: Buffer.alloc(ARR_HISTORY_PAGE.bytes, '[') },
  { name: 'pages over the cap', body: list('0', ARR_HISTORY_PAGE.bytes + MiB) },
];

/** Page `n` of `size` renames of one file (as Sonarr writes them), all dated `date`. */
function renames(n: number, size: number, date: string): string {
  const records: string[] = [];
  for (let id = (n - 1) * size + 1; id <= Math.min(n * size, RENAMES); id++) {
    records.push(`{"id":${id},"episodeId":1,"seriesId":1,"sourceTitle":"/tv/Show/S01E01.mkv","date":"${date}","eventType":"episodeFileRenamed","data":{"sourcePath":"/tv/Show/Season 01/a.mkv","path":"/tv/Show/Season 01/b.mkv"}}`);
  }
  return `{"page":${n},"pageSize":${size},"sortKey":"date","sortDirection":"ascending","totalRecords":${RENAMES},"records":[${records.join(',')}]}`;
}

/** The hostile Sonarr, or (`quiet`) a Sonarr of the same routes with no history and no series, for the baseline. */
function hostileSonarr(series: Buffer, quiet: boolean): Server {
  let turn = -1;
  let date = '';
  return createServer((req, res) => {
    const url = new URL(req.url!, 'http://x');
    const json = (body: Buffer | string) => res.writeHead(200, { 'content-type': 'application/json' }).end(body);
    if (req.headers['x-api-key'] !== API_KEY) return void res.writeHead(401).end();
    if (url.pathname === '/api/v3/system/status') {
      // Each catch-up begins with the status: the next kind of answer, dated now.
      turn++;
      date = new Date().toISOString();
      return json('{"appName":"Sonarr","version":"4.0.14.2939"}');
    }
    if (url.pathname === '/api/v3/history') {
      if (quiet) return json('{"page":1,"pageSize":1,"sortKey":"date","sortDirection":"ascending","totalRecords":0,"records":[]}');
      const { body } = TURNS[turn % TURNS.length];
      return json(body ?? renames(Number(url.searchParams.get('page') ?? 1), Number(url.searchParams.get('pageSize') ?? 10), date));
    }
    if (url.pathname === '/api/v3/series') return json(quiet ? '[]' : series);
    if (url.pathname.startsWith('/api/v3/series/')) return json('{"id":1,"title":"Show","tvdbId":1}');
    json('[]');
  });
}

/**
 * /health every 20 ms until `end`, from a thread of its own: the latency is the relay's, not the wait for this
 * process's own fake Sonarr (which builds its pages of renames on the main thread) to let the answer be read.
 */
function pollHealth(url: string, end: number): Promise<number[]> {
  const code = `
    const { parentPort, workerData } = require('node:worker_threads');
    (async () => {
      const latencies = [];
      while (Date.now() < workerData.end) {
        const t = performance.now();
        await (await fetch(workerData.url)).arrayBuffer();
        latencies.push(performance.now() - t);
        await new Promise((r) => setTimeout(r, 20));
      }
      parentPort.postMessage(latencies);
    })();`;
  const worker = new Worker(code, { eval: true, workerData: { url, end } });
  return new Promise((resolve, reject) => {
    worker.once('message', (l: number[]) => void worker.terminate().then(() => resolve(l)));
    worker.once('error', reject);
  });
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];

/** The quiet Sonarr's run: what the same machine gives /health at the same moment, without the hostile answers. */
const QUIET_SECONDS = 20;

interface Measured {
  n: number;
  p50: number;
  p99: number;
  slowest: number;
  sent: number;
  delivered: number;
  peakMb: number;
  alive: boolean;
  health: string;
}

export async function run(): Promise<Figure[]> {
  const series = list('{}', 31 * MiB);
  const hostile = await measure(hostileSonarr(series, false), SECONDS);
  const quiet = await measure(hostileSonarr(series, true), QUIET_SECONDS);
  for (const [who, m] of [['hostile sonarr', hostile], ['quiet sonarr (baseline)', quiet]] as const) {
    log(`${who}: ${m.n} /health answers, p50 ${m.p50.toFixed(1)} ms, p99 ${m.p99.toFixed(1)} ms, slowest ${m.slowest.toFixed(0)} ms; ${m.delivered} of ${m.sent} webhooks scanned; peak ${m.peakMb.toFixed(0)} MB; ${m.alive ? 'alive' : 'DEAD'}; /health ${m.health}`);
  }
  return [
    {
      id: '16a',
      name: `hostile Sonarr (${TURNS.map((h) => h.name).join('; ')}; a 31 MiB [{},…] series list), caught up every second for ${SECONDS} s: /health p99`,
      value: hostile.p99,
      unit: 'ms',
      baseline: { label: `a quiet Sonarr, ${QUIET_SECONDS} s, same run`, value: quiet.p99, unit: 'ms' },
      ratio: hostile.p99 / quiet.p99,
      target: '< 50 ms',
      pass: hostile.p99 < 50 && hostile.alive,
      note: `p50 ${hostile.p50.toFixed(1)} ms, slowest ${hostile.slowest.toFixed(0)} ms of ${hostile.n}; ${hostile.alive ? 'the relay lived' : 'the relay died'}`,
    },
    {
      id: '16b',
      name: 'hostile Sonarr: webhooks sent meanwhile that Plex was asked to scan',
      value: hostile.delivered,
      unit: `of ${hostile.sent}`,
      target: 'all',
      pass: hostile.delivered === hostile.sent,
      note: `peak RSS ${hostile.peakMb.toFixed(0)} MB; /health said ${hostile.health}`,
    },
  ];
}

async function measure(sonarr: Server, seconds: number): Promise<Measured> {
  const dir = tempDir('hostile-sonarr');
  const sonarrUrl = await listenLocal(sonarr);
  const plex = new FakePlex({ sections: [{ key: '2', title: 'TV Shows', type: 'show', locations: ['/data/media/tv'] }] });
  await plex.start();
  // A Plex that scans a folder in 20 ms and says so on its notification socket, as a real one does: what Plex is
  // asked meanwhile is paced by the relay's own bound on outstanding scans, not by a fake that never ends its scans.
  plex.fifoMs = 20;
  const socket = attachPlexNotifications(plex);
  const config = writeConfigFile(dir, {
    SERVER_PASS: SECRET,
    SERVER_IP: '127.0.0.1',
    PLEX_LOCAL_URL: plex.url,
    PLEX_TOKEN: plex.token,
    SERVER_SCAN_DELAY: 0,
    SERVER_MAX_FILE_CHECKS: 0,
    SERVER_PATH_MAPPINGS: { '/data/media/tv/': ['/tv/'] },
    ARR: [{ NAME: 'sonarr', TYPE: 'sonarr', URL: sonarrUrl, API_KEY, CATCH_UP_INTERVAL: 1 }],
  });
  // BENCH_PROFILE_DIR: the relay's CPU profile written there (node --cpu-prof), for bench/cpu-profile.ts.
  const profile = process.env.BENCH_PROFILE_DIR;
  const nodeArgs = profile ? ['--cpu-prof', `--cpu-prof-dir=${profile}`] : [];
  const server = await startServerWith({ dir, config, queuefile: join(dir, 'queue.db'), console: 'file', nodeArgs });
  try {
    // Warmed first, as a relay in use is: the first webhook and /health compile what they use (some 250 ms, whatever
    // Sonarr answers), which is not what this measures.
    await (await fetch(`${server.url}/health`)).arrayBuffer();
    await (await fetch(`${server.url}/${SECRET}`, { method: 'POST', headers: { 'content-type': 'application/json', 'user-agent': 'Sonarr/4.0.14.2939' }, body: '{"eventType":"Test"}' })).arrayBuffer();
    const latencies: number[] = [];
    const sent: string[] = [];
    const end = Date.now() + seconds * 1000;
    const webhooks = async () => {
      for (let i = 0; Date.now() < end; i++) {
        const folder = `/tv/Webhook Show ${i}/Season 01`;
        const res = await fetch(`${server.url}/${SECRET}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'user-agent': 'Sonarr/4.0.14.2939' },
          body: JSON.stringify({ eventType: 'Download', series: { path: `/tv/Webhook Show ${i}` }, episodeFile: { path: `${folder}/e01.mkv` } }),
        });
        if (res.ok) sent.push(`/data/media/tv/Webhook Show ${i}/Season 01`);
        await res.arrayBuffer();
        await new Promise((r) => setTimeout(r, 200));
      }
    };
    const polled = pollHealth(`${server.url}/health`, end);
    await webhooks();
    latencies.push(...(await polled));
    const scanned = () => new Set(plex.refreshes.map((r) => r.path));
    await until(() => sent.every((f) => scanned().has(f)), { ms: 30_000, what: () => `${sent.filter((f) => scanned().has(f)).length} of ${sent.length} webhooks scanned` }).catch(() => undefined);
    const delivered = sent.filter((f) => scanned().has(f)).length;
    const health = (await (await fetch(`${server.url}/health`)).json()) as { status: string; arr: { skipped: string | null; error: string | null }[] };
    const sorted = [...latencies].sort((a, b) => a - b);
    return {
      n: sorted.length,
      p50: percentile(sorted, 0.5),
      p99: percentile(sorted, 0.99),
      slowest: sorted[sorted.length - 1],
      sent: sent.length,
      delivered,
      peakMb: peakRssMb(server.pid),
      alive: server.proc.exitCode === null,
      health: `${health.status}${health.arr[0].skipped ?? health.arr[0].error ? `: ${health.arr[0].skipped ?? health.arr[0].error}` : ''}`,
    };
  } finally {
    await server.stop();
    await socket.close();
    await plex.stop();
    await closeServer(sonarr);
    cleanup(dir);
  }
}
