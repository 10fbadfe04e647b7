// Benchmark 1 — intake: what users send. A Sonarr v4 "Download" webhook (about 3 KB, every field Sonarr sends)
// from wrk (its own process, 64 keep-alive connections, 2 threads) for a sustained minute, after a warm-up at
// the same load, against the bundled server with a user's config (defaults everywhere: file checks and Plex
// confirmation on), all to one folder and each to a new folder. Baseline: a bare Node http server driven the
// same way in the same run, once with 1 wrk thread and once with 2, to show the client is not what limits it;
// three floors (bare http with JSON.parse, a one-route Fastify, bare http that also commits the folder to SQLite
// before it answers) that show how much of bare is left for any receiver; and the p99 of a bare server that
// burns 100 µs of CPU per request, about what the intake costs. The server's RSS is sampled every second; a
// probe loaded with --import records event-loop stalls and GC. Afterwards the queue must hold every 2xx.
import Database from '../src/sqlite/binding.js';
import { copyFileSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { FakePlex } from '../test/fakes/plex.js';
import { cleanup, durableFloorServer, FLOOR_SERVERS, loadNote, log, peakRssMb, repoRoot, SECRET, standalone, startBare, startServerWith, tempDir, writeUserConfig, type Figure } from './support.js';
import { MARK, runWrk, type WrkShot } from './wrk.js';

const CONNECTIONS = 64;
const THREADS = 2;
const SECONDS = Number(process.env.BENCH_INTAKE_SECONDS ?? 60);
const BARE_SECONDS = Number(process.env.BENCH_INTAKE_BARE_SECONDS ?? 10);
/**
 * The same load before each measured one, not counted in it: a server that has run for a while has its request
 * path optimized, one just started has not. The warm-up's own p99 and max are shown beside the measured p99,
 * and the peak RSS counts it.
 */
const WARM_SECONDS = Number(process.env.BENCH_INTAKE_WARM_SECONDS ?? 5);
/** A folder to keep each server's CPU profile (--cpu-prof) and probe lines in; unset: not kept. */
const PROFILE_DIR = process.env.BENCH_INTAKE_PROFILE_DIR;
const USER_AGENT = 'Sonarr/4.0.14.2939 (ubuntu 24.04)';
const FIXTURE = join(repoRoot, 'test', 'fixtures', 'arr', 'sonarr-v4-download-bench.json');
const PROBE = join(repoRoot, 'bench', 'loop-probe.mjs');
/** Extra Node flags for the server (e.g. --trace-gc; its output is kept in BENCH_INTAKE_PROFILE_DIR). */
const NODE_ARGS = (process.env.BENCH_INTAKE_NODE_ARGS ?? '').split(' ').filter(Boolean);
const MODES = (process.env.BENCH_INTAKE_MODES ?? 'one,new').split(',') as Mode[];

type Mode = 'one' | 'new';

/** The fixture as Sonarr sends it; for 'new', the series title and folder carry a per-request value. */
export function intakeTemplate(mode: Mode): string {
  const body = readFileSync(FIXTURE, 'utf8');
  if (mode === 'one') return body;
  return body.replaceAll('Severance (2022)', `Severance ${MARK} (2022)`).replace('"title": "Severance"', `"title": "Severance ${MARK}"`);
}

export interface ProbeLine {
  at: number;
  delayMax: number;
  delayP99: number;
  stalls: { at: number; ms: number }[];
  gc: { count: number; ms: number; maxMs: number; major: number; majorMs: number };
  longGc: { at: number; kind: string; ms: number }[];
  rssMb: number;
  heapUsedMb: number;
  /** Since the server started: how long it held each request (ms). */
  held: { count: number; p50: number; p99: number; max: number };
}

interface ServerShot extends WrkShot {
  /** The warm-up load before the measured one (none when BENCH_INTAKE_WARM_SECONDS is 0). */
  warm?: WrkShot;
  /** 2xx answers over the warm-up and the measured load. */
  answered: number;
  queued: number;
  verified: boolean;
  peakMb: number;
  /** Stalls of the event loop during the load, `atS` seconds into it. */
  stalls: { atS: number; ms: number }[];
  gcMs: number;
  gcMaxMs: number;
  heapMaxMb: number;
  /** How long the server held a request during the load (the probe's last line in it). */
  held?: ProbeLine['held'];
}

async function bareShot(threads: number, dir: string, seconds: number, script?: string): Promise<WrkShot> {
  const b = await startBare(0, script);
  try {
    const load = (s: number) => runWrk({ dir, url: b.url, path: `/${SECRET}`, template: intakeTemplate('new'), userAgent: USER_AGENT, threads, connections: CONNECTIONS, seconds: s, serverPid: b.pid });
    if (WARM_SECONDS > 0) await load(WARM_SECONDS);
    return await load(seconds);
  } finally {
    await b.stop();
  }
}

async function serverShot(mode: Mode, plexUrl: string, round: number): Promise<ServerShot> {
  const dir = tempDir('intake');
  try {
    const mediaDir = join(dir, 'media');
    mkdirSync(join(mediaDir, 'tv'), { recursive: true });
    const config = writeUserConfig(dir, { mediaDir, PLEX_LOCAL_URL: plexUrl, PLEX_TOKEN: 'bench-plex-token' });
    const queuefile = join(dir, 'queue.db');
    const probeFile = join(PROFILE_DIR ?? dir, `probe-${mode}-${round}.jsonl`);
    const nodeArgs = ['--import', pathToFileURL(PROBE).href, ...NODE_ARGS];
    // One profile per thread (the checkpoint worker has its own), named by Node with the pid and thread id.
    const profiles = join(dir, 'profiles');
    if (PROFILE_DIR) nodeArgs.push('--cpu-prof', '--cpu-prof-dir', profiles);
    const server = await startServerWith({ dir, config, queuefile, nodeArgs, env: { SCANRELAY_BENCH_PROBE: probeFile } });
    let shot: WrkShot;
    let warm: WrkShot | undefined;
    let peakMb: number;
    let loadFrom = Date.now();
    let loadTo: number;
    try {
      const load = (seconds: number, template = intakeTemplate(mode)) => runWrk({ dir, url: server.url, path: `/${SECRET}`, template, userAgent: USER_AGENT, threads: THREADS, connections: CONNECTIONS, seconds, serverPid: server.pid });
      if (WARM_SECONDS > 0) {
        // Folders of their own, so that every folder of the measured load is new too.
        warm = await load(WARM_SECONDS, intakeTemplate(mode).replaceAll(MARK, `warm-up ${MARK}`));
        process.kill(server.pid, 'SIGUSR2');
        loadFrom = Date.now();
      }
      shot = await load(SECONDS);
      loadTo = Date.now();
      peakMb = peakRssMb(server.pid);
    } finally {
      await server.stop('SIGTERM');
      if (PROFILE_DIR) {
        copyFileSync(join(dir, 'console.out'), join(PROFILE_DIR, `console-${mode}-${round}.out`));
        for (const f of readdirSync(profiles)) {
          const thread = f.split('.')[4] === '0' ? 'main' : `thread${f.split('.')[4]}`;
          copyFileSync(join(profiles, f), join(PROFILE_DIR, `intake-${mode}-${round}-${thread}.cpuprofile`));
        }
      }
    }
    const probe = readFileSync(probeFile, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as ProbeLine);
    const during = probe.filter((p) => p.at >= loadFrom && p.at <= loadTo + 1000);
    const db = new Database(queuefile, { readonly: true });
    const sql = mode === 'one' ? 'SELECT COALESCE(SUM(requests), 0) AS n FROM folders' : 'SELECT COUNT(DISTINCT folder) AS n FROM folders';
    const queued = (db.prepare(sql).get() as { n: number }).n;
    db.close();
    const runs = warm ? [warm, shot] : [shot];
    const ok = runs.reduce((n, r) => n + r.completed - r.non2xx, 0);
    const completed = runs.reduce((n, r) => n + r.completed, 0);
    // wrk does not count answers still on their way when it stops: up to one per connection per run more is queued.
    const verified = queued >= ok && queued <= completed + CONNECTIONS * runs.length;
    return {
      ...shot,
      warm,
      answered: ok,
      queued,
      verified,
      peakMb,
      stalls: probe.flatMap((p) => p.stalls).filter((x) => x.at >= loadFrom && x.at <= loadTo).map((x) => ({ atS: +((x.at - loadFrom) / 1000).toFixed(1), ms: x.ms })),
      gcMs: during.reduce((a, p) => a + p.gc.ms, 0),
      gcMaxMs: Math.max(0, ...during.map((p) => p.gc.maxMs)),
      heapMaxMb: Math.max(0, ...during.map((p) => p.heapUsedMb)),
      held: during.at(-1)?.held,
    };
  } finally {
    cleanup(dir);
  }
}

const fmt = (s: WrkShot) => `${Math.round(s.rps)}/s p50 ${s.p50.toFixed(1)} ms p99 ${s.p99.toFixed(1)} ms max ${s.max.toFixed(0)} ms; cores: server ${s.serverCores.toFixed(2)}, wrk ${s.clientCores.toFixed(2)}`;

export async function run(): Promise<Figure[]> {
  if (PROFILE_DIR) mkdirSync(PROFILE_DIR, { recursive: true });
  const plex = await new FakePlex({ token: 'bench-plex-token' }).start();
  const scratch = tempDir('intake-wrk');
  const figures: Figure[] = [];
  try {
    const loadBefore = loadNote();
    log(`intake: ${loadBefore} before the baseline`);
    const bare1 = await bareShot(1, scratch, BARE_SECONDS);
    log(`intake bare, 1 wrk thread: ${fmt(bare1)}`);
    const bare2 = await bareShot(THREADS, scratch, BARE_SECONDS);
    log(`intake bare, ${THREADS} wrk threads: ${fmt(bare2)}`);
    // A load generator that limits the baseline is busy while the server waits; here the client uses less CPU
    // than the bare server it drives, and a second client thread is shown beside one.
    const clientBound = bare2.clientCores >= bare2.serverCores;
    figures.push({
      id: '1',
      name: `intake baseline: bare Node http, ${THREADS} wrk threads vs 1 (CPU cores used: bare server ${bare2.serverCores.toFixed(2)}, wrk ${bare2.clientCores.toFixed(2)}; ${loadBefore})`,
      value: bare2.rps,
      unit: 'req/s',
      baseline: { label: 'bare, 1 wrk thread', value: bare1.rps },
      ratio: bare2.rps / bare1.rps,
      target: 'client uses less CPU than the bare server',
      pass: !clientBound,
      note: clientBound ? 'wrk used as much CPU as the bare server: the client may limit the baseline' : undefined,
    });
    // What 50% of bare means: the least a JSON webhook receiver does (read the body, JSON.parse it), alone, in
    // Fastify, and with what never losing a request takes (the folder committed before the answer), each against
    // a bare server measured just before it, by requests per CPU-second.
    const floors = [
      ['bare Node http + JSON.parse of the body', FLOOR_SERVERS.parse],
      ['Fastify, one JSON route answering {"ok":true}', FLOOR_SERVERS.fastify],
      ['bare Node http + JSON.parse + the folder committed to SQLite (WAL, one transaction per turn) before the answer', durableFloorServer(join(scratch, 'durable-floor.db'))],
    ] as const;
    for (const [label, script] of floors) {
      const before = await bareShot(THREADS, scratch, BARE_SECONDS);
      const f = await bareShot(THREADS, scratch, BARE_SECONDS, script);
      log(`intake floor, ${label}: ${fmt(f)} (bare just before: ${fmt(before)})`);
      const perCpu = f.rps / f.serverCores;
      const barePerCpu = before.rps / before.serverCores;
      figures.push({
        id: '1',
        name: `intake floor: ${label}, same payload and client, requests per CPU-second (${(1e6 / perCpu).toFixed(0)} µs of CPU per request, bare ${(1e6 / barePerCpu).toFixed(0)} µs; ${Math.round(f.rps)} req/s)`,
        value: perCpu,
        unit: 'req/CPU-s',
        baseline: { label: 'bare Node http, just before', value: barePerCpu },
        ratio: perCpu / barePerCpu,
        target: 'informational: the ceiling under the intake',
        pass: true,
        note: `${Math.round((perCpu / barePerCpu) * 100)}% of bare before any work of scanrelay's own`,
      });
    }
    // What p99 < 20 ms asks of CPU per request on this machine: the same wrk against a bare server that spends
    // about what scanrelay spends per request, and nothing else (no GC of its own, no SQLite, no logging).
    {
      const f = await bareShot(THREADS, scratch, BARE_SECONDS, FLOOR_SERVERS.busy);
      log(`intake floor, bare http + JSON.parse + 100 µs of CPU: ${fmt(f)}`);
      figures.push({
        id: '1',
        name: `intake floor: bare Node http + JSON.parse + 100 µs of busy CPU per request (${Math.round((1e6 * f.serverCores) / f.rps)} µs of CPU per request in all; ${Math.round(f.rps)} req/s, p50 ${f.p50.toFixed(1)} ms), same payload and client: p99 latency`,
        value: f.p99,
        unit: 'ms p99',
        target: 'informational: the p99 of any receiver at this cost per request',
        pass: true,
      });
    }
    for (const mode of MODES) {
      const label = mode === 'one' ? 'one folder' : 'new folder each';
      const load = loadNote();
      log(`intake: ${load} before ${label}`);
      const before = await bareShot(THREADS, scratch, BARE_SECONDS);
      log(`intake bare before ${label}: ${fmt(before)}`);
      const s = await serverShot(mode, plex.url, 1);
      log(`intake ${label}, ${SECONDS} s: ${fmt(s)}; RSS last ${s.rss.at(-1)?.toFixed(0)} MB peak ${s.peakMb.toFixed(0)} MB; stalls >= 100 ms: ${s.stalls.length} (${s.stalls.map((x) => `${x.ms} ms at ${x.atS} s`).slice(0, 8).join(', ')}); GC ${Math.round(s.gcMs)} ms in all, longest ${s.gcMaxMs} ms; heap max ${s.heapMaxMb} MB`);
      const ratio = s.rps / before.rps;
      // Without a warm-up, the first second compiles the code paths of a request (64 arrive at once): reported apart.
      const cold = s.warm ? [] : s.stalls.filter((x) => x.atS < 1);
      const steady = s.warm ? s.stalls : s.stalls.filter((x) => x.atS >= 1);
      const warmed = s.warm ? ` after a ${WARM_SECONDS} s warm-up at the same load` : '';
      const failures = s.non2xx + s.errors;
      figures.push({
        id: '1',
        name: `intake, ${label}, Sonarr v4 payload, default config, ${SECONDS} s${warmed}: requests/s (${load})`,
        value: s.rps,
        unit: 'req/s',
        baseline: { label: 'bare Node http, just before', value: before.rps },
        ratio,
        target: '>= 50% of bare',
        pass: ratio >= 0.5 && failures === 0,
        note: failures ? `${failures} non-2xx/errors` : ratio >= 0.5 ? undefined : `${Math.round(ratio * 100)}% of bare; see Notes`,
      });
      // On a shared machine the share of CPU each process gets moves the req/s of both; requests per CPU-second
      // of the server process does not depend on that share.
      const perCpu = s.rps / s.serverCores;
      const barePerCpu = before.rps / before.serverCores;
      figures.push({
        id: '1',
        name: `intake, ${label}: requests per CPU-second of the server process (${(1e6 / perCpu).toFixed(0)} µs of CPU per request, bare ${(1e6 / barePerCpu).toFixed(0)} µs)`,
        value: perCpu,
        unit: 'req/CPU-s',
        baseline: { label: 'bare Node http, just before', value: barePerCpu },
        ratio: perCpu / barePerCpu,
        target: '>= 50% of bare',
        pass: perCpu / barePerCpu >= 0.5,
        note: perCpu / barePerCpu >= 0.5 ? undefined : `${Math.round((perCpu / barePerCpu) * 100)}% of bare per CPU-second; see Notes`,
      });
      figures.push({
        id: '1',
        name: `intake, ${label}: p99 latency${warmed} (p50 ${s.p50.toFixed(1)} ms, max ${s.max.toFixed(0)} ms; ${s.warm ? `the warm-up itself, from a fresh start: p99 ${s.warm.p99.toFixed(0)} ms, max ${s.warm.max.toFixed(0)} ms; ` : ''}inside the server, request to answer: ${s.held ? `p50 ${s.held.p50} ms, p99 ${s.held.p99} ms, max ${s.held.max.toFixed(0)} ms` : 'not recorded'}; event-loop stalls >= 100 ms: ${s.warm ? `${steady.length}` : `${cold.length} in the first second, ${steady.length} after`}, longest ${Math.max(0, ...steady.map((x) => x.ms))} ms)`,
        value: s.p99,
        unit: 'ms p99',
        baseline: { label: `bare p99`, value: before.p99 },
        ratio: before.p99 > 0 ? s.p99 / before.p99 : undefined,
        target: 'p99 < 20 ms',
        pass: s.p99 < 20,
      });
      const rssMax = Math.max(s.peakMb, ...s.rss);
      figures.push({
        id: '1',
        name: `intake, ${label}: server RSS through ${s.warm ? `${WARM_SECONDS} + ` : ''}${SECONDS} s (peak; last sample ${s.rss.at(-1)?.toFixed(0)} MB)`,
        value: rssMax,
        unit: 'MB',
        baseline: { label: 'bare Node http, peak', value: Math.max(...before.rss) },
        ratio: rssMax / Math.max(...before.rss),
        target: 'RSS < 150 MB',
        pass: rssMax < 150,
      });
      figures.push({
        id: '1',
        name: `intake, ${label}: 2xx answers all in the queue (${mode === 'one' ? 'requests merged into the folder' : 'distinct folders'})`,
        value: s.queued,
        unit: 'queued',
        baseline: { label: `2xx answers${s.warm ? ', warm-up included' : ''}`, value: s.answered },
        ratio: s.answered ? s.queued / s.answered : undefined,
        target: 'queued >= 2xx',
        pass: s.verified,
        note: s.verified ? undefined : 'a 2xx request is missing from the queue',
      });
    }
  } finally {
    await plex.stop();
    cleanup(scratch);
  }
  return figures;
}

await standalone(import.meta.url, run);
