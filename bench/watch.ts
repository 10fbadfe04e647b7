// Benchmark — WATCH over a tree of 1,000,000 files (empty files in a temporary folder): the server's peak RSS
// with the inotify backend and with the poll backend, against the same server without WATCH, and the latency of
// /health and of a webhook while a poll walks the tree, against the same process between polls.
// Run: node --import tsx bench/watch.ts (BENCH_WATCH_FILES=100000 for a smaller tree).
import { closeSync, mkdirSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { FakePlex } from '../test/fakes/plex.js';
import { until } from '../test/support/until.js';
import { cleanup, log, median, peakRssMb, SECRET, sleep, sonarrDownload, standalone, startServer, tempDir, writeConfig, type Figure, type ServerChild } from './support.js';

const FILES = Number(process.env.BENCH_WATCH_FILES ?? 1_000_000);
const PER_SEASON = 100;
const SEASONS = 10;
const SAMPLE_MS = Number(process.env.BENCH_WATCH_SAMPLE_MS ?? 20_000);

/** shows × 10 seasons × 100 files: the shape of a large TV library. */
function buildTree(root: string): { folders: number; files: number } {
  const shows = Math.ceil(FILES / (SEASONS * PER_SEASON));
  let files = 0;
  let folders = 1;
  for (let s = 0; s < shows && files < FILES; s++) {
    for (let n = 1; n <= SEASONS && files < FILES; n++) {
      const season = join(root, `Show ${s}`, `Season ${String(n).padStart(2, '0')}`);
      mkdirSync(season, { recursive: true });
      folders += n === 1 ? 2 : 1;
      for (let e = 1; e <= PER_SEASON && files < FILES; e++, files++) closeSync(openSync(join(season, `Show ${s} - S${n}E${e}.mkv`), 'w'));
    }
  }
  return { folders, files };
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor(p * s.length))] : NaN;
};

async function timed(fn: () => Promise<Response>): Promise<{ ms: number; res: Response }> {
  const t0 = performance.now();
  const res = await fn();
  await res.arrayBuffer().catch(() => undefined);
  return { ms: performance.now() - t0, res };
}

async function waitFor(server: ServerChild, re: RegExp, timeoutMs: number): Promise<RegExpMatchArray> {
  let m: RegExpExecArray | null = null;
  await until(() => (m = re.exec(server.tail())) !== null, { ms: timeoutMs, every: 200, what: () => `no ${re}:\n${server.tail()}` });
  return m!;
}

export async function run(): Promise<Figure[]> {
  const plex = await new FakePlex({ sections: [{ key: '2', title: 'TV', type: 'show', locations: ['/data/media/tv'] }] }).start();
  const treeDir = tempDir('watch-tree');
  const figures: Figure[] = [];
  try {
    const started = Date.now();
    const tree = buildTree(join(treeDir, 'tv'));
    log(`tree: ${tree.files} files in ${tree.folders} folders, built in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    const base = { SERVER_SCAN_DELAY: 3600, PLEX_LOCAL_URL: plex.url, PLEX_TOKEN: plex.token };
    const watchEntry = (backend: string) => ({ PATH: join(treeDir, 'tv'), BACKEND: backend, REWRITE: { '/data/media/tv/': [`${join(treeDir, 'tv')}/`] } });

    const rss = async (label: string, extra: Record<string, unknown>, ready?: RegExp): Promise<{ mb: number; server: ServerChild; dir: string; note?: string }> => {
      const dir = tempDir(`watch-${label}`);
      const server = await startServer({ dir, config: writeConfig(dir, { ...base, ...extra }), queuefile: join(dir, 'queue.db'), console: 'file' });
      const note = ready ? (await waitFor(server, ready, 15 * 60_000))[0] : undefined;
      for (let i = 0; i < 20; i++) await timed(() => fetch(`${server.url}/health`));
      return { mb: peakRssMb(server.pid), server, dir, note };
    };

    const bare = await rss('none', {});
    await bare.server.stop();
    cleanup(bare.dir);
    log(`server without WATCH: ${bare.mb.toFixed(1)} MB`);

    const inotify = await rss('inotify', { WATCH: { PATHS: [watchEntry('inotify')] } }, /Watching (\d+) folder\(s\)[^"]*/);
    log(`inotify: ${inotify.mb.toFixed(1)} MB (${inotify.note})`);
    await inotify.server.stop();
    cleanup(inotify.dir);
    figures.push({
      id: 'W1',
      name: `peak RSS, WATCH inotify over ${tree.files.toLocaleString('en-US')} files (${tree.folders.toLocaleString('en-US')} folders)`,
      value: inotify.mb,
      unit: 'MB',
      baseline: { label: 'same server, no WATCH', value: bare.mb },
      ratio: inotify.mb / bare.mb,
      target: 'states the cost (one watch per folder)',
      pass: true,
    });

    const poll = await rss('poll', { WATCH: { POLL_INTERVAL: 3, PATHS: [watchEntry('poll')] } }, /first walk (\d+) ms/);
    const firstWalkMs = Number(/first walk (\d+) ms/.exec(poll.note ?? '')?.[1]);
    log(`poll: ${poll.mb.toFixed(1)} MB, first walk ${firstWalkMs} ms`);
    figures.push({
      id: 'W2',
      name: `peak RSS, WATCH poll over ${tree.files.toLocaleString('en-US')} files`,
      value: poll.mb,
      unit: 'MB',
      baseline: { label: 'same server, no WATCH', value: bare.mb },
      ratio: poll.mb / bare.mb,
      target: 'states the cost (one number per folder)',
      pass: true,
    });
    figures.push({ id: 'W3', name: 'one poll: walk and stat the whole tree', value: firstWalkMs / 1000, unit: 's', target: 'states the time', pass: true });

    // Interleaved webhook and /health; each pair is classed by whether /health said a walk was running.
    const during = { health: [] as number[], hook: [] as number[] };
    const between = { health: [] as number[], hook: [] as number[] };
    const until = Date.now() + SAMPLE_MS;
    for (let i = 0; Date.now() < until; i++) {
      const hook = await timed(() => fetch(`${poll.server.url}/${SECRET}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: sonarrDownload(`Bench ${i}`) }));
      // One /health timed and read, then a pause: the public routes take 10 a second from one client (more is 429).
      const t0 = performance.now();
      const body = (await (await fetch(`${poll.server.url}/health`)).json()) as { watch?: { paths?: { polling?: boolean }[] } };
      const healthMs = performance.now() - t0;
      const side = body.watch?.paths?.[0]?.polling ? during : between;
      side.hook.push(hook.ms);
      side.health.push(healthMs);
      await sleep(100);
    }
    const finalMb = peakRssMb(poll.server.pid);
    await poll.server.stop();
    cleanup(poll.dir);
    log(`samples: ${during.hook.length} during a poll, ${between.hook.length} between polls; peak RSS after sampling ${finalMb.toFixed(1)} MB`);
    for (const [id, what, key] of [['W4', '/health', 'health'], ['W5', 'webhook (POST, committed)', 'hook']] as const) {
      const d = during[key];
      const b = between[key];
      figures.push({
        id: `${id}a`,
        name: `${what} latency p50 during a poll (n=${d.length})`,
        value: median(d),
        unit: 'ms',
        baseline: { label: `between polls, same process, n=${b.length}`, value: median(b) },
        ratio: median(d) / median(b),
        target: 'not starved',
        pass: median(d) < 10 * Math.max(1, median(b)),
      });
      figures.push({
        id: `${id}b`,
        name: `${what} latency p99 during a poll`,
        value: pct(d, 0.99),
        unit: 'ms',
        baseline: { label: 'between polls', value: pct(b, 0.99) },
        ratio: pct(d, 0.99) / pct(b, 0.99),
        target: 'not starved',
        pass: pct(d, 0.99) < 1000,
      });
    }
    return figures;
  } finally {
    await plex.stop();
    cleanup(treeDir);
  }
}

await standalone(import.meta.url, run);
