// Benchmark 6 — start-up: from launch (spawn) to the first 200 from /health, with 100,000 folders queued.
// Baselines (same run): the same server with an empty queue, and a bare Node http server process.
// BENCH_STARTUP_AGAINST=<another build's scanrelay.mjs> also launches that build with the same 100,000 queued, in
// turn with this one (the order alternating each round), and logs both medians: is start-up worse than before?
// BENCH_STARTUP_NODE=<node binary> runs both on another Node. BENCH_STARTUP_AGAINST_FLAGS: Node flags added after
// the launchers' for the other build only (a build from before a flag was added or dropped runs as its own
// launchers ran it).
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { FakePlex } from '../test/fakes/plex.js';
import { freePort } from '../test/support/net.js';
import { cleanup, log, median, prefillQueue, spawnServer, standalone, startBare, tempDir, waitHealth, writeConfig, type Figure } from './support.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const FOLDERS = 100_000;

const AGAINST = process.env.BENCH_STARTUP_AGAINST;
const NODE = process.env.BENCH_STARTUP_NODE;
const AGAINST_FLAGS = process.env.BENCH_STARTUP_AGAINST_FLAGS?.split(' ').filter(Boolean);

async function launch(dir: string, queuefile: string, plex: FakePlex, cli?: string): Promise<number> {
  const port = await freePort();
  const config = writeConfig(dir, { SERVER_SCAN_DELAY: 3600, PLEX_LOCAL_URL: plex.url, PLEX_TOKEN: plex.token });
  const started = Date.now();
  const { proc, ready } = spawnServer({ dir, config, queuefile, port, cli, node: NODE, nodeArgs: cli ? AGAINST_FLAGS : undefined });
  ready.catch(() => undefined);
  const at = await waitHealth(`http://127.0.0.1:${port}`, 30_000, 2);
  const child = await ready;
  await child.stop();
  void proc;
  return at - started;
}

async function bareStartup(): Promise<number> {
  const port = await freePort();
  const started = Date.now();
  const b = startBare(port, undefined, NODE);
  const at = await waitHealth(`http://127.0.0.1:${port}`, 30_000, 2);
  await (await b).stop();
  return at - started;
}

export async function run(): Promise<Figure[]> {
  const plex = await new FakePlex({ sections: [{ key: '2', title: 'TV', type: 'show', locations: ['/data/media/tv'] }] }).start();
  const dir = tempDir('startup');
  const full: number[] = [];
  const empty: number[] = [];
  const bare: number[] = [];
  const against: number[] = [];
  try {
    const template = join(dir, 'template.db');
    prefillQueue(template, FOLDERS, { delayMs: 3600_000 });
    for (let r = 0; r < ROUNDS; r++) {
      bare.push(await bareStartup());
      const emptyFile = join(dir, `empty-${r}.db`);
      empty.push(await launch(dir, emptyFile, plex));
      const queued = async (cli?: string): Promise<number> => {
        const file = join(dir, `full-${r}${cli ? '-against' : ''}.db`);
        copyFileSync(template, file);
        return launch(dir, file, plex, cli);
      };
      // The other build first every other round, so neither always goes first.
      if (AGAINST && r % 2 === 1) against.push(await queued(AGAINST));
      full.push(await queued());
      if (AGAINST && r % 2 === 0) against.push(await queued(AGAINST));
      log(`start-up round ${r + 1}/${ROUNDS}: bare node ${bare[r]} ms, empty queue ${empty[r]} ms, 100,000 queued ${full[r]} ms${AGAINST ? `, the other build ${against[r]} ms` : ''}`);
    }
    if (AGAINST) log(`start-up with 100,000 queued, median of ${ROUNDS}: this build ${median(full)} ms, ${AGAINST} ${median(against)} ms`);
  } finally {
    await plex.stop();
    cleanup(dir);
  }
  const v = median(full);
  const e = median(empty);
  const b = median(bare);
  return [
    {
      id: '6',
      name: `start-up: launch to /health 200 with 100,000 queued (median of ${full.length}; empty queue ${Math.round(e)} ms)`,
      value: v,
      unit: 'ms',
      baseline: { label: 'bare Node http process', value: b },
      ratio: v / b,
      target: '< 1,000 ms',
      pass: v < 1000,
      note: v < 1000 ? undefined : `${Math.round(e)} ms of it with an empty queue: module loading on a shared 2-core machine`,
    },
  ];
}

await standalone(import.meta.url, run);
