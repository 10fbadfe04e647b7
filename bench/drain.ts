// Benchmark 5 — drain: 100,000 queued folders to a fake Plex answering in 5 ms, SERVER_SCAN_DELAY 0: folders/s.
// Baseline (same run): a plain client making the same refresh calls to the same fake Plex with the same
// concurrency (8), i.e. what the fake Plex can take. Then, with PLEX_SCAN_PAUSE set, the pause is kept.
import { join } from 'node:path';
import { FakePlex } from '../test/fakes/plex.js';
import { attachPlexNotifications } from '../test/fakes/plex-notifications.js';
import { cleanup, createMediaFiles, log, median, prefilledFile, prefillQueue, sleep, standalone, startServer, tempDir, writeConfig, type Figure } from './support.js';

const FOLDERS = Number(process.env.BENCH_DRAIN_FOLDERS ?? 100_000);
const LATENCY_MS = 5;
const CONCURRENCY = 8;
const PAUSE_S = 0.25;
const PAUSE_FOLDERS = 8;

const sections = [{ key: '2', title: 'TV', type: 'show', locations: ['/data/media/tv'] }];

async function baseline(plex: FakePlex, n: number): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < n) {
        const i = next++;
        const u = new URL(`${plex.url}/library/sections/2/refresh`);
        u.searchParams.set('path', `/data/media/tv/Baseline ${i}/Season 01`);
        const res = await fetch(u, { method: 'PUT', headers: { 'X-Plex-Token': plex.token } });
        await res.arrayBuffer();
      }
    }),
  );
  return n / ((performance.now() - started) / 1000);
}

function refreshTimes(plex: FakePlex): number[] {
  return plex.requests.filter((r) => r.path.endsWith('/refresh')).map((r) => r.at);
}

async function drain(plex: FakePlex): Promise<{ rate: number; chunkMedian: number; took: number; done: number }> {
  const dir = tempDir('drain');
  try {
    const queuefile = join(dir, 'queue.db');
    prefillQueue(queuefile, FOLDERS, { delayMs: 0 });
    // The default file check looks for each file on this disk, and the default follow-up finds it in Plex.
    const files = Array.from({ length: FOLDERS }, (_, i) => prefilledFile(i));
    createMediaFiles(dir, files);
    for (const f of files) plex.onDisk.add(f);
    const config = writeConfig(dir, { SERVER_SCAN_DELAY: 0, PLEX_LOCAL_URL: plex.url, PLEX_TOKEN: plex.token });
    plex.requests.length = 0;
    const server = await startServer({ dir, config, queuefile, loglevel: 'INFO' });
    const deadline = Date.now() + Math.max(120_000, (FOLDERS / 500) * 1000 * 1.5);
    let done = 0;
    let lastLog = Date.now();
    while (Date.now() < deadline) {
      done = plex.requests.reduce((a, r) => a + (r.path.endsWith('/refresh') ? 1 : 0), 0);
      if (done >= FOLDERS) break;
      if (Date.now() - lastLog > 15_000) {
        log(`drain: ${done} of ${FOLDERS} refreshed`);
        lastLog = Date.now();
      }
      await sleep(500);
    }
    await server.stop();
    const times = refreshTimes(plex).sort((a, b) => a - b);
    const took = (times[times.length - 1] - times[0]) / 1000;
    const chunk = Math.max(1, Math.floor(FOLDERS / 10));
    const rates: number[] = [];
    for (let i = chunk; i < times.length; i += chunk) rates.push(chunk / Math.max(0.001, (times[i] - times[i - chunk]) / 1000));
    return { rate: times.length / took, chunkMedian: median(rates), took, done: times.length };
  } finally {
    cleanup(dir);
  }
}

async function pauseKept(plex: FakePlex): Promise<{ minGapMs: number; medianGapMs: number; done: number }> {
  const dir = tempDir('pause');
  try {
    const queuefile = join(dir, 'queue.db');
    prefillQueue(queuefile, PAUSE_FOLDERS, { delayMs: 0 });
    const files = Array.from({ length: PAUSE_FOLDERS }, (_, i) => prefilledFile(i));
    createMediaFiles(dir, files);
    for (const f of files) plex.onDisk.add(f);
    const config = writeConfig(dir, { SERVER_SCAN_DELAY: 0, PLEX_LOCAL_URL: plex.url, PLEX_TOKEN: plex.token, PLEX_SCAN_PAUSE: PAUSE_S });
    plex.requests.length = 0;
    const server = await startServer({ dir, config, queuefile });
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline && refreshTimes(plex).length < PAUSE_FOLDERS) await sleep(50);
    await server.stop();
    const times = refreshTimes(plex).sort((a, b) => a - b);
    const gaps = times.slice(1).map((t, i) => t - times[i]);
    return { minGapMs: Math.min(...gaps), medianGapMs: median(gaps), done: times.length };
  } finally {
    cleanup(dir);
  }
}

export async function run(): Promise<Figure[]> {
  const plex = await new FakePlex({ sections }).start();
  plex.latencyMs = LATENCY_MS;
  // Small season folders: Plex is done with each before anyone polls (the follow-up confirms by evidence).
  plex.scanPolls = 0;
  // As a real Plex: its notification socket tells each scan's end, so the PLEX_MAX_OUTSTANDING cap frees a place
  // per scan. Without it the follower polls /activities and the cap lets about 8 scans out a second (a finding).
  attachPlexNotifications(plex);
  try {
    const base1 = await baseline(plex, 5_000);
    const d = await drain(plex);
    const base2 = await baseline(plex, 5_000);
    const base = median([base1, base2]);
    log(`drain: ${d.done} folders in ${d.took.toFixed(1)} s = ${Math.round(d.rate)}/s (median of 10 chunks ${Math.round(d.chunkMedian)}/s); plain client ${Math.round(base1)}/s, ${Math.round(base2)}/s`);
    plex.latencyMs = LATENCY_MS;
    const p = await pauseKept(plex);
    log(`pause ${PAUSE_S * 1000} ms: ${p.done} scans, gaps min ${p.minGapMs} ms, median ${p.medianGapMs} ms`);
    const rate = d.chunkMedian;
    const complete = d.done >= FOLDERS;
    return [
      {
        id: '5',
        name: `drain: 100,000 folders to a fake Plex answering in 5 ms, delay 0: folders/s (median of 10 chunks; overall ${Math.round(d.rate)}/s, ${d.done} done)`,
        value: rate,
        unit: 'folders/s',
        baseline: { label: `plain client, ${CONCURRENCY} concurrent, same Plex`, value: base },
        ratio: rate / base,
        target: '>= 500/s',
        pass: complete && rate >= 500,
        note: !complete ? `only ${d.done} of ${FOLDERS} drained in time` : rate >= 500 ? undefined : 'below 500/s',
      },
      {
        id: '5',
        name: `drain: PLEX_SCAN_PAUSE ${PAUSE_S} s kept between scans: smallest gap (median ${p.medianGapMs} ms, ${p.done} scans)`,
        value: p.minGapMs,
        unit: 'ms',
        baseline: { label: 'configured pause', value: PAUSE_S * 1000 },
        ratio: p.minGapMs / (PAUSE_S * 1000),
        target: `every gap >= ${PAUSE_S * 1000} ms`,
        pass: p.done === PAUSE_FOLDERS && p.minGapMs >= PAUSE_S * 1000,
        note: p.done < PAUSE_FOLDERS ? `only ${p.done} of ${PAUSE_FOLDERS} scanned` : p.minGapMs >= PAUSE_S * 1000 ? undefined : 'a gap shorter than the pause',
      },
    ];
  } finally {
    await plex.stop();
  }
}

await standalone(import.meta.url, run);
