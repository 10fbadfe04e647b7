// Benchmark 17 — the hostile Sonarr: the relay (the bundle, with the launchers' heap flags) catches up every second on
// a Sonarr whose every answer is one of the worst an attacker found (issue 52): 100,000 renames of one file in one
// history answer, 31 MiB of [{},{},…] as its history and as its series list, 31 MiB nested [[[…, and answers over
// the caps. Meanwhile a Sonarr webhook every 200 ms, each for a folder of its own, and /health every 20 ms. Figures:
// /health's p99 and slowest answer, the webhooks' folders Plex was asked to scan (each second of the run), and the
// relay's peak RSS; it must live through it all.
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { FakePlex } from '../test/fakes/plex.js';
import { closeServer, listenLocal } from '../test/support/net.js';
import { writeConfigFile } from '../test/support/config-file.js';
import { until } from '../test/support/until.js';
import { cleanup, log, peakRssMb, SECRET, startServer, tempDir, type Figure } from './support.js';

const API_KEY = 'bench-hostile-sonarr-key-4d1e';
const SECONDS = Number(process.env.BENCH_HOSTILE_SECONDS ?? 60);
const MiB = 1024 * 1024;

/** `[entry,entry,…]` of about `bytes`. */
function list(entry: string, bytes: number): Buffer {
  const count = Math.floor((bytes - 2) / (entry.length + 1));
  return Buffer.from('[' + `${entry},`.repeat(count - 1) + entry + ']');
}

/** The worst history answers, one per catch-up in turn, built once before the clock starts. */
function worstHistories(now: number): { name: string; body: Buffer }[] {
  const date = new Date(now).toISOString();
  const renames: string[] = [];
  for (let id = 1; id <= 100_000; id++) {
    renames.push(`{"id":${id},"episodeId":1,"seriesId":1,"sourceTitle":"/tv/Show/S01E01.mkv","date":"${date}","eventType":"episodeFileRenamed","data":{"sourcePath":"/tv/Show/Season 01/a.mkv","path":"/tv/Show/Season 01/b.mkv"}}`);
  }
  return [
    { name: '100,000 renames of one file', body: Buffer.from(`[${renames.join(',')}]`) },
    { name: '31 MiB of [{},…]', body: list('{}', 31 * MiB) },
    { name: '31 MiB of [{},0.5,…]', body: list('{},0.5', 31 * MiB) },
    { name: '31 MiB nested [[[…', body: Buffer.alloc(31 * MiB, '[') },
    { name: '40 MiB, over the cap', body: list('0', 40 * MiB) },
  ];
}

function hostileSonarr(histories: { body: Buffer }[], series: Buffer): Server {
  let turn = 0;
  return createServer((req, res) => {
    const path = new URL(req.url!, 'http://x').pathname;
    const json = (body: Buffer | string) => res.writeHead(200, { 'content-type': 'application/json' }).end(body);
    if (req.headers['x-api-key'] !== API_KEY) return void res.writeHead(401).end();
    if (path === '/api/v3/system/status') return json('{"appName":"Sonarr","version":"4.0.14.2939"}');
    if (path === '/api/v3/history/since') return json(histories[turn++ % histories.length].body);
    if (path === '/api/v3/series') return json(series);
    if (path.startsWith('/api/v3/series/')) return json('{"id":1,"title":"Show","tvdbId":1}');
    json('[]');
  });
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];

export async function run(): Promise<Figure[]> {
  const dir = tempDir('hostile-sonarr');
  const histories = worstHistories(Date.now());
  const sonarr = hostileSonarr(histories, list('{}', 31 * MiB));
  const sonarrUrl = await listenLocal(sonarr);
  const plex = new FakePlex({ sections: [{ key: '2', title: 'TV Shows', type: 'show', locations: ['/data/media/tv'] }] });
  await plex.start();
  const config = writeConfigFile(dir, {
    SERVER_PASS: SECRET,
    SERVER_IP: '127.0.0.1',
    PLEX_LOCAL_URL: plex.url,
    PLEX_TOKEN: plex.token,
    PLEX_NOTIFICATIONS: false,
    SERVER_SCAN_DELAY: 0,
    SERVER_MAX_FILE_CHECKS: 0,
    SERVER_PATH_MAPPINGS: { '/data/media/tv/': ['/tv/'] },
    ARR: [{ NAME: 'sonarr', TYPE: 'sonarr', URL: sonarrUrl, API_KEY, CATCH_UP_INTERVAL: 1 }],
  });
  const server = await startServer({ dir, config, queuefile: join(dir, 'queue.db'), console: 'file' });
  try {
    const latencies: number[] = [];
    const sent: string[] = [];
    const end = Date.now() + SECONDS * 1000;
    const poll = async () => {
      while (Date.now() < end) {
        const t = performance.now();
        const res = await fetch(`${server.url}/health`);
        await res.arrayBuffer();
        latencies.push(performance.now() - t);
        await new Promise((r) => setTimeout(r, 20));
      }
    };
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
    await Promise.all([poll(), webhooks()]);
    const scanned = () => new Set(plex.refreshes.map((r) => r.path));
    await until(() => sent.every((f) => scanned().has(f)), { ms: 30_000, what: () => `${sent.filter((f) => scanned().has(f)).length} of ${sent.length} webhooks scanned` }).catch(() => undefined);
    const delivered = sent.filter((f) => scanned().has(f)).length;
    const health = (await (await fetch(`${server.url}/health`)).json()) as { status: string; arr: { skipped: string | null; error: string | null }[] };
    const peakMb = peakRssMb(server.pid);
    const alive = server.proc.exitCode === null;
    const sorted = [...latencies].sort((a, b) => a - b);
    const p99 = percentile(sorted, 0.99);
    const slowest = sorted[sorted.length - 1];
    log(`hostile sonarr: ${latencies.length} /health answers, p50 ${percentile(sorted, 0.5).toFixed(1)} ms, p99 ${p99.toFixed(1)} ms, slowest ${slowest.toFixed(0)} ms; ${delivered} of ${sent.length} webhooks scanned; peak ${peakMb.toFixed(0)} MB; ${alive ? 'alive' : 'DEAD'}; /health ${health.status}: ${health.arr[0].skipped ?? health.arr[0].error}`);
    return [
      {
        id: '16a',
        name: `hostile Sonarr (${histories.map((h) => h.name).join('; ')}; a 31 MiB [{},…] series list), caught up every second for ${SECONDS} s: /health p99`,
        value: p99,
        unit: 'ms',
        target: '< 50 ms',
        pass: p99 < 50 && alive,
        note: `slowest ${slowest.toFixed(0)} ms of ${latencies.length}; ${alive ? 'the relay lived' : 'the relay died'}`,
      },
      {
        id: '16b',
        name: 'hostile Sonarr: webhooks sent meanwhile that Plex was asked to scan',
        value: delivered,
        unit: `of ${sent.length}`,
        target: 'all',
        pass: delivered === sent.length,
        note: `peak RSS ${peakMb.toFixed(0)} MB; /health said ${health.status}`,
      },
    ];
  } finally {
    await server.stop();
    await plex.stop();
    await closeServer(sonarr);
    cleanup(dir);
  }
}
