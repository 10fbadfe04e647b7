// A server that says "later" (429 or 503 with Retry-After) is left alone until then, all its folders, on the injected
// clock: a real fake Plex and Jellyfin on 127.0.0.1 answer it, and nothing at all reaches them before the time they
// named. Without the header, or with one that cannot be read, the folder backs off on its own as before.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { createLogger, silentLogger } from '../../src/log/logger.js';
import { Availability, newTargetState } from '../../src/processor/availability.js';
import { Processor, type ProcessorSettings } from '../../src/processor/processor.js';
import { clockTime } from '../../src/processor/server-hold.js';
import { Queue } from '../../src/queue/store.js';
import type { Target } from '../../src/scan.js';
import { jellyfinTarget } from '../../src/targets/jellyfin.js';
import { PlexTarget } from '../../src/targets/plex/target.js';
import { startFakeJellyfin, type FakeMediaBrowser } from '../fakes/jellyfin.js';
import { FakePlex } from '../fakes/plex.js';
import { auditedSink } from '../support/log-audit.js';
import { SECRET, testService, type TestService } from '../support/service.js';
import { named } from '../support/target.js';

let plex: FakePlex;
let queue: Queue;
let clock: ManualClock;
let lines: string[];

const settings: ProcessorSettings = { fileExistMappings: {}, maxFileChecks: 0, fileCheckDelayMs: 60_000, folderOnExhaustion: false, anchors: [], retryMaxDelayMs: 300_000 };

function processor(targets: Target[], extra: Partial<ProcessorSettings> = {}) {
  const logger = createLogger({ level: 'debug', console: auditedSink((text) => lines.push(text)), secrets: [plex.token] });
  return new Processor({ queue, targets, clock, logger, settings: { ...settings, ...extra }, random: () => 1 });
}
/** One scan at a time, so the second folder is still due while the first is answered "later". */
const plexTarget = () => named(new PlexTarget({ url: plex.url, token: plex.token, clock, timeoutMs: 2000 }), { name: 'plex', concurrency: 1 });
const REFRESH = /^\/library\/sections\/[^/]+\/refresh$/;
const deletedFolder = (folder: string) => ({ folder, priority: 0, source: 'sonarr', event: 'EpisodeFileDelete', deleted: true });
const holdLines = () => lines.filter((l) => l.includes('asked to be left alone'));

/** Moves the clock in steps of `stepMs` up to `ms`, running every pass the processor would make on the way. */
async function passTime(p: Processor, ms: number, stepMs = 1_000): Promise<void> {
  for (let t = 0; t < ms; t += stepMs) {
    clock.advance(Math.min(stepMs, ms - t));
    await p.drain();
  }
}

beforeEach(async () => {
  plex = await new FakePlex().start();
  clock = new ManualClock();
  queue = new Queue(join(mkdtempSync(join(tmpdir(), 'scanrelay-hold-')), 'queue.db'), clock, { delayMs: 0 });
  lines = [];
});
afterEach(async () => {
  queue.close();
  await plex.stop();
});

describe('a server that says "later"', () => {
  it('a Plex answering 429 with Retry-After: 20 gets nothing more for 20 s, not even the other folders, then the folder', async () => {
    plex.failRoute('GET', REFRESH, 429, 1, { 'Retry-After': '20' });
    const p = processor([plexTarget()]);
    queue.enqueue(deletedFolder('/data/media/tv/A/Season 01'));
    queue.enqueue(deletedFolder('/data/media/tv/B/Season 01'));
    const answeredAt = clock.now();
    await p.drain();
    expect(plex.refreshes).toEqual([{ section: '2', path: '/data/media/tv/A/Season 01' }]);
    expect(p.health()[0]).toMatchObject({ up: true, heldUntil: answeredAt + 20_000, heldAsked: 'Retry-After: 20' });

    const before = plex.requests.length;
    await passTime(p, 19_999, 500);
    expect(plex.requests.length, 'any request at all before the 20 s are over').toBe(before);
    expect(queue.count()).toBe(2);

    clock.advance(1);
    await p.drain();
    expect(plex.refreshes.slice(1).map((r) => r.path).sort()).toEqual(['/data/media/tv/A/Season 01', '/data/media/tv/B/Season 01']);
    expect(queue.count()).toBe(0);
    expect(p.health()[0].heldUntil).toBeUndefined();
    expect(holdLines()).toHaveLength(1);
    expect(holdLines()[0]).toContain(`nothing is sent to it until ${clockTime(answeredAt + 20_000)}`);
    // The folder's own line of a failed attempt is not written as well: one line per hold.
    expect(lines.filter((l) => l.includes('failed (attempt'))).toHaveLength(0);
  });

  it('503 with an HTTP date holds until that date; several folders answered together make one hold and one line', async () => {
    const until = clock.now() + 30_000;
    plex.failRoute('GET', REFRESH, 503, 2, { 'Retry-After': new Date(until).toUTCString() });
    const p = processor([named(new PlexTarget({ url: plex.url, token: plex.token, clock, timeoutMs: 2000 }), { name: 'plex' })]);
    for (const show of ['A', 'B', 'C']) queue.enqueue(deletedFolder(`/data/media/tv/${show}`));
    await p.drain();
    // Eight slots: all three asked at once; two answered "later", the third was taken.
    expect(plex.refreshes).toHaveLength(3);
    expect(queue.count()).toBe(2);
    expect(p.health()[0]).toMatchObject({ heldUntil: until, heldAsked: `Retry-After: ${new Date(until).toUTCString()}` });
    expect(holdLines()).toHaveLength(1);

    const before = plex.requests.length;
    await passTime(p, 29_000);
    expect(plex.requests.length).toBe(before);
    await passTime(p, 1_000);
    expect(plex.refreshes).toHaveLength(5);
    expect(queue.count()).toBe(0);
  });

  it('a hold longer than SERVER_SCAN_RETRY_MAX_DELAY is cut to it', async () => {
    plex.failRoute('GET', REFRESH, 429, 1, { 'Retry-After': '3600' });
    const p = processor([plexTarget()], { retryMaxDelayMs: 60_000 });
    queue.enqueue(deletedFolder('/data/media/tv/A'));
    await p.drain();
    expect(p.health()[0].heldUntil).toBe(clock.now() + 60_000);
    await passTime(p, 60_000, 5_000);
    expect(plex.refreshes).toHaveLength(2);
  });

  it('a 429 without Retry-After, or with one that cannot be read, backs off that folder alone as before', async () => {
    for (const header of [undefined, 'soon', '1.5', '-3', 'Tue, 31 Feb 2026 00:00:00 GMT', '0']) {
      plex.requests.length = 0;
      lines = [];
      plex.failRoute('GET', REFRESH, 429, 1, header === undefined ? undefined : { 'Retry-After': header });
      const p = processor([plexTarget()]);
      const stuck = queue.enqueue(deletedFolder(`/data/media/tv/${header ?? 'none'}/A`)).folder;
      queue.enqueue(deletedFolder(`/data/media/tv/${header ?? 'none'}/B`));
      await p.drain();
      // The other folder went at once; the answered one waits its own first backoff (5 s).
      expect(plex.refreshes.map((r) => r.path), String(header)).toEqual([stuck, `/data/media/tv/${header ?? 'none'}/B`]);
      expect(p.health()[0].heldUntil).toBeUndefined();
      expect(queue.deliveries(queue.get(stuck)!.id)[0].nextAt - clock.now()).toBe(5_000);
      expect(holdLines()).toHaveLength(0);
      expect(lines.filter((l) => l.includes('failed (attempt 1)'))).toHaveLength(1);
      await passTime(p, 5_000);
      expect(queue.count()).toBe(0);
    }
  });

  it('a held server is not asked whether it is there when idle: it has just said so', () => {
    const asked: string[] = [];
    const target: Target = { name: 'plex', kind: 'plex', pauseMs: 0, scan: async () => ({ status: 'scanned' }), available: async () => (asked.push('probe'), { ok: true }) };
    const state = newTargetState(target);
    const availability = new Availability({ queue, clock, logger: silentLogger, random: () => 1, track: () => undefined });
    state.hold = { until: clock.now() + 20_000, asked: 'Retry-After: 20' };
    availability.probeIdle([state], 60_000);
    expect(asked).toEqual([]);
    clock.advance(20_000);
    availability.probeIdle([state], 60_000);
    expect(asked).toEqual(['probe']);
  });
});

describe('a Jellyfin that says "later"', () => {
  let jellyfin: FakeMediaBrowser;
  beforeEach(async () => {
    jellyfin = await startFakeJellyfin();
  });
  afterEach(async () => jellyfin.close());

  it('429 with Retry-After: 20 on a scan: nothing reaches it for 20 s, then the folder', async () => {
    const target = named(jellyfinTarget({ name: 'jellyfin', url: jellyfin.url, token: 'jellyfin-token-1234', clock, scanMethod: 'media-updated' }), { name: 'jellyfin' });
    const p = processor([target]);
    jellyfin.fail(429, { path: '/Library/Media/Updated', headers: { 'Retry-After': '20' } });
    queue.enqueue(deletedFolder('/data/media/tv/Show/Season 01'));
    await p.drain();
    jellyfin.fail(null);
    expect(p.health()[0]).toMatchObject({ heldUntil: clock.now() + 20_000, heldAsked: 'Retry-After: 20' });
    const before = jellyfin.requests.length;
    await passTime(p, 19_000);
    expect(jellyfin.requests.length).toBe(before);
    await passTime(p, 1_000);
    // The fake records every request: the one answered "later", then the folder again after the 20 s.
    expect(jellyfin.updates()).toEqual([1, 2].map(() => ({ Path: '/data/media/tv/Show/Season 01', UpdateType: 'Deleted' })));
    expect(jellyfin.requests.slice(before).filter((r) => r.path === '/Library/Media/Updated')).toHaveLength(1);
    expect(queue.count()).toBe(0);
    expect(holdLines()).toHaveLength(1);
  });
});

describe('the hold on the dashboard and in the API', () => {
  let t: TestService;
  afterEach(async () => t.close());

  it('the server card says "holding until HH:MM:SS (server asked: Retry-After: 20)"; the API gives heldUntil', async () => {
    t = await testService({ config: { SERVER_SCAN_DELAY: 0 } });
    t.plex.failRoute('GET', REFRESH, 429, 1, { 'Retry-After': '20' });
    const res = await t.service.app.inject({ method: 'POST', url: `/${SECRET}`, payload: { eventType: 'Manual', filepath: '/mnt/unionfs/Media/tv/Show/Season 01/e1.mkv' } });
    expect(res.statusCode).toBe(200);
    await t.service.processor.drain();
    const until = t.clock.now() + 20_000;
    const page = (await t.service.app.inject({ url: `/${SECRET}/dashboard` })).body;
    expect(page).toContain(`holding until <time datetime="${new Date(until).toISOString()}">${clockTime(until)}</time> (server asked: Retry-After: 20)`);
    const api = (await t.service.app.inject({ url: `/api/${SECRET}/targets` })).json();
    expect(api.targets[0]).toMatchObject({ name: 'plex', heldUntil: until, heldAsked: 'Retry-After: 20' });
    t.clock.advance(20_000);
    await t.service.processor.drain();
    expect((await t.service.app.inject({ url: `/${SECRET}/dashboard` })).body).not.toContain('holding until');
  });
});
