// WATCH: a file written under a watched folder becomes one Plex refresh of its folder, through the same intake
// and queue as a webhook: after DEBOUNCE and SERVER_SCAN_DELAY with inotify, after one poll with the poll backend.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import type { Config } from '../../src/config/schema.js';
import { createLogger } from '../../src/log/logger.js';
import { FolderDebounce, type Scheduler } from '../../src/watch/debounce.js';
import { PathFilter } from '../../src/watch/filter.js';
import { checkWatchLimit, readMaxUserWatches } from '../../src/watch/limits.js';
import { testService, type TestService } from '../support/service.js';

const DELAY_S = 120;
let t: TestService | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

/** A watched tree whose files Plex sees under /data/media/tv (REWRITE turns the local path into Plex's). */
async function watched(entry: Record<string, unknown>, debounce = 0.3): Promise<{ t: TestService; root: string }> {
  const root = mkdtempSync(join(tmpdir(), 'scanrelay-watch-'));
  mkdirSync(join(root, 'Show', 'Season 01'), { recursive: true });
  writeFileSync(join(root, 'Show', 'Season 01', 'e1.mkv'), '');
  t = await testService({
    config: {
      SERVER_SCAN_DELAY: DELAY_S,
      PLEX_CONFIRM_SCANS: false,
      PLEX_ANALYZE_TYPE: 'off',
      WATCH: { DEBOUNCE: debounce, POLL_INTERVAL: 3600, PATHS: [{ PATH: root, INCLUDE: [], EXCLUDE: ['\\.partial$'], RECURSIVE: true, BACKEND: 'inotify', REWRITE: { '/data/media/tv/': [`${root}/`] }, ...entry }] },
    } as Partial<Config>,
  });
  await t.service.watch!.start();
  return { t, root };
}

const rows = (s: TestService) => s.service.queue.list().map((r) => ({ folder: r.folder, requests: r.requests, source: r.source, deleted: r.allDeleted }));

async function runDelay(s: TestService, ms: number): Promise<void> {
  s.clock.advance(ms);
  await s.service.processor.drain();
}

describe('WATCH with inotify', () => {
  it('a file written under a watched local folder becomes one Plex refresh of its folder within debounce + scan delay', async () => {
    const { t, root } = await watched({});
    const season = join(root, 'Show', 'Season 01');
    // A burst inside the quiet period: one request for the folder, not four.
    for (const name of ['e2.mkv', 'e2.srt', 'e3.mkv', 'e3.partial']) writeFileSync(join(season, name), 'x');
    await expect.poll(() => rows(t), { timeout: 10_000 }).toEqual([{ folder: '/data/media/tv/Show/Season 01', requests: 1, source: 'watch', deleted: false }]);
    await runDelay(t, DELAY_S * 1000 - 1);
    expect(t.plex.refreshes).toEqual([]);
    await runDelay(t, 1);
    expect(t.plex.refreshes).toEqual([{ section: '2', path: '/data/media/tv/Show/Season 01' }]);
    // Counted like a webhook, under its own source.
    const metrics = (await t.service.app.inject({ method: 'GET', url: '/metrics' })).body;
    expect(metrics).toMatch(/scanrelay_requests_total\{source="watch",event="Changed",outcome="queued"\} 1/);
  });

  it('new folders are watched as they appear (and files already in them are seen); a removed folder is queued as deleted', async () => {
    const { t, root } = await watched({});
    mkdirSync(join(root, 'Show', 'Season 02', 'Extras'), { recursive: true });
    writeFileSync(join(root, 'Show', 'Season 02', 'Extras', 'x.mkv'), '');
    await expect.poll(() => rows(t).map((r) => r.folder), { timeout: 10_000 }).toContain('/data/media/tv/Show/Season 02/Extras');
    // The new folder is watched now: a later file in it is seen too.
    writeFileSync(join(root, 'Show', 'Season 02', 'e1.mkv'), '');
    await expect.poll(() => rows(t).map((r) => r.folder), { timeout: 10_000 }).toContain('/data/media/tv/Show/Season 02');
    rmSync(join(root, 'Show', 'Season 01'), { recursive: true });
    await expect.poll(() => rows(t).find((r) => r.folder === '/data/media/tv/Show/Season 01'), { timeout: 10_000 }).toMatchObject({ deleted: true });
  });

  it('INCLUDE and EXCLUDE decide which files count; a missing root is logged, not fatal', async () => {
    const { t, root } = await watched({ INCLUDE: ['\\.mkv$'] });
    writeFileSync(join(root, 'Show', 'Season 01', 'notes.txt'), 'x');
    writeFileSync(join(root, 'Show', 'Season 01', 'e9.partial'), 'x');
    await new Promise((r) => setTimeout(r, 800));
    expect(rows(t)).toEqual([]);
    await t.close();
    const logs: string[] = [];
    const again = await testService({ config: { WATCH: { DEBOUNCE: 0, POLL_INTERVAL: 60, PATHS: [{ PATH: join(root, 'nope'), INCLUDE: [], EXCLUDE: [], RECURSIVE: true, BACKEND: 'inotify', REWRITE: {} }] } } as Partial<Config> });
    await again.service.watch!.start();
    logs.push(...again.logs);
    expect(logs.join('')).toContain("cannot be read (ENOENT)");
    await again.close();
  });
});

describe('WATCH with the poll backend', () => {
  it('a change is queued by the next poll (so within one poll interval), without waiting for DEBOUNCE', async () => {
    const { t, root } = await watched({ BACKEND: 'poll' }, 3600);
    writeFileSync(join(root, 'Show', 'Season 01', 'e1.mkv'), 'rewritten in place, same name');
    writeFileSync(join(root, 'Show', 'e0.mkv'), '');
    await t.service.watch!.pollNow();
    await expect.poll(() => rows(t).map((r) => r.folder).sort(), { timeout: 5_000 }).toEqual(['/data/media/tv/Show', '/data/media/tv/Show/Season 01']);
    await runDelay(t, DELAY_S * 1000);
    expect(t.plex.refreshes.map((r) => r.path).sort()).toEqual(['/data/media/tv/Show', '/data/media/tv/Show/Season 01']);
    // Nothing changed since: the next poll queues nothing new.
    await t.service.watch!.pollNow();
    await new Promise((r) => setImmediate(r));
    expect(rows(t)).toEqual([]);
  });

  it('RECURSIVE false: only the folder itself counts, not the folders below it', async () => {
    const { t, root } = await watched({ BACKEND: 'poll', RECURSIVE: false });
    writeFileSync(join(root, 'Show', 'Season 01', 'e7.mkv'), '');
    writeFileSync(join(root, 'top.mkv'), '');
    await t.service.watch!.pollNow();
    await expect.poll(() => rows(t).map((r) => r.folder), { timeout: 5_000 }).toEqual(['/data/media/tv']);
  });

  it('polls on its own every POLL_INTERVAL', async () => {
    const { t, root } = await watched({ BACKEND: 'poll', POLL_INTERVAL: 0.2 });
    writeFileSync(join(root, 'Show', 'Season 01', 'e5.mkv'), '');
    await expect.poll(() => rows(t).map((r) => r.folder), { timeout: 10_000 }).toEqual(['/data/media/tv/Show/Season 01']);
    const health = (await t.service.app.inject({ url: '/health' })).json();
    expect(health.watch).toMatchObject({ enabled: true, paths: [{ backend: 'poll', folders: 3 }] });
  });
});

describe('WATCH parts', () => {
  it('a folder is handed on once, after the last change plus DEBOUNCE; it counts as deleted when its latest change was its own removal', () => {
    const timers: { fn: () => void; ms: number; live: boolean }[] = [];
    const scheduler: Scheduler = {
      set: (fn, ms) => (timers.push({ fn, ms, live: true }), timers.length - 1),
      clear: (h) => void (timers[h as number].live = false),
    };
    const out: [string, boolean][] = [];
    const d = new FolderDebounce(5000, (f, del) => out.push([f, del]), scheduler);
    d.touch('/a');
    d.touch('/a');
    d.touch('/b', true);
    d.touch('/c', true);
    d.touch('/c', false);
    d.touch('/d', false);
    d.touch('/d', true);
    expect(timers.filter((x) => x.live)).toHaveLength(4);
    expect(timers.every((x) => x.ms === 5000)).toBe(true);
    for (const x of timers.filter((x) => x.live)) x.fn();
    expect(out).toEqual([['/a', false], ['/b', true], ['/c', false], ['/d', true]]);
    expect(d.pending).toBe(0);
  });

  it('EXCLUDE wins over INCLUDE; no INCLUDE means everything', () => {
    expect(new PathFilter([], ['\\.srt$']).accepts('/m/a.mkv')).toBe(true);
    expect(new PathFilter(['^/m/'], ['\\.srt$']).accepts('/m/a.srt')).toBe(false);
    expect(new PathFilter(['^/m/'], []).accepts('/x/a.mkv')).toBe(false);
  });

  it('the kernel limit is read at start, and a tree near it is told the sysctl to raise it', () => {
    const lines: string[] = [];
    const logger = createLogger({ level: 'info', console: new Writable({ write: (c, _e, cb) => (lines.push(String(c)), cb()) }) });
    checkWatchLimit(9500, 10_000, '/mnt/local', logger);
    checkWatchLimit(100, 10_000, '/mnt/small', logger);
    expect(lines[0]).toContain('sudo sysctl -w fs.inotify.max_user_watches=524288');
    expect(lines[0]).toContain('/etc/sysctl.d/');
    expect(lines[1]).not.toContain('sysctl');
    expect(readMaxUserWatches('/nonexistent')).toBeUndefined();
    if (process.platform === 'linux') expect(readMaxUserWatches()).toBeGreaterThan(0);
  });
});
