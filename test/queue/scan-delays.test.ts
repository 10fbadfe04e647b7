// SERVER_SCAN_DELAYS: per-source and per-event delays over SERVER_SCAN_DELAY. Upgrades and renames go out fast,
// new imports are batched, and a folder's requests still make one scan, due at the shortest delay any asked for.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { Queue } from '../../src/queue/store.js';
import { delayOf } from '../../src/intake/intake.js';
import { SECRET, testService, type TestService } from '../support/service.js';

let t: TestService;
afterEach(async () => t?.close());

const webhook = (eventType: string, path: string, isUpgrade = false) =>
  t.service.app.inject({
    method: 'POST',
    url: `/${SECRET}`,
    headers: { 'user-agent': 'Sonarr/4.0.17.2952 (ubuntu 24.04)' },
    payload: { eventType, isUpgrade, series: { path: '/data/media/tv/Show' }, episodeFile: { path } },
  });
const dueIn = (folder: string) => (t.service.queue.get(folder)!.dueAt - t.clock.now()) / 1000;

describe('SERVER_SCAN_DELAYS', () => {
  it('picks "source:event", then the event, then the source, in any case; none leaves SERVER_SCAN_DELAY', () => {
    const delays = { Upgrade: 10, 'sonarr:rename': 5, rename: 20, radarr: 30 };
    const req = (source: string, event: string) => ({ path: '/x', source, event, kind: 'file' }) as Parameters<typeof delayOf>[0];
    expect(delayOf(req('sonarr', 'Upgrade'), delays)).toEqual({ delayMs: 10_000 });
    expect(delayOf(req('sonarr', 'Rename'), delays)).toEqual({ delayMs: 5_000 });
    expect(delayOf(req('lidarr', 'Rename'), delays)).toEqual({ delayMs: 20_000 });
    expect(delayOf(req('radarr', 'Download'), delays)).toEqual({ delayMs: 30_000 });
    expect(delayOf(req('sonarr', 'Download'), delays)).toEqual({});
  });

  it('an upgrade is scanned after its own delay while a new import waits for SERVER_SCAN_DELAY; merged, the shortest wins', async () => {
    t = await testService({ config: { SERVER_SCAN_DELAY: 180, SERVER_SCAN_DELAYS: { upgrade: 10, manual: 0 } } });
    await webhook('Download', '/data/media/tv/Show/Season 1/e01.mkv');
    await webhook('Download', '/data/media/tv/Show/Season 2/e01.mkv', true);
    expect(dueIn('/data/media/tv/Show/Season 1')).toBe(180);
    expect(dueIn('/data/media/tv/Show/Season 2')).toBe(10);

    // A new import into the upgraded folder keeps it fast, counted from the latest request.
    t.clock.advance(4_000);
    await webhook('Download', '/data/media/tv/Show/Season 2/e02.mkv');
    expect(dueIn('/data/media/tv/Show/Season 2')).toBe(10);
    expect(t.service.queue.get('/data/media/tv/Show/Season 2')!.requests).toBe(2);

    t.clock.advance(10_000);
    await t.service.processor.drain();
    expect(t.plex.refreshes.map((r) => r.path), JSON.stringify(t.plex.refreshes)).toEqual(['/data/media/tv/Show/Season 2']);
    expect(t.service.queue.list().map((r) => r.folder)).toEqual(['/data/media/tv/Show/Season 1']);

    // An upgrade merging into the batched folder brings it forward too.
    await webhook('Download', '/data/media/tv/Show/Season 1/e02.mkv', true);
    expect(dueIn('/data/media/tv/Show/Season 1')).toBe(10);
  });
});

describe('SERVER_SCAN_MAX_WAIT', () => {
  it('a folder that keeps receiving imports is scanned SERVER_SCAN_MAX_WAIT after its first request, not when they stop', async () => {
    t = await testService({ config: { SERVER_SCAN_DELAY: 30, SERVER_SCAN_MAX_WAIT: 100 } });
    const season = '/data/media/tv/Show/Season 1';
    // One import every 10 s: each moves the folder to 30 s after it, until the wait reaches 100 s.
    for (let i = 1; i <= 8; i++) {
      await webhook('Download', `${season}/e0${i}.mkv`);
      expect(dueIn(season)).toBe(Math.min(30, 100 - (i - 1) * 10));
      t.clock.advance(10_000);
    }
    // 80 s after the first request: 20 s to go however many follow.
    await webhook('Download', `${season}/e09.mkv`);
    expect(dueIn(season)).toBe(20);
    t.clock.advance(20_000);
    await t.service.processor.drain();
    expect(t.plex.refreshes.map((r) => r.path)).toEqual([season]);

    // Sent: the next request begins a new wait, with the whole delay.
    await webhook('Download', `${season}/e10.mkv`);
    expect(dueIn(season)).toBe(30);
  });

  it('a folder whose scan waits to be sent (held for room at the server) keeps its wait: requests meanwhile do not restart it', () => {
    const clock = new ManualClock(0);
    const queue = new Queue(join(mkdtempSync(join(tmpdir(), 'scanrelay-wait-')), 'queue.db'), clock, { delayMs: 30_000, maxWaitMs: 100_000 });
    try {
      const request = { folder: '/tv/Show/Season 1', priority: 0, source: 'sonarr', event: 'Download', fileHint: '/tv/Show/Season 1/e01.mkv', deleted: false };
      queue.enqueue(request);
      clock.advance(30_000);
      queue.startDispatchMany(queue.dueWaiting(10), ['plex']);
      // Its delivery is pending, not sent: each request folds in, due no later than 100 s after the first.
      for (let t = 40_000; t <= 120_000; t += 10_000) {
        clock.set(t);
        const { dueAt } = queue.enqueue(request);
        expect(dueAt).toBe(Math.min(t + 30_000, Math.max(100_000, t)));
        queue.startDispatchMany(queue.dueWaiting(10), ['plex']);
      }
      // Sent: the next request begins a new wait.
      const [row] = queue.pendingFor('plex', 1);
      queue.recordDelivery(row, 'plex', { state: 'following', follow: '{}' }, ['plex']);
      clock.set(130_000);
      expect(queue.enqueue(request).dueAt).toBe(160_000);
    } finally {
      queue.close();
    }
  });

  it("a folder's own delay, when longer, is not cut short", async () => {
    t = await testService({ config: { SERVER_SCAN_DELAY: 120, SERVER_SCAN_MAX_WAIT: 60 } });
    await webhook('Download', '/data/media/tv/Show/Season 1/e01.mkv');
    expect(dueIn('/data/media/tv/Show/Season 1')).toBe(120);
    t.clock.advance(30_000);
    await webhook('Download', '/data/media/tv/Show/Season 1/e02.mkv');
    expect(dueIn('/data/media/tv/Show/Season 1')).toBe(90);
  });
});
