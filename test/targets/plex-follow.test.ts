// Plex's two stages: a delivery ends when Plex takes the refresh, and one follower per server watches the scans
// to their end (one poll per interval for all of them), confirms the files in batches and records the outcome.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock, systemClock, type Clock } from '../../src/clock.js';
import { silentLogger } from '../../src/log/logger.js';
import { PlexApi } from '../../src/targets/plex/api.js';
import { lookupFileViaApi } from '../../src/targets/plex/confirm.js';
import { BLIND_FAST_MS, BLIND_POLL_MS, FINISHED_TOGETHER } from '../../src/targets/plex/follow/follower.js';
import { Processor } from '../../src/processor/processor.js';
import { Queue } from '../../src/queue/store.js';
import { PlexTarget, type PlexTargetOptions } from '../../src/targets/plex/target.js';
import type { ScanContext } from '../../src/scan.js';
import { FakePlex } from '../fakes/plex.js';
import { scanAndFollow } from '../support/follow.js';
import { named } from '../support/target.js';
import { until } from '../support/until.js';

let plex: FakePlex;
let queue: Queue | undefined;
// What Node warns of while this file runs: a follower woken early, again and again, once left a listener on one
// signal per wake until its sleep ran out (MaxListenersExceededWarning in a green run).
const warnings: string[] = [];
process.on('warning', (w) => warnings.push(`${w.name}: ${w.message}`));
let processor: Processor | undefined;

beforeEach(async () => {
  plex = await new FakePlex().start();
});
afterEach(async () => {
  await processor?.stop();
  queue?.close();
  processor = queue = undefined;
  await plex.stop();
});

const FOLDER = '/data/media/tv/Show/Season 01';
const FILE = `${FOLDER}/Show - S01E01.mkv`;
const episode = (show: number, e = 1) => ({ folder: `/data/media/tv/Show ${show}/Season 01`, file: `/data/media/tv/Show ${show}/Season 01/E0${e}.mkv` });
const ctx = (over: Partial<ScanContext> = {}): ScanContext => ({ event: 'Download', source: 'sonarr', file: FILE, deleted: false, ...over });
const polls = () => plex.requests.filter((r) => r.path === '/activities').length;
/** The read-only database reader, simulated from the fake's library. */
const database = () => async (path: string) => plex.library.has(path);

/** Real time with short intervals: the follower's loop, the processor's loop and the fake's scans all run. */
const target = (extra: Partial<PlexTargetOptions> = {}, clock: Clock = systemClock) =>
  new PlexTarget({ url: plex.url, token: plex.token, clock, timeoutMs: 2000, followIntervalMs: 20, followGraceMs: 100, after: { analyze: 'off' }, ...extra });

function relay(t: PlexTarget, settings: { fileCheckDelayMs?: number; concurrency?: number } = {}) {
  queue = new Queue(join(mkdtempSync(join(tmpdir(), 'scanrelay-follow-')), 'queue.db'), systemClock, { delayMs: 0 });
  processor = new Processor({
    queue,
    // These tests are about following, with more folders than the default cap of outstanding scans: no cap here
    // (test/processor/back-pressure.test.ts is about the cap).
    targets: [named(t, { name: 'plex', concurrency: settings.concurrency, maxOutstanding: 100_000 })],
    clock: systemClock,
    logger: silentLogger,
    settings: { fileExistMappings: {}, maxFileChecks: 0, fileCheckDelayMs: settings.fileCheckDelayMs ?? 0, folderOnExhaustion: false, anchors: [], retryMaxDelayMs: 300_000 },
  });
  return { queue, processor };
}

describe('deliver, then follow', () => {
  it('a delivery ends when Plex takes the refresh: with one slot, three folders are delivered while the first scan still runs', async () => {
    plex.scanPolls = Infinity;
    const { queue, processor } = relay(target(), { concurrency: 1 });
    for (let i = 0; i < 3; i++) {
      plex.onDisk.add(episode(i).file);
      queue.enqueue({ folder: episode(i).folder, priority: 0, source: 'sonarr', event: 'Download', fileHint: episode(i).file, deleted: false });
    }
    processor.start();
    await until(() => plex.refreshes.length === 3);
    await until(() => queue.summary().followingByTarget.plex === 3);
    expect(queue.history()).toEqual([]);
    expect(plex.finishedScans).toEqual([]);
    plex.finishScans();
    await until(() => queue.history().length === 3);
    expect(queue.history().map((h) => h.outcome)).toEqual(['confirmed', 'confirmed', 'confirmed']);
    const [h] = queue.history();
    // No socket and no database here: the last resort, the section's newest items, one page.
    expect(h.detail).toMatch(/^In the library after \d+\.\d s \(among the section's recently added items\)\. Sent to section 2 TV Shows\.$/);
    expect(h.deliveryMs).toBeGreaterThanOrEqual(0);
    expect(h.followMs).toBeGreaterThan(0);
  });

  it('one /activities request per interval for all followed folders, then one batch: trash once per section, each item analyzed once', async () => {
    plex.scanPolls = Infinity;
    const folders = Array.from({ length: 40 }, (_, i) => episode(i % 20, 1 + Math.floor(i / 20)));
    for (const f of folders) plex.onDisk.add(f.file);
    const t = target({
      followIntervalMs: 50,
      deletedCount: async () => 1,
      exists: async () => true,
      after: { analyze: 'basic', analyzeDirectory: true, emptyTrash: true, emptyTrashMaxFiles: 10 },
    });
    const { queue, processor } = relay(t);
    queue.enqueueMany(folders.map((f) => ({ folder: `${f.folder}`, priority: 0, source: 'sonarr', event: 'Download', fileHint: f.file, deleted: false })));
    processor.start();
    await until(() => queue.summary().followingByTarget.plex === 20);
    const started = Date.now();
    const before = polls();
    await new Promise((r) => setTimeout(r, 500));
    const intervals = (Date.now() - started) / 50;
    expect(polls() - before).toBeLessThanOrEqual(Math.ceil(intervals) + 1);
    expect(polls() - before).toBeGreaterThan(2);
    plex.finishScans();
    await until(() => queue.count() === 0);
    expect(queue.history().map((h) => h.outcome)).toEqual(Array(20).fill('confirmed'));
    expect(plex.emptiedTrash).toEqual(['2']);
    // The fake files every episode under one parent (200): with ANALYZE_DIRECTORY it is analyzed once for all 20.
    expect(plex.analyzed).toEqual(['200']);
  });

  it('a scan never seen running (an empty /activities) is judged by evidence: confirmed at the first poll, not after a grace', async () => {
    plex.hideActivities = true;
    plex.scanPolls = 0;
    plex.onDisk.add(FILE);
    const { queue, processor } = relay(target({ followGraceMs: 60_000, followIntervalMs: 50 }));
    queue.enqueue({ folder: FOLDER, priority: 0, source: 'sonarr', event: 'Download', fileHint: FILE, deleted: false });
    const started = Date.now();
    processor.start();
    await until(() => queue.history().length === 1);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(queue.history()[0]).toMatchObject({ outcome: 'confirmed' });
  });

  it('a file missing after the scan ended is scanned once more after SERVER_FILE_CHECK_DELAY, then recorded not-found with the reason', async () => {
    plex.scanPolls = 0;
    const { queue, processor } = relay(target({ fileInLibrary: database() }), { fileCheckDelayMs: 200 });
    queue.enqueue({ folder: FOLDER, priority: 0, source: 'sonarr', event: 'Download', fileHint: FILE, deleted: false });
    processor.start();
    await until(() => plex.refreshes.length === 1);
    const first = plex.requests.find((r) => r.path.endsWith('/refresh'))!.at;
    await until(() => queue.history().length === 1);
    expect(plex.refreshes).toEqual([
      { section: '2', path: FOLDER },
      { section: '2', path: FOLDER },
    ]);
    const second = plex.requests.filter((r) => r.path.endsWith('/refresh'))[1].at;
    expect(second - first).toBeGreaterThanOrEqual(200);
    const [h] = queue.history();
    expect(h.outcome).toBe('not-found');
    expect(h.detail).toContain(`Not in the library after the scan ended: '${FILE}' is not in Plex's database (media_parts)`);
  });

  it("without Plex's database or its socket, a file not among the recently added items ends scanned (not a problem) after its section's grace, saying why; nothing told what Plex created, so it is not asked for again", async () => {
    plex.scanPolls = 0;
    plex.fileLookup = 'empty';
    const { queue, processor } = relay(target());
    queue.enqueue({ folder: FOLDER, priority: 0, source: 'sonarr', event: 'Download', fileHint: FILE, deleted: false });
    processor.start();
    await until(() => queue.history().length === 1);
    expect(plex.refreshes).toHaveLength(1);
    expect(queue.history()[0]).toMatchObject({ outcome: 'scanned', detail: expect.stringContaining('not among the recently added items') });
    // The last resort pages the newest episodes of the section; never the undocumented file filter, never unpaged.
    const listings = plex.requests.filter((r) => r.path.endsWith('/all'));
    expect(listings.length).toBeGreaterThan(0);
    for (const r of listings) expect(r.query).toMatchObject({ type: '4', sort: 'addedAt:desc', 'X-Plex-Container-Start': expect.any(String), 'X-Plex-Container-Size': '50' });
    expect(listings.some((r) => r.query.file !== undefined)).toBe(false);
  });

  it('a Plex that stops answering while scans are followed loses none of them: they end when it answers again', async () => {
    plex.scanPolls = Infinity;
    plex.onDisk.add(FILE);
    const { queue, processor } = relay(target());
    queue.enqueue({ folder: FOLDER, priority: 0, source: 'sonarr', event: 'Download', fileHint: FILE, deleted: false });
    processor.start();
    await until(() => queue.summary().followingByTarget.plex === 1);
    plex.failure = 'reset';
    const failing = plex.requests.length;
    await until(() => plex.requests.length > failing + 3);
    expect(queue.summary().followingByTarget.plex).toBe(1);
    plex.failure = undefined;
    plex.finishScans();
    await until(() => queue.history().length === 1);
    expect(queue.history()[0].outcome).toBe('confirmed');
  });
});

describe('the Plex follower on its own (simulated time)', () => {
  let clock: ManualClock;
  beforeEach(() => {
    clock = new ManualClock();
  });

  it('falls back to the sections\' refreshing flag on a Plex without /activities', async () => {
    plex.activitiesSupported = false;
    plex.scanPolls = 3;
    plex.onDisk.add(FILE);
    const outcome = await scanAndFollow(target({}, clock), FOLDER, ctx(), clock);
    expect(outcome).toMatchObject({ status: 'scanned', followed: { state: 'confirmed' } });
    expect(plex.finishedScans).toEqual([{ section: '2', path: FOLDER }]);
    const afterRefresh = plex.requests.slice(plex.requests.findIndex((r) => r.path.endsWith('/refresh')));
    expect(afterRefresh.filter((r) => r.path === '/library/sections').length).toBeGreaterThanOrEqual(3);
  });

  it('a scan still running at PLEX_CONFIRM_TIMEOUT ends unconfirmed, with no analyze, in simulated time only', async () => {
    plex.scanPolls = Infinity;
    plex.onDisk.add(FILE);
    plex.addToLibrary(FILE);
    const started = performance.now();
    const outcome = await scanAndFollow(target({ confirmTimeoutMs: 60_000, followIntervalMs: 1_000, after: { analyze: 'basic' } }, clock), FOLDER, ctx(), clock);
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(outcome).toMatchObject({ followed: { state: 'unconfirmed', detail: expect.stringMatching(/^Plex was still scanning after 60\.\d s \(PLEX_CONFIRM_TIMEOUT\); not confirmed/) } });
    // One poll a second, but every BLIND_POLL_MS for the first BLIND_FAST_MS (no socket here: it is the target's own follower).
    expect(polls()).toBeLessThanOrEqual(61 + BLIND_FAST_MS / BLIND_POLL_MS);
    expect(plex.analyzed).toEqual([]);
  });

  it('fast path: a folder without a file (and nothing configured after) is done once the refresh is accepted', async () => {
    const outcome = await target({}, clock).scan(FOLDER, ctx({ file: undefined }));
    expect(outcome).toEqual({ status: 'scanned', detail: 'section 2 TV Shows', sections: ['2'] });
    expect(polls()).toBe(0);
  });

  it('fast path: PLEX_CONFIRM_SCANS false does not follow a file scan (analyze rides on it); deleted files are never confirmed', async () => {
    expect(await target({ confirmScans: false, after: { analyze: 'basic' } }, clock).scan(FOLDER, ctx())).toEqual({ status: 'scanned', detail: 'section 2 TV Shows', sections: ['2'] });
    expect(await target({}, clock).scan(FOLDER, ctx({ deleted: true }))).toEqual({ status: 'scanned', detail: 'section 2 TV Shows', sections: ['2'] });
    expect(plex.requests.filter((r) => r.path.endsWith('/refresh'))).toHaveLength(2);
    expect(polls()).toBe(0);
  });

  let dbReads = 0;
  /** The database reader, counting its reads. */
  const countedDatabase = async (path: string) => (dbReads++, plex.library.has(path));

  /** Follows `n` scans Plex ended before anyone polled; returns the lookups Plex had received at the first outcome. */
  async function followBatch(t: PlexTarget, n: number): Promise<{ lookupsAtFirst: number; order: string[] }> {
    plex.hideActivities = true;
    plex.scanPolls = 0;
    dbReads = 0;
    const lookups = () => dbReads;
    const tickets = [];
    for (let i = 0; i < n; i++) {
      plex.onDisk.add(episode(i).file);
      const outcome = await t.scan(episode(i).folder, ctx({ file: episode(i).file }));
      if (outcome.status !== 'scanned' || outcome.follow === undefined) throw new Error(`not followed: ${JSON.stringify(outcome)}`);
      tickets.push({ folder: episode(i).folder, ticket: outcome.follow });
    }
    const order: string[] = [];
    let lookupsAtFirst = -1;
    const all = new Promise<void>((resolve) => {
      t.follower.start(async (item) => {
        if (lookupsAtFirst < 0) lookupsAtFirst = lookups();
        order.push(item.folder);
        if (order.length === n) resolve();
      });
    });
    tickets.forEach(({ folder, ticket }, i) => t.follower.follow({ ref: { folderId: i + 1, generation: 1 }, folder, event: 'Download', deliveredAt: clock.now(), ticket }));
    await all;
    await t.follower.stop();
    return { lookupsAtFirst, order };
  }

  it('a large batch is finished a part at a time, oldest first: none waits for the lookups of the whole batch', async () => {
    const n = FINISHED_TOGETHER * 2 + 8;
    const { lookupsAtFirst, order } = await followBatch(target({ fileInLibrary: countedDatabase }, clock), n);
    // The first part's reads, and at most the next part's that began while its outcomes were recorded.
    expect(lookupsAtFirst).toBeGreaterThanOrEqual(FINISHED_TOGETHER);
    expect(lookupsAtFirst).toBeLessThanOrEqual(FINISHED_TOGETHER * 2);
    expect(order).toEqual(Array.from({ length: n }, (_, i) => episode(i).folder));
  });

  it('a batch finished in parts still analyzes each item (here: their parent) once', async () => {
    const n = FINISHED_TOGETHER * 2 + 8;
    const { lookupsAtFirst } = await followBatch(target({ fileInLibrary: countedDatabase, after: { analyze: 'basic', analyzeDirectory: true } }, clock), n);
    expect(lookupsAtFirst).toBeLessThan(n);
    // The fake files every episode under one parent (200): analyzed once for the three parts.
    expect(plex.analyzed).toEqual(['200']);
  });

  it('with the trash to empty, the batch stays whole: every lookup first, then the trash once for the section', async () => {
    const n = FINISHED_TOGETHER + 8;
    const t = target({ fileInLibrary: countedDatabase, deletedCount: async () => 1, exists: async () => true, after: { analyze: 'off', emptyTrash: true, emptyTrashMaxFiles: 10 } }, clock);
    const { lookupsAtFirst } = await followBatch(t, n);
    expect(lookupsAtFirst).toBe(n);
    expect(plex.emptiedTrash).toEqual(['2']);
  });

  it('the undocumented ?file= lookup only counts an item whose part is exactly the file', async () => {
    const api = new PlexApi({ url: plex.url, token: plex.token });
    const item = plex.addToLibrary(FILE, '77');
    expect(await lookupFileViaApi(api, '2', FILE)).toEqual({ found: true, ratingKey: item.ratingKey, parentRatingKey: '77' });
    plex.fileLookup = 'error';
    expect(await lookupFileViaApi(api, '2', FILE)).toMatchObject({ found: 'unknown', why: expect.stringContaining('failed (400)') });
  });
});

describe('a library scan in progress', () => {
  it('folders arriving during a long library scan are all delivered at once; their follow-ups end within an interval of its end', async () => {
    plex.fifoMs = 1;
    plex.startLibraryScan('2', 1_500);
    const { queue, processor } = relay(target({ followIntervalMs: 100 }));
    const folders = Array.from({ length: 30 }, (_, i) => episode(i));
    for (const f of folders) plex.onDisk.add(f.file);
    const started = Date.now();
    queue.enqueueMany(folders.map((f) => ({ folder: f.folder, priority: 0, source: 'sonarr', event: 'Download', fileHint: f.file, deleted: false })));
    processor.start();
    await until(() => plex.refreshes.length === 30);
    expect(Date.now() - started).toBeLessThan(1_000);
    await until(() => plex.scansQueued === 0);
    const idleAt = Date.now();
    await until(() => queue.count() === 0);
    // One interval (100 ms) plus the batch's lookups; generous for a loaded machine.
    expect(Date.now() - idleAt).toBeLessThan(1_000);
    expect(queue.history().map((h) => h.outcome)).toEqual(Array(30).fill('confirmed'));
  });
});

describe('the follower over the whole file', () => {
  it('woken early again and again, leaves no listener behind: Node warned of nothing', () => {
    expect(warnings.filter((w) => w.startsWith('MaxListenersExceededWarning'))).toEqual([]);
  });
});
