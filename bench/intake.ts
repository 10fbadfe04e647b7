// Benchmark 1 — intake: Sonarr Download webhooks over loopback with keep-alive, 64 connections, against a bare
// Node http server answering 200 to the same requests in the same run. Afterwards the queue must hold every 2xx.
import autocannon from 'autocannon';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { FakePlex } from '../test/fakes/plex.js';
import { cleanup, log, median, SECRET, sonarrDownload, standalone, startBare, startServer, tempDir, writeConfig, type Figure } from './support.js';

const CONNECTIONS = 64;
const DURATION_S = Number(process.env.BENCH_INTAKE_SECONDS ?? 4);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);

interface Shot {
  rps: number;
  p50: number;
  p99: number;
  ok: number;
  non2xx: number;
  errors: number;
  sent: number;
}

async function cannon(url: string, mode: 'one' | 'new'): Promise<Shot> {
  let n = 0;
  const one = sonarrDownload('Mr. Robot (2015)', 4, 13);
  const result = await autocannon({
    url,
    method: 'POST',
    connections: CONNECTIONS,
    pipelining: 1,
    duration: DURATION_S,
    timeout: 10,
    headers: { 'content-type': 'application/json', 'user-agent': 'Sonarr/3.0.10.1567 (ubuntu 20.04)' },
    body: one,
    requests: [
      {
        setupRequest: (req) => (mode === 'one' ? { ...req, body: one } : { ...req, body: sonarrDownload(`Show ${n++}`, 1, 1) }),
      },
    ],
  });
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    ok: result['2xx'],
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    sent: result.requests.sent,
  };
}

async function scanrelayShot(mode: 'one' | 'new', plexUrl: string): Promise<Shot & { queued: number; verified: boolean }> {
  const dir = tempDir('intake');
  try {
    // A long delay: nothing is dispatched during the measurement, so the queue afterwards is exactly the intake.
    const config = writeConfig(dir, { SERVER_SCAN_DELAY: 3600, PLEX_LOCAL_URL: plexUrl, PLEX_TOKEN: 'bench-plex-token' });
    const queuefile = join(dir, 'queue.db');
    const server = await startServer({ dir, config, queuefile, console: 'file' });
    const shot = await cannon(`${server.url}/${SECRET}`, mode);
    await server.stop('SIGTERM');
    const db = new Database(queuefile, { readonly: true });
    let queued: number;
    if (mode === 'one') {
      queued = (db.prepare('SELECT COALESCE(SUM(requests), 0) AS n FROM folders').get() as { n: number }).n;
    } else {
      queued = (db.prepare('SELECT COUNT(DISTINCT folder) AS n FROM folders').get() as { n: number }).n;
    }
    db.close();
    // Requests still in flight when autocannon stopped may be queued without being counted as 2xx: >= and <= sent.
    const verified = queued >= shot.ok && queued <= shot.sent;
    return { ...shot, queued, verified };
  } finally {
    cleanup(dir);
  }
}

export async function run(): Promise<Figure[]> {
  const plex = await new FakePlex({ token: 'bench-plex-token' }).start();
  const bare: Shot[] = [];
  const one: (Shot & { queued: number; verified: boolean })[] = [];
  const fresh: (Shot & { queued: number; verified: boolean })[] = [];
  try {
    for (let r = 0; r < ROUNDS; r++) {
      // Interleaved so a noisy neighbour hits baseline and subject alike.
      const b = await startBare();
      bare.push(await cannon(b.url + `/${SECRET}`, 'new'));
      await b.stop();
      one.push(await scanrelayShot('one', plex.url));
      fresh.push(await scanrelayShot('new', plex.url));
      const last = (s: Shot) => `${Math.round(s.rps)}/s p99 ${s.p99} ms`;
      log(`intake round ${r + 1}/${ROUNDS}: bare ${last(bare[r])}; one folder ${last(one[r])}; new folders ${last(fresh[r])}`);
    }
  } finally {
    await plex.stop();
  }
  const bareRps = median(bare.map((s) => s.rps));
  const bareP99 = median(bare.map((s) => s.p99));
  const bareP50 = median(bare.map((s) => s.p50));
  const figures: Figure[] = [];
  for (const [label, shots] of [
    ['one folder', one],
    ['new folder each', fresh],
  ] as const) {
    const rps = median(shots.map((s) => s.rps));
    const p50 = median(shots.map((s) => s.p50));
    const p99 = median(shots.map((s) => s.p99));
    const failures = shots.reduce((a, s) => a + s.non2xx + s.errors, 0);
    const verified = shots.every((s) => s.verified);
    const ok = shots.reduce((a, s) => a + s.ok, 0);
    const queued = shots.reduce((a, s) => a + s.queued, 0);
    const ratio = rps / bareRps;
    figures.push({
      id: '1',
      name: `intake, ${label}: requests/s (median of ${shots.length})`,
      value: rps,
      unit: 'req/s',
      baseline: { label: 'bare Node http', value: bareRps },
      ratio,
      target: '>= 50% of bare',
      pass: ratio >= 0.5 && failures === 0,
      note: ratio >= 0.5 ? (failures ? `${failures} non-2xx/errors` : undefined) : `${Math.round(ratio * 100)}% of bare: per request the server parses the JSON, commits it to SQLite (shared commits) and logs a line, bare reads and answers; see Notes`,
    });
    figures.push({
      id: '1',
      name: `intake, ${label}: p50 / p99 latency`,
      value: p99,
      unit: 'ms p99',
      baseline: { label: `bare p99; p50 here ${p50} ms vs bare ${bareP50} ms`, value: bareP99 },
      ratio: bareP99 > 0 ? p99 / bareP99 : undefined,
      target: 'p99 < 20 ms',
      pass: p99 < 20,
      note: p99 < 20 ? undefined : `64 connections at ${Math.round(rps)}/s means ~${Math.round((64 / rps) * 1000)} ms queueing per request (Little's law); 2 shared cores`,
    });
    figures.push({
      id: '1',
      name: `intake, ${label}: 2xx answers all in the queue (${label === 'one folder' ? 'requests merged into the folder' : 'distinct folders'})`,
      value: queued,
      unit: 'queued',
      baseline: { label: '2xx answers', value: ok },
      ratio: ok ? queued / ok : undefined,
      target: 'queued >= 2xx',
      pass: verified,
      note: verified ? undefined : 'a 2xx request is missing from the queue',
    });
  }
  return figures;
}

await standalone(import.meta.url, run);
