// Benchmark 4 — memory: peak RSS (VmHWM) of the server process, idle and with 100,000 folders queued, measured
// in the child process so the harness does not count. Baseline: a bare Node http server process, same run.
import { join } from 'node:path';
import { FakePlex } from '../test/fakes/plex.js';
import { cleanup, createMediaFiles, log, median, peakRssMb, prefilledFile, prefillQueue, SECRET, sleep, standalone, startBare, startServer, tempDir, writeConfig, type Figure } from './support.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const FOLDERS = 100_000;

/** Exercises the server a little (health, API, a few webhooks) so the figure is not a cold process. */
async function exercise(url: string): Promise<void> {
  for (let i = 0; i < 20; i++) {
    await (await fetch(`${url}/health`)).arrayBuffer();
    await (await fetch(`${url}/api/${SECRET}?cmd=queue_count`)).arrayBuffer();
  }
}

async function measure(queued: number, plexUrl: string, token: string, dispatching: boolean): Promise<number> {
  const dir = tempDir('mem');
  try {
    const queuefile = join(dir, 'queue.db');
    // Waiting: a long delay keeps all of them queued. Dispatching: delay 0 and a Plex that refuses everything,
    // so the processor works through all of them and they stay queued with pending deliveries.
    const delay = dispatching ? 0 : 3600;
    if (queued) prefillQueue(queuefile, queued, { delayMs: delay * 1000 });
    // Dispatching: every file is there, so all of them pass the default file check and reach the refusing Plex.
    if (queued && dispatching) createMediaFiles(dir, Array.from({ length: queued }, (_, i) => prefilledFile(i)));
    const config = writeConfig(dir, { SERVER_SCAN_DELAY: delay, PLEX_LOCAL_URL: plexUrl, PLEX_TOKEN: token });
    const server = await startServer({ dir, config, queuefile });
    await exercise(server.url);
    await sleep(dispatching ? 5_000 : 1_000);
    await exercise(server.url);
    const mb = peakRssMb(server.pid);
    await server.stop();
    return mb;
  } finally {
    cleanup(dir);
  }
}

export async function run(): Promise<Figure[]> {
  const plex = await new FakePlex({ sections: [{ key: '2', title: 'TV', type: 'show', locations: ['/data/media/tv'] }] }).start();
  plex.failure = { status: 503 };
  const bare: number[] = [];
  const idle: number[] = [];
  const full: number[] = [];
  const busy: number[] = [];
  try {
    for (let r = 0; r < ROUNDS; r++) {
      const b = await startBare();
      for (let i = 0; i < 20; i++) await (await fetch(b.url)).arrayBuffer();
      bare.push(peakRssMb(b.pid));
      await b.stop();
      idle.push(await measure(0, plex.url, plex.token, false));
      full.push(await measure(FOLDERS, plex.url, plex.token, false));
      busy.push(await measure(FOLDERS, plex.url, plex.token, true));
      log(`memory round ${r + 1}/${ROUNDS}: bare ${bare[r].toFixed(1)} MB, idle ${idle[r].toFixed(1)} MB, 100k waiting ${full[r].toFixed(1)} MB, 100k dispatching to a refusing Plex ${busy[r].toFixed(1)} MB`);
    }
  } finally {
    await plex.stop();
  }
  const base = median(bare);
  const fig = (name: string, values: number[], limit: number): Figure => {
    const v = median(values);
    return {
      id: '4',
      name: `${name} (median of ${values.length})`,
      value: v,
      unit: 'MB',
      baseline: { label: 'bare Node http process', value: base },
      ratio: v / base,
      target: `< ${limit} MB`,
      pass: v < limit,
      note: v < limit ? undefined : 'peak RSS over target',
    };
  };
  return [
    fig('memory: peak RSS idle', idle, 100),
    fig('memory: peak RSS with 100,000 folders queued (waiting)', full, 250),
    fig('memory: peak RSS with 100,000 folders queued (all due, Plex refusing)', busy, 250),
  ];
}

await standalone(import.meta.url, run);
