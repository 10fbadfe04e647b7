// Benchmark 15 — a week down, caught up from Sonarr's history: the relay (the bundle, as users run it) first meets a
// fake Sonarr, is stopped, and its cursor put back a week (the queue file's arr_cursors row, as a week down leaves
// it); Sonarr's history meanwhile holds 10,000 events (8,500 imports of 850 season packs, 300 upgrades, 600 renames,
// 300 deleted files). Started again, it reads and queues them. Figures: the time from its first request to Sonarr to
// the last event handed on, its peak RSS, and the folders queued against those the same events queue as webhooks
// (9,700 of them, 16 at a time, to a fresh relay: the baseline run, its time and peak RSS beside); and the slowest
// /health answer while it caught up, since webhooks must never wait on it.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { ManualClock } from '../src/clock.js';
import Database from '../src/sqlite/binding.js';
import { Queue } from '../src/queue/store.js';
import { FakeArrApp } from '../test/fakes/arr-app.js';
import { cleanup, log, peakRssMb, SECRET, standalone, startServer, tempDir, type Figure, type ServerChild } from './support.js';
import { writeConfigFile } from '../test/support/config-file.js';
import { until } from '../test/support/until.js';

const API_KEY = 'bench-arr-key-0f3e8a1c5b7d';
const WEEK = 7 * 24 * 3_600_000;
const SHOWS = 170;
const SEASONS = 5;
const EPISODES = 10;

interface Event {
  record: Record<string, unknown>;
  webhook?: Record<string, unknown>;
}

const e2 = (n: number) => String(n).padStart(2, '0');
const seasonDir = (show: number, season: number, name = `Show ${show}`) => `/tv/${name}/Season ${e2(season)}`;
const episodeFile = (show: number, season: number, ep: number, tail = 'WEBDL-1080p') => `${seasonDir(show, season)}/Show ${show} - S${e2(season)}E${e2(ep)} - ${tail}.mkv`;

/** The week's history, in the order it happened, with the webhook each event (or pair) would have sent. */
function week(): Event[] {
  const out: Event[] = [];
  let id = 1;
  const series = (show: number) => ({ path: `/tv/Show ${show}`, title: `Show ${show}`, tvdbId: 300_000 + show });
  const episodeId = (show: number, season: number, ep: number) => show * 1000 + season * 100 + ep;
  for (let show = 0; show < SHOWS; show++) {
    for (let season = 1; season <= SEASONS; season++) {
      for (let ep = 1; ep <= EPISODES; ep++) {
        const path = episodeFile(show, season, ep);
        out.push({
          record: { episodeId: episodeId(show, season, ep), seriesId: show + 1, sourceTitle: `Show.${show}.S${e2(season)}.1080p.WEB`, downloadId: `pack-${show}-${season}`, eventType: 'downloadFolderImported', data: { fileId: String(id), droppedPath: `/downloads/pack-${show}-${season}/e${ep}.mkv`, importedPath: path }, id: id++ },
          webhook: { eventType: 'Download', series: series(show), episodeFile: { path }, isUpgrade: false },
        });
      }
    }
  }
  const seasonOf = (k: number) => [k % SHOWS, 1 + Math.floor(k / SHOWS)] as const;
  for (let k = 0; k < 300; k++) {
    const [show, season] = seasonOf(k);
    const old = episodeFile(show, season, 1, 'WEBDL-720p');
    const path = episodeFile(show, season, 1, 'Bluray-1080p');
    out.push({ record: { episodeId: episodeId(show, season, 1), seriesId: show + 1, sourceTitle: old, eventType: 'episodeFileDeleted', data: { reason: 'Upgrade' }, id: id++ } });
    out.push({
      record: { episodeId: episodeId(show, season, 1), seriesId: show + 1, sourceTitle: `Show.${show}.Bluray`, downloadId: `up-${k}`, eventType: 'downloadFolderImported', data: { importedPath: path }, id: id++ },
      webhook: { eventType: 'Download', series: series(show), episodeFile: { path }, isUpgrade: true, deletedFiles: [{ path: old }] },
    });
  }
  for (let k = 0; k < 600; k++) {
    const [show, season] = seasonOf(k + 100);
    const path = episodeFile(show, season, 2);
    // The last hundred come from folders the series had before it was renamed: their old folder is scanned too.
    const previousPath = k < 500 ? `${seasonDir(show, season)}/show.${show}.s${e2(season)}e02.mkv` : `${seasonDir(show, season, `Old Show ${show}`)}/Show ${show} - S${e2(season)}E02.mkv`;
    out.push({
      record: { episodeId: episodeId(show, season, 2), seriesId: show + 1, sourceTitle: previousPath, eventType: 'episodeFileRenamed', data: { sourcePath: previousPath, path }, id: id++ },
      webhook: { eventType: 'Rename', series: series(show), renamedEpisodeFiles: [{ previousPath, path }] },
    });
  }
  for (let k = 0; k < 300; k++) {
    const [show, season] = seasonOf(k + 400);
    const path = episodeFile(show, season, 3);
    out.push({
      record: { episodeId: episodeId(show, season, 3), seriesId: show + 1, sourceTitle: path, eventType: 'episodeFileDeleted', data: { reason: 'Manual' }, id: id++ },
      webhook: { eventType: 'EpisodeFileDelete', series: series(show), episodeFile: { path } },
    });
  }
  return out;
}

const queuedFolders = (file: string): string[] => {
  const q = new Queue(file, new ManualClock(), { delayMs: 0 });
  try {
    return q.list(1_000_000).map((f) => f.folder).sort();
  } finally {
    q.close();
  }
};

/** The relay's config: no media server (nothing drains: what was queued is what is counted), Sonarr's paths mapped. */
const config = (dir: string, sonarr?: FakeArrApp) =>
  writeConfigFile(dir, {
    SERVER_PASS: SECRET,
    SERVER_IP: '127.0.0.1',
    PLEX_ENABLED: false,
    SERVER_MAX_FILE_CHECKS: 0,
    SERVER_PATH_MAPPINGS: { '/data/media/tv/': ['/tv/'] },
    ...(sonarr ? { ARR: [{ NAME: 'sonarr', TYPE: 'sonarr', URL: sonarr.url, API_KEY }] } : {}),
  });

/** `slowest`: the longest /health took to answer while it caught up (it is polled every 20 ms). */
async function caughtUp(events: Event[]): Promise<{ ms: number; peakMb: number; slowest: number; folders: string[] }> {
  const dir = tempDir('catch-up');
  const sonarr = await new FakeArrApp('sonarr', API_KEY).start();
  for (let show = 0; show < SHOWS; show++) sonarr.owners.set(show + 1, { id: show + 1, title: `Show ${show}`, tvdbId: 300_000 + show });
  const queuefile = join(dir, 'queue.db');
  const cfg = config(dir, sonarr);
  mkdirSync(join(dir, 'again'));
  let server: ServerChild | undefined;
  try {
    server = await startServer({ dir, config: cfg, queuefile, console: 'file' });
    await until(() => sonarr.requests.some((r) => r.path.endsWith('/system/status')), { ms: 30_000, what: 'the first contact' });
    await until(async () => ((await (await fetch(`${server!.url}/health`)).json()) as { arr: { state: string }[] }).arr[0].state === 'up');
    await server.stop();
    // A week down: the cursor as the last catch-up before it left it, and the week's events in Sonarr's history.
    const start = Date.now() - WEEK;
    const db = new Database(queuefile);
    db.prepare('UPDATE arr_cursors SET cursor_at = ?, seen = ? WHERE app = ?').run(start, '[]', 'sonarr');
    db.close();
    events.forEach((e, i) => sonarr.write(e.record, start + Math.round(((i + 1) * (WEEK - 60_000)) / events.length)));
    sonarr.requests.length = 0;
    // A console file of its own: the first run's holds the first URL.
    server = await startServer({ dir: join(dir, 'again'), config: cfg, queuefile, console: 'file' });
    await until(() => sonarr.requests.length > 0, { ms: 30_000 });
    const first = Date.now();
    let caught = 0;
    let slowest = 0;
    await until(
      async () => {
        const t = performance.now();
        caught = ((await (await fetch(`${server!.url}/health`)).json()) as { arr: { caughtUp: number }[] }).arr[0].caughtUp;
        slowest = Math.max(slowest, performance.now() - t);
        return caught === events.length;
      },
      { ms: 300_000, every: 20, what: () => `${caught} of ${events.length} caught up` },
    );
    const ms = Date.now() - first;
    const peakMb = peakRssMb(server.pid);
    await server.stop();
    return { ms, peakMb, slowest, folders: queuedFolders(queuefile) };
  } finally {
    await server?.stop();
    await sonarr.stop();
    cleanup(dir);
  }
}

async function asWebhooks(events: Event[]): Promise<{ ms: number; peakMb: number; folders: string[]; sent: number }> {
  const dir = tempDir('catch-up-webhooks');
  const queuefile = join(dir, 'queue.db');
  const server = await startServer({ dir, config: config(dir), queuefile, console: 'file' });
  try {
    const bodies = events.flatMap((e) => (e.webhook ? [JSON.stringify(e.webhook)] : []));
    const t0 = Date.now();
    let next = 0;
    const worker = async () => {
      while (next < bodies.length) {
        const body = bodies[next++];
        const res = await fetch(`${server.url}/${SECRET}`, { method: 'POST', headers: { 'content-type': 'application/json', 'user-agent': 'Sonarr/4.0.14.2939' }, body });
        if (!res.ok) throw new Error(`a webhook was answered ${res.status}: ${await res.text()}`);
        await res.arrayBuffer();
      }
    };
    await Promise.all(Array.from({ length: 16 }, worker));
    const ms = Date.now() - t0;
    const peakMb = peakRssMb(server.pid);
    await server.stop();
    return { ms, peakMb, folders: queuedFolders(queuefile), sent: bodies.length };
  } finally {
    await server.stop();
    cleanup(dir);
  }
}

export async function run(): Promise<Figure[]> {
  const events = week();
  const history = await caughtUp(events);
  const webhooks = await asWebhooks(events);
  const same = new Set(webhooks.folders);
  const differ = history.folders.filter((f) => !same.has(f)).length + webhooks.folders.filter((f) => !new Set(history.folders).has(f)).length;
  log(`catch-up: ${events.length} events in ${history.ms} ms, peak ${history.peakMb.toFixed(0)} MB, ${history.folders.length} folders; as ${webhooks.sent} webhooks: ${webhooks.ms} ms, peak ${webhooks.peakMb.toFixed(0)} MB, ${webhooks.folders.length} folders`);
  return [
    {
      id: '14a',
      name: `catch-up: ${events.length.toLocaleString('en-US')} history events of a week down, read and queued`,
      value: history.ms / 1000,
      unit: 's',
      baseline: { label: `the same events as ${webhooks.sent.toLocaleString('en-US')} webhooks, 16 at a time`, value: webhooks.ms / 1000 },
      ratio: history.ms / webhooks.ms,
      target: '≤ 30 s',
      pass: history.ms <= 30_000,
      note: `the slowest /health meanwhile ${history.slowest.toFixed(0)} ms`,
    },
    {
      id: '14b',
      name: 'catch-up: peak RSS of the relay through it (start included)',
      value: history.peakMb,
      unit: 'MB',
      baseline: { label: 'the webhooks run', value: webhooks.peakMb },
      ratio: history.peakMb / webhooks.peakMb,
      target: '≤ 150 MB',
      pass: history.peakMb <= 150,
    },
    {
      id: '14c',
      name: 'catch-up: folders queued unlike the webhooks of the same events',
      value: differ,
      unit: '',
      baseline: { label: 'folders the webhooks queued', value: webhooks.folders.length },
      target: '0',
      pass: differ === 0 && history.folders.length === webhooks.folders.length,
      note: `${history.folders.length} folders queued from the history, ${webhooks.folders.length} from the webhooks`,
    },
  ];
}

await standalone(import.meta.url, run);
