// Plex after the refresh: following the scan to its end (/activities, or the refreshing flag) and confirming the
// request's file, down to what history records; plus the fast path that must not wait at all.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { silentLogger } from '../../src/log.js';
import { PlexApi } from '../../src/plex/api.js';
import { PlexScanProgress, waitForSectionScan } from '../../src/plex/activities.js';
import { lookupFileViaApi } from '../../src/plex/confirm.js';
import { Processor } from '../../src/processor/processor.js';
import { Queue } from '../../src/queue/store.js';
import { PlexTarget, type PlexTargetOptions } from '../../src/targets/plex.js';
import type { ScanContext } from '../../src/targets/target.js';
import { FakePlex } from '../fakes/plex.js';

let plex: FakePlex;
let clock: ManualClock;
/** Polls without real pauses: one event-loop turn each, so a held scan stays held until the test ends it. */
const sleep = () => new Promise<void>((r) => setImmediate(r));

beforeEach(async () => {
  plex = await new FakePlex().start();
  clock = new ManualClock();
});
afterEach(() => plex.stop());

const target = (extra: Partial<PlexTargetOptions> = {}) =>
  new PlexTarget({ name: 'plex', url: plex.url, token: plex.token, clock, timeoutMs: 2000, sleep, ...extra });

const FILE = '/data/media/tv/Show/Season 01/Show - S01E01.mkv';
const FOLDER = '/data/media/tv/Show/Season 01';
const ctx = (over: Partial<ScanContext> = {}): ScanContext => ({ event: 'Download', source: 'sonarr', file: FILE, deleted: false, ...over });
const activityPolls = () => plex.requests.filter((r) => r.path === '/activities').length;
/** The read-only database reader, simulated from the fake's library. */
const database = () => async (path: string) => plex.library.has(path);

describe('Plex scan confirmation', () => {
  it('history shows confirmed only after Plex reports the scan finished and the file present', async () => {
    plex.scanPolls = Infinity;
    plex.onDisk.add(FILE);
    const queue = new Queue(join(mkdtempSync(join(tmpdir(), 'scanrelay-c-')), 'queue.db'), clock, { delayMs: 0 });
    const p = new Processor({
      queue,
      targets: [target({ confirmTimeoutMs: 3_600_000 })],
      clock,
      logger: silentLogger,
      settings: { fileExistMappings: {}, maxFileChecks: 0, fileCheckDelayMs: 0, folderOnExhaustion: false, anchors: [], retryMaxDelayMs: 300_000 },
    });
    queue.enqueue({ folder: FOLDER, priority: 0, source: 'sonarr', event: 'Download', fileHint: FILE, deleted: false });
    await p.tick();
    while (activityPolls() < 5) await new Promise((r) => setTimeout(r, 2));
    // Plex is still scanning: the folder is delivered to nobody yet and the file is not in the library.
    expect(plex.refreshes).toEqual([{ section: '2', path: FOLDER }]);
    expect(queue.deliveries(queue.get(FOLDER)!.id)).toMatchObject([{ target: 'plex', state: 'pending' }]);
    expect(queue.history()).toEqual([]);
    plex.finishScans();
    await p.idle();
    const [h] = queue.history();
    expect(h).toMatchObject({ folder: FOLDER, target: 'plex', outcome: 'confirmed' });
    expect(h.detail).toMatch(/^section 2 TV Shows; scan finished in \d+\.\d s; file confirmed in library \(api\)/);
    queue.close();
  });

  it('with a ManualClock and no sleep injected, follows a scan that ends after 30 polls in simulated time only', { timeout: 5_000 }, async () => {
    plex.scanPolls = 30;
    plex.onDisk.add(FILE);
    // No `sleep` option: the target pauses on its clock, so the minute of polling passes without real waiting.
    const t = new PlexTarget({ name: 'plex', url: plex.url, token: plex.token, clock, timeoutMs: 2000, confirmTimeoutMs: 3_600_000 });
    const before = clock.now();
    const started = performance.now();
    const outcome = await t.scan(FOLDER, ctx());
    const wall = performance.now() - started;
    // 31 polls (30 see the scan, the last sees it gone) with 30 pauses: 25 ms doubling to the 2 s cap.
    expect(activityPolls()).toBe(31);
    const pauses = [25, 50, 100, 200, 400, 800, 1600, ...Array<number>(23).fill(2000)];
    const simulated = pauses.reduce((a, b) => a + b, 0);
    expect(clock.now() - before).toBe(simulated); // 49.175 s
    expect(wall).toBeLessThan(1000);
    expect(outcome).toMatchObject({ status: 'scanned', confirmation: 'confirmed' });
    expect(outcome.status === 'scanned' && outcome.detail).toContain(`scan finished in ${(simulated / 1000).toFixed(1)} s`);
  });

  it('records not-found with the reason when the scan ends and the database has no such file', async () => {
    plex.scanPolls = 2;
    const outcome = await target({ fileInLibrary: database() }).scan(FOLDER, ctx());
    expect(outcome).toMatchObject({ status: 'scanned', confirmation: 'not-found' });
    expect(outcome.status === 'scanned' && outcome.detail).toMatch(
      /section 2 TV Shows; scan finished in .* s; not found: '.*S01E01\.mkv' is not in Plex's database \(media_parts\) after the scan finished/,
    );
  });

  it('the database answer alone confirms, even when the API lookup gives nothing', async () => {
    plex.onDisk.add(FILE);
    plex.fileLookup = 'empty';
    const outcome = await target({ fileInLibrary: database() }).scan(FOLDER, ctx());
    expect(outcome).toMatchObject({ status: 'scanned', confirmation: 'confirmed' });
    expect(outcome.status === 'scanned' && outcome.detail).toContain('file confirmed in library (database)');
  });

  it('without the database, an empty or unfiltered API answer leaves the scan unconfirmed and says why', async () => {
    plex.onDisk.add('/data/media/tv/Show/Season 01/Other.mkv');
    plex.fileLookup = 'empty';
    let outcome = await target().scan(FOLDER, ctx());
    expect(outcome).toEqual({ status: 'scanned', detail: expect.stringContaining('not confirmed: could not tell') });
    expect(outcome.status === 'scanned' && outcome.detail).toContain('returned nothing');
    // An answer that ignores ?file= (every item of the section) must not pass for "found".
    plex.fileLookup = 'ignore';
    outcome = await target().scan(FOLDER, ctx());
    expect(outcome.status === 'scanned' && outcome.confirmation).toBeUndefined();
    expect(outcome.status === 'scanned' && outcome.detail).toContain('ignored the file filter');
  });

  it('falls back to the section refreshing flag on a Plex without /activities', async () => {
    plex.activitiesSupported = false;
    plex.scanPolls = 3;
    plex.onDisk.add(FILE);
    const outcome = await target().scan(FOLDER, ctx());
    expect(outcome).toMatchObject({ status: 'scanned', confirmation: 'confirmed' });
    expect(plex.finishedScans).toEqual([{ section: '2', path: FOLDER }]);
    const afterRefresh = plex.requests.slice(plex.requests.findIndex((r) => r.path.endsWith('/refresh')));
    expect(afterRefresh.filter((r) => r.path === '/library/sections').length).toBeGreaterThanOrEqual(3);
  });

  it('a scan still running at PLEX_CONFIRM_TIMEOUT is recorded as scanned, unconfirmed, without blocking forever', async () => {
    plex.scanPolls = Infinity;
    plex.onDisk.add(FILE);
    plex.addToLibrary(FILE);
    const outcome = await target({ confirmTimeoutMs: 60_000, after: { analyze: 'basic' } }).scan(FOLDER, ctx());
    expect(outcome).toEqual({ status: 'scanned', detail: expect.stringMatching(/scan still running after 60\.0 s \(PLEX_CONFIRM_TIMEOUT\); not confirmed$/) });
    expect(plex.analyzed).toEqual([]); // analyze only after completion
  });

  it('a scan never seen running is given a grace period, then confirmed if the file is there', async () => {
    plex.scanPolls = 0; // Plex finished before the first poll
    plex.onDisk.add(FILE);
    const outcome = await target().scan(FOLDER, ctx());
    expect(outcome).toMatchObject({ status: 'scanned', confirmation: 'confirmed' });
    expect(outcome.status === 'scanned' && outcome.detail).toContain('scan end not seen within');
  });

  it('a missing file after an unseen scan end is not called not-found (it may not have been scanned yet)', async () => {
    plex.scanPolls = 0;
    const outcome = await target({ fileInLibrary: database() }).scan(FOLDER, ctx());
    expect(outcome.status === 'scanned' && outcome.confirmation).toBeUndefined();
    expect(outcome.status === 'scanned' && outcome.detail).toContain('file not in library yet');
  });

  it('when Plex cannot say whether the scan ended, the scan is not held up and the detail says so', async () => {
    plex.activitiesSupported = false;
    // No /activities, and the library listing fails once the refresh is in: nothing left to follow.
    let refreshed = false;
    const flaky: typeof fetch = async (input, init) => {
      const path = new URL(String(input)).pathname;
      if (path.endsWith('/refresh')) refreshed = true;
      else if (refreshed && path === '/library/sections') return new Response('', { status: 500 });
      return fetch(input, init);
    };
    const outcome = await target({ fetch: flaky }).scan(FOLDER, ctx());
    expect(outcome).toEqual({ status: 'scanned', detail: expect.stringMatching(/scan end not observable \(Plex did not say whether the scan ended .*500.*\); not confirmed$/) });
  });

  it('fast path: a folder without a file (and nothing configured after) returns as soon as the refresh is accepted', async () => {
    const outcome = await target().scan(FOLDER, ctx({ file: undefined }));
    expect(outcome).toEqual({ status: 'scanned', detail: 'section 2 TV Shows' });
    expect(activityPolls()).toBe(0);
  });

  it('fast path: PLEX_CONFIRM_SCANS false does not follow a file scan (analyze rides on it); deleted files are never confirmed', async () => {
    plex.onDisk.add(FILE);
    plex.addToLibrary(FILE);
    expect(await target({ confirmScans: false, after: { analyze: 'basic' } }).scan(FOLDER, ctx())).toEqual({ status: 'scanned', detail: 'section 2 TV Shows' });
    expect(plex.analyzed).toEqual([]);
    expect(await target().scan(FOLDER, ctx({ deleted: true }))).toEqual({ status: 'scanned', detail: 'section 2 TV Shows' });
    expect(activityPolls()).toBe(0);
  });

  it('the fast path costs one request per folder: nothing that could slow the drain (≥ 500 folders/s at 5 ms)', async () => {
    plex.latencyMs = 5;
    const t = target();
    await t.sections.all();
    const before = plex.requests.length;
    const n = 200;
    const started = performance.now();
    const folders = Array.from({ length: n }, (_, i) => `/data/media/movies/Film ${i}`);
    // The processor runs 8 scans per target at once.
    for (let i = 0; i < n; i += 8) await Promise.all(folders.slice(i, i + 8).map((f) => t.scan(f, ctx({ file: undefined }))));
    const seconds = (performance.now() - started) / 1000;
    expect(plex.requests.length - before).toBe(n);
    expect(plex.requests.slice(before).every((r) => r.path.endsWith('/refresh'))).toBe(true);
    // A loose bound only: timing on a shared machine varies; the request count above is the real guarantee.
    expect(n / seconds).toBeGreaterThan(250);
  });
});

describe('following /activities', () => {
  it('reads library.update.section activities by Context.librarySectionID and waits for the end', async () => {
    plex.scanPolls = 4;
    const api = new PlexApi({ url: plex.url, token: plex.token });
    await api.refresh('1', '/data/media/movies/Heat (1995)');
    const progress = new PlexScanProgress(api);
    expect(await progress.poll('2')).toBe('idle'); // another section's scan is not ours
    const wait = await waitForSectionScan(progress, '1', { timeoutMs: 60_000, clock, sleep: async () => {}, firstPollMs: 1000 });
    // Polls at 0, 1 s and 3 s see it running (the pause doubles up to 2 s); the one at 5 s sees it gone.
    expect(wait).toEqual({ state: 'finished', ms: 5000, observed: true });
  });

  it('the undocumented ?file= lookup only counts an item whose part is exactly the file', async () => {
    const api = new PlexApi({ url: plex.url, token: plex.token });
    const item = plex.addToLibrary(FILE, '77');
    expect(await lookupFileViaApi(api, '2', FILE)).toEqual({ found: true, ratingKey: item.ratingKey, parentRatingKey: '77' });
    plex.fileLookup = 'error';
    expect(await lookupFileViaApi(api, '2', FILE)).toMatchObject({ found: 'unknown', why: expect.stringContaining('failed (400)') });
  });
});
