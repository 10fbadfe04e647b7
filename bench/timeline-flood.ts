// Benchmark 14 — a Plex that never stops sending timeline entries. The relay as users start it (the bundle, the
// Node flags of `npm start`: a 512 MB heap) with the default config but SERVER_SCAN_DELAY 1 s, against a hostile
// fake Plex on 127.0.0.1 in its own process (bench/hostile-plex.ts): once the relay's notification socket is open
// (its first scan opens it), 10 s of a Sonarr webhook a second for a new folder (the baseline), then 60 s of the
// same while the fake sends 6,000,000 timeline entries (BENCH_FLOOD_ENTRIES) for sections in which no scan is
// followed, 500 to a frame, and 10 scans a second `started` and never `ended`. Measured: the relay's peak RSS
// (VmHWM) against its RSS before the flood, GET /health latency every 50 ms (p50/p99/max) against a bare Node http
// server probed the same way at the same time (what the machine's load alone costs) and the relay's before the flood,
// the folders refreshed at Plex and confirmed, the entries the fake got onto the socket, and the relay's CPU.
// BENCH_FLOOD_AGAINST=<another build's scanrelay.mjs> runs the same against that build too (the build before these
// bounds, say), BENCH_FLOOD_SECONDS shortens the flood, BENCH_FLOOD_ENTRIES changes the entries sent in it.
import { fork, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Flooded, HostileFlood, HostileStart, Report } from './hostile-plex.js';
import type { ProbeLine } from './intake.js';
import { cleanup, cpuSeconds, createMediaFiles, loadNote, log, peakRssMb, repoRoot, rssMb, SECRET, serverFlags, sleep, sonarrDownload, standalone, startBare, startServer, startServerWith, tempDir, writeConfig, type Figure, type ServerChild } from './support.js';

const SECONDS = Number(process.env.BENCH_FLOOD_SECONDS ?? 60);
const ENTRIES = Number(process.env.BENCH_FLOOD_ENTRIES ?? 6_000_000);
const BASELINE_S = 10;
const PROBE_MS = 50;
const FLOOD_SECTIONS = ['3', '4', '5', '6', '7', '8', '9', '10', '11', '12'];
const RSS_TARGET_MB = 200;
/** Loaded into this build's relay (never the other's): its event loop's stalls and how long it held each request. */
const PROBE = pathToFileURL(join(repoRoot, 'bench', 'loop-probe.mjs')).href;
const HEALTH_TARGET_MS = 100;

const show = (i: number) => `Flood Show ${i}`;
const plexFile = (i: number) => `/data/media/tv/${show(i)}/Season 01/${show(i)} - S01E01 - Episode WEBDL-1080p.mkv`;
const plexFolder = (i: number) => `/data/media/tv/${show(i)}/Season 01`;

/** The hostile Plex's process and its answers. */
class Hostile {
  readonly proc: ChildProcess;
  private readonly waiting = new Map<string, (m: never) => void>();

  constructor() {
    this.proc = fork(fileURLToPath(new URL('./hostile-plex.ts', import.meta.url)), { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    this.proc.on('message', (m: { type: string }) => {
      const fn = this.waiting.get(m.type);
      this.waiting.delete(m.type);
      fn?.(m as never);
    });
  }

  next<T>(type: string, timeoutMs = 120_000): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the hostile Plex sent no '${type}' in ${timeoutMs / 1000} s`)), timeoutMs);
      this.waiting.set(type, ((m: T) => (clearTimeout(timer), resolve(m))) as never);
    });
  }

  send(m: HostileStart | HostileFlood | { type: 'report' | 'stop' }): void {
    this.proc.send(m);
  }

  async report(): Promise<Report> {
    const r = this.next<Report>('report', 10_000);
    this.send({ type: 'report' });
    return r;
  }

  async stop(): Promise<void> {
    if (this.proc.exitCode !== null) return;
    const gone = new Promise((r) => this.proc.once('exit', r));
    this.send({ type: 'stop' });
    await Promise.race([gone, sleep(5_000).then(() => this.proc.kill('SIGKILL'))]);
  }
}

interface Phase {
  health: number[];
  /** When each probe began (ms since the phase began), beside `health`. */
  at: number[];
  /** Probes that got no answer in 5 s, or an error (the relay gone). */
  failed: number;
  rss: number[];
  webhooks: number[];
}

/** GET `path` every PROBE_MS until `done()`: how long each answer took, and when it was asked. */
async function probe(url: string, done: () => boolean, into: Pick<Phase, 'health' | 'at' | 'failed'>): Promise<void> {
  const t0 = performance.now();
  while (!done()) {
    const t = performance.now();
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(5_000) });
      await res.text();
      into.health.push(performance.now() - t);
      into.at.push(t - t0);
    } catch {
      into.failed++;
    }
    await sleep(PROBE_MS);
  }
}

/**
 * Until `done()`: GET /health every PROBE_MS, a webhook a second for folder `next()`, RSS every 500 ms; and, when
 * given, a bare Node http server probed the same way at the same time (`bare`): what this machine's load alone does
 * to an answer's time.
 */
async function load(server: ServerChild, done: () => boolean, next: () => number, bare?: { url: string; into: Phase }): Promise<Phase> {
  const phase: Phase = { health: [], at: [], failed: 0, rss: [], webhooks: [] };
  const alive = () => server.proc.exitCode === null && server.proc.signalCode === null;
  const probes = Promise.all([probe(`${server.url}/health`, () => done() || !alive(), phase), bare && probe(bare.url, () => done() || !alive(), bare.into)]);
  const hooks = (async () => {
    while (!done() && alive()) {
      const i = next();
      try {
        const res = await fetch(`${server.url}/${SECRET}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: sonarrDownload(show(i)), signal: AbortSignal.timeout(5_000) });
        await res.text();
        if (res.ok) phase.webhooks.push(i);
      } catch {
        // Counted as not delivered.
      }
      await sleep(1_000);
    }
  })();
  const samples = (async () => {
    while (!done() && alive()) {
      try {
        phase.rss.push(rssMb(server.pid));
      } catch {
        break;
      }
      await sleep(500);
    }
  })();
  await Promise.all([probes, hooks, samples]);
  return phase;
}

const pct = (xs: number[], p: number) => {
  if (!xs.length) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
};

interface Run {
  baseline: Phase;
  flood: Phase;
  flooded?: Flooded;
  peakRss: number;
  rssBefore: number;
  cpu: number;
  /** ms after the flood began that the relay exited, if it did. */
  exitedAfterMs?: number;
  exitCode?: number | null;
  delivered: { baseline: number; flood: number };
  /** The relay's own view of the flood (this build only): loop stalls of 100 ms or more, the longest loop delay, requests held. */
  inside?: { stalls: { atS: number; ms: number }[]; delayMax: number; held: ProbeLine['held']; longGc: ProbeLine['longGc']; gcMaxMs: number };
  /** A bare Node http server probed as /health was, during the flood (this build only). */
  bare?: Phase;
  /** CPU seconds the hostile Plex's process used during the flood (building and sending it). */
  hostileCpu: number;
  confirmed: { flood: number; outcomes: Record<string, number> };
  logTail: string;
}

async function runOnce(cli?: string): Promise<Run> {
  const dir = tempDir('flood');
  const hostile = new Hostile();
  let server: ServerChild | undefined;
  try {
    const folders = 1 + BASELINE_S + SECONDS + 10;
    createMediaFiles(dir, Array.from({ length: folders }, (_, i) => plexFile(i)));
    hostile.send({ type: 'start', files: Array.from({ length: folders }, (_, i) => plexFile(i)), floodSections: FLOOD_SECTIONS, scanMs: 50 });
    const { url, token } = await hostile.next<{ url: string; token: string }>('ready');
    const config = writeConfig(dir, { PLEX_LOCAL_URL: url, PLEX_TOKEN: token, SERVER_SCAN_DELAY: 1 });
    const connected = hostile.next('connected', 60_000);
    const probeFile = join(dir, 'probe.jsonl');
    const queuefile = join(dir, 'queue.db');
    server = cli ? await startServer({ dir, config, queuefile, console: 'file', cli }) : await startServerWith({ dir, config, queuefile, nodeArgs: ['--import', PROBE], env: { SCANRELAY_BENCH_PROBE: probeFile } });
    // The first folder's scan opens Plex's notification socket.
    let nextFolder = 0;
    const first = await fetch(`${server.url}/${SECRET}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: sonarrDownload(show(nextFolder++)) });
    if (!first.ok) throw new Error(`the first webhook answered ${first.status}`);
    await connected;

    const baselineEnd = Date.now() + BASELINE_S * 1000;
    const baseline = await load(server, () => Date.now() > baselineEnd, () => nextFolder++);
    const rssBefore = rssMb(server.pid);
    // Started now, with the relay's Node flags, so it is up and idle when the flood begins.
    const bareServer = cli ? undefined : await startBare(0, undefined, process.execPath, serverFlags());
    const firstFloodFolder = nextFolder;
    const cpu0 = cpuSeconds(server.pid);
    const hostileCpu0 = cpuSeconds(hostile.proc.pid!);
    const floodStart = Date.now();
    // The probe's count of how long requests were held starts over here.
    if (!cli) server.proc.kill('SIGUSR2');
    let flooded: Flooded | undefined;
    const floodDone = hostile.next<Flooded>('flooded', (SECONDS + 60) * 1000).then((f) => (flooded = f));
    hostile.send({ type: 'flood', seconds: SECONDS, entriesPerSecond: ENTRIES / SECONDS, entriesPerFrame: 500, startedPerSecond: 10 });
    let exitedAfterMs: number | undefined;
    void server.exited.then(() => (exitedAfterMs ??= Date.now() - floodStart));
    const bare: Phase | undefined = bareServer ? { health: [], at: [], failed: 0, rss: [], webhooks: [] } : undefined;
    const flood = await load(server, () => flooded !== undefined || Date.now() - floodStart > (SECONDS + 60) * 1000, () => nextFolder++, bareServer && bare ? { url: bareServer.url, into: bare } : undefined);
    await bareServer?.stop();
    const alive = server.proc.exitCode === null && server.proc.signalCode === null;
    const peakRss = alive ? peakRssMb(server.pid) : Math.max(...flood.rss, ...baseline.rss);
    const cpu = alive ? cpuSeconds(server.pid) - cpu0 : NaN;
    const hostileCpu = cpuSeconds(hostile.proc.pid!) - hostileCpu0;
    const floodEnd = Date.now();
    const inside = cli || !existsSync(probeFile) ? undefined : insideView(probeFile, floodStart, floodEnd);
    await Promise.race([floodDone, sleep(alive ? 120_000 : 1_000)]);

    // What reached Plex, and what the follow-ups said, once the last folders had their turn.
    const wanted = (phase: Phase) => phase.webhooks.map(plexFolder);
    let report = await hostile.report();
    const refreshed = () => new Set(report.refreshes.map((r) => r.path.replace(/\/$/, '')));
    const outcomes: Record<string, number> = {};
    if (alive) {
      for (let t = 0; t < 60 && !wanted(flood).every((f) => refreshed().has(f)); t++) {
        await sleep(500);
        report = await hostile.report();
      }
      await sleep(3_000);
      const res = await fetch(`${server.url}/api/${SECRET}/history?limit=500`);
      const history = ((await res.json()) as { history: { folder: string; outcome: string }[] }).history;
      for (const h of history) {
        const i = Number(/Flood Show (\d+)\//.exec(h.folder)?.[1]);
        if (i >= firstFloodFolder) outcomes[h.outcome] = (outcomes[h.outcome] ?? 0) + 1;
      }
    }
    const delivered = { baseline: wanted(baseline).filter((f) => refreshed().has(f)).length, flood: wanted(flood).filter((f) => refreshed().has(f)).length };
    return { inside, bare, hostileCpu, baseline, flood, flooded, peakRss, rssBefore, cpu, exitedAfterMs, exitCode: server.proc.exitCode, delivered, confirmed: { flood: outcomes.confirmed ?? 0, outcomes }, logTail: server.tail().slice(-600) };
  } finally {
    await server?.stop();
    await hostile.stop();
    cleanup(dir);
  }
}

/** What the probe saw from the flood's start to its end. */
function insideView(file: string, from: number, to: number): Run['inside'] {
  const lines = readFileSync(file, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as ProbeLine).filter((p) => p.at >= from && p.at <= to + 1_000);
  if (!lines.length) return undefined;
  return {
    stalls: lines.flatMap((p) => p.stalls).filter((x) => x.at >= from && x.at <= to).map((x) => ({ atS: +((x.at - from) / 1000).toFixed(1), ms: x.ms })),
    delayMax: Math.max(...lines.map((p) => p.delayMax)),
    held: lines.at(-1)!.held,
    longGc: lines.flatMap((p) => p.longGc),
    gcMaxMs: Math.max(...lines.map((p) => p.gc.maxMs)),
  };
}

function describeRun(label: string, r: Run): void {
  const h = r.flood.health;
  log(
    `${label}: flood ${r.flooded ? `${r.flooded.entries.toLocaleString('en-US')} entries in ${r.flooded.frames} frames over ${r.flooded.seconds.toFixed(1)} s, ${r.flooded.started} scans started` : 'not finished'}; ` +
      `relay ${r.exitedAfterMs === undefined ? 'ran throughout' : `exited ${(r.exitedAfterMs / 1000).toFixed(1)} s into the flood (code ${r.exitCode})`}; ` +
      `RSS before ${r.rssBefore.toFixed(1)} MB, peak ${r.peakRss.toFixed(1)} MB, samples max ${Math.max(...r.flood.rss).toFixed(1)} MB; ` +
      `/health ${h.length} probes p50 ${pct(h, 50).toFixed(1)} p99 ${pct(h, 99).toFixed(1)} max ${Math.max(...h).toFixed(1)} ms (${r.flood.failed} failed; baseline p50 ${pct(r.baseline.health, 50).toFixed(1)} p99 ${pct(r.baseline.health, 99).toFixed(1)} max ${Math.max(...r.baseline.health).toFixed(1)} ms); ` +
      `delivered ${r.delivered.flood}/${r.flood.webhooks.length} during the flood, ${r.delivered.baseline}/${r.baseline.webhooks.length} before; outcomes ${JSON.stringify(r.confirmed.outcomes)}; relay CPU ${r.cpu.toFixed(1)} s`,
  );
  // RSS through the flood, the largest sample of each 10 s: flat once bounded, rising while something grows.
  const per10s = Array.from({ length: Math.ceil(r.flood.rss.length / 20) }, (_, k) => Math.max(...r.flood.rss.slice(k * 20, k * 20 + 20)).toFixed(0));
  log(`${label}: RSS through the flood, per 10 s: ${per10s.join(', ')} MB`);
  if (r.bare) log(`${label}: a bare Node http server probed the same way during the flood: p50 ${pct(r.bare.health, 50).toFixed(1)} p99 ${pct(r.bare.health, 99).toFixed(1)} max ${Math.max(...r.bare.health).toFixed(1)} ms (${r.bare.health.length} probes, ${r.bare.failed} failed)`);
  const slowest = h.map((ms, i) => ({ ms, at: r.flood.at[i] })).sort((x, y) => y.ms - x.ms).slice(0, 8);
  if (r.inside) log(`${label}: inside the relay during the flood: longest event-loop delay ${r.inside.delayMax} ms, stalls >= 100 ms ${JSON.stringify(r.inside.stalls)}, requests held p50 ${r.inside.held.p50} p99 ${r.inside.held.p99} max ${r.inside.held.max} ms (${r.inside.held.count}), longest GC pause ${r.inside.gcMaxMs} ms ${JSON.stringify(r.inside.longGc)}; the hostile Plex used ${r.hostileCpu.toFixed(1)} CPU s`);
  log(`${label}: slowest /health answers during the flood: ${slowest.map((s) => `${s.ms.toFixed(0)} ms at ${(s.at / 1000).toFixed(1)} s`).join(', ')}`);
  if (r.exitedAfterMs !== undefined) log(`${label}: the relay's last output:\n${r.logTail}`);
}

export async function run(): Promise<Figure[]> {
  const r = await runOnce();
  describeRun('this build', r);
  const against = process.env.BENCH_FLOOD_AGAINST ? await runOnce(process.env.BENCH_FLOOD_AGAINST) : undefined;
  if (against) describeRun('the other build', against);
  const f = r.flooded;
  const rate = f ? f.entries / f.seconds : 0;
  const h = r.flood.health;
  const b = r.baseline.health;
  const bh = r.bare?.health ?? [];
  const sent = f ? `${f.entries.toLocaleString('en-US')} entries in ${f.seconds.toFixed(1)} s, ${Math.round(rate).toLocaleString('en-US')}/s, ${f.frames.toLocaleString('en-US')} frames of 500, ${f.started} scans started and never ended` : 'the flood did not finish';
  const ah = against?.flood.health ?? [];
  const otherNote = against
    ? `; the other build, same flood (${against.flooded?.entries.toLocaleString('en-US') ?? '?'} entries got onto its socket): ${against.exitedAfterMs === undefined ? `ran throughout, peak ${against.peakRss.toFixed(0)} MB` : `exited ${(against.exitedAfterMs / 1000).toFixed(0)} s into the flood (code ${against.exitCode}), RSS ${Math.max(...against.flood.rss).toFixed(0)} MB at its last sample`}, /health p99 ${pct(ah, 99).toFixed(0)} ms, max ${Math.max(...ah).toFixed(0)} ms, relay CPU ${against.cpu.toFixed(1)} s`
    : '';
  const survived = r.exitedAfterMs === undefined;
  const i = r.inside;
  const inside = i ? `; inside the relay: each request held p99 ${i.held.p99} ms, max ${i.held.max} ms, longest event-loop delay ${i.delayMax} ms, ${i.stalls.length} stalls >= 100 ms; ${loadNote()}` : '';
  return [
    {
      id: '14',
      name: `timeline flood: relay peak RSS (VmHWM) while a hostile Plex sent ${sent}${otherNote}`,
      value: r.peakRss,
      unit: 'MB',
      baseline: { label: 'the same relay before the flood', value: r.rssBefore },
      ratio: r.peakRss / r.rssBefore,
      target: `< ${RSS_TARGET_MB} MB`,
      pass: survived && r.peakRss < RSS_TARGET_MB,
      note: survived ? undefined : `the relay exited ${((r.exitedAfterMs ?? 0) / 1000).toFixed(0)} s into the flood`,
    },
    {
      id: '14',
      name: `timeline flood: GET /health every ${PROBE_MS} ms during the flood, max (p50 ${pct(h, 50).toFixed(1)} ms, p99 ${pct(h, 99).toFixed(1)} ms, ${h.length} probes, ${r.flood.failed} unanswered; the same relay in the ${BASELINE_S} s before the flood: p50 ${pct(b, 50).toFixed(1)}, p99 ${pct(b, 99).toFixed(1)}, max ${Math.max(...b).toFixed(0)} ms; relay CPU ${r.cpu.toFixed(1)} s in ${f?.seconds.toFixed(0) ?? '?'} s${inside})`,
      value: Math.max(...h),
      unit: 'ms',
      baseline: bh.length
        ? { label: `a bare Node http server probed the same way at the same time, max; p50 ${pct(bh, 50).toFixed(1)}, p99 ${pct(bh, 99).toFixed(1)}`, value: Math.max(...bh) }
        : { label: `max before the flood; p50 ${pct(b, 50).toFixed(1)}, p99 ${pct(b, 99).toFixed(1)}`, value: Math.max(...b) },
      ratio: Math.max(...h) / (bh.length ? Math.max(...bh) : Math.max(...b)),
      target: `p50, p99 and max < ${HEALTH_TARGET_MS} ms`,
      pass: r.flood.failed === 0 && Math.max(...h) < HEALTH_TARGET_MS,
    },
    {
      id: '14',
      name: `timeline flood: folders of Sonarr webhooks (one a second) refreshed at Plex during the flood (follow-up outcomes ${JSON.stringify(r.confirmed.outcomes)}; before the flood ${r.delivered.baseline} of ${r.baseline.webhooks.length})`,
      value: r.delivered.flood,
      unit: 'folders',
      baseline: { label: 'webhooks answered 2xx during the flood', value: r.flood.webhooks.length },
      ratio: r.delivered.flood / Math.max(1, r.flood.webhooks.length),
      target: 'every one',
      pass: r.flood.webhooks.length > 0 && r.delivered.flood === r.flood.webhooks.length,
    },
    {
      id: '14',
      name: `timeline flood: entries the hostile Plex got onto the relay's socket in ${SECONDS} s (target rate ${Math.round(ENTRIES / SECONDS).toLocaleString('en-US')}/s)`,
      value: f?.entries ?? 0,
      unit: 'entries',
      baseline: { label: 'asked for', value: ENTRIES },
      ratio: (f?.entries ?? 0) / ENTRIES,
      target: `${ENTRIES.toLocaleString('en-US')}`,
      pass: (f?.entries ?? 0) >= ENTRIES * 0.99,
      note: f && f.entries < ENTRIES * 0.99 ? `${Math.round(rate).toLocaleString('en-US')}/s reached` : undefined,
    },
  ];
}

await standalone(import.meta.url, run);
