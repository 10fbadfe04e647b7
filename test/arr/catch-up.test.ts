// The catch-up against a fake Sonarr on 127.0.0.1, a real queue and intake and a ManualClock: what it queues, what it
// never queues (what happened before it knew the app, what a webhook already asked for), where its cursor stands
// after each answer and each failure, and the one line each change of the app's state is worth.
import { afterEach, describe, expect, it } from 'vitest';
import { ARR_HISTORY_PAGE_SIZE } from '../../src/http/answer-caps.js';
import { arrDate } from '../fakes/arr-app.js';
import { SECRET } from '../support/service.js';
import { until } from '../support/until.js';
import { arrHarness, type ArrHarness } from './harness.js';

/** The folder queued for show n (Plex's path) and the file Sonarr names. */
const show = (n: number) => `/data/media/tv/Show ${n}/Season 01`;
const file = (n: number) => `/tv/Show ${n}/Season 01/Show ${n} - S01E01.mkv`;

/** A Sonarr import record (HistoryService.Handle(EpisodeImportedEvent)) of `file(n)`. */
const imported = (n: number, extra: Record<string, unknown> = {}) => ({
  episodeId: 1000 + n,
  seriesId: n,
  sourceTitle: `Show.${n}.S01E01.1080p.WEB`,
  downloadId: `SABnzbd_nzo_${n}`,
  eventType: 'downloadFolderImported',
  data: { fileId: String(n), droppedPath: `/downloads/Show.${n}.S01E01.mkv`, importedPath: file(n) },
  ...extra,
});

let h: ArrHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const queued = (t: ArrHarness) => t.service.queue.list(100_000);
/** Sonarr's Download webhook of `file(n)`, as Sonarr sends it (its User-Agent). */
const webhook = (t: ArrHarness, n: number) =>
  t.service.app.inject({
    method: 'POST',
    url: `/${SECRET}`,
    headers: { 'user-agent': 'Sonarr/4.0.14.2939 (ubuntu 24.04)' },
    payload: { eventType: 'Download', series: { path: `/tv/Show ${n}` }, episodeFile: { path: file(n) } },
  });
const warnings = (t: ArrHarness) =>
  t.logs.flatMap((l) => l.split('\n').filter(Boolean)).map((l) => JSON.parse(l) as { level: string; msg: string }).filter((l) => l.level === 'warn' || l.level === 'error').map((l) => l.msg);

describe('the catch-up', () => {
  it('ARR read again: a changed entry starts again from its cursor and catches up what happened meanwhile, a removed one stops, an unchanged one is left', async () => {
    h = await arrHarness(['sonarr', 'radarr']);
    const [sonarr] = h.apps;
    await h.arr.catchUp();
    const [sonarrEntry, radarrEntry] = h.service.config.ARR;
    const before = h.arr.apps[0];
    h.clock.advance(60_000);
    sonarr.write({ ...imported(3), id: 3 }, h.clock.now());
    h.clock.advance(60_000);

    expect(await h.arr.update([sonarrEntry, radarrEntry])).toEqual({ added: [], changed: [], removed: [], unchanged: ['sonarr', 'radarr'] });
    expect(h.arr.apps[0]).toBe(before);
    expect(await h.arr.update([{ ...sonarrEntry, CATCH_UP_INTERVAL: 60 }])).toEqual({ added: [], changed: ['sonarr'], removed: ['radarr'], unchanged: [] });
    expect(h.arr.status().map((a) => [a.name, a.intervalSeconds, a.cursor])).toEqual([['sonarr', 60, '2026-01-01T00:00:00.000Z']]);
    await h.arr.catchUp();
    expect(queued(h)).toMatchObject([{ folder: show(3), source: 'sonarr-history', received: file(3) }]);
  });

  it('starts from now on first contact: what the app did before is never scanned; what it does after is, once', async () => {
    h = await arrHarness(['sonarr']);
    const [sonarr] = h.apps;
    sonarr.write({ ...imported(1), id: 1 }, h.clock.now() - 3_600_000);
    await h.arr.catchUp();
    expect(queued(h)).toEqual([]);
    expect(h.messages().join('\n')).toMatch(/sonarr 'sonarr' is caught up from now \(2026-01-01T00:00:00.000Z\)/);
    expect(h.arr.status()[0]).toMatchObject({ state: 'up', reachable: true, version: '4.0.14.2939', cursor: '2026-01-01T00:00:00.000Z', caughtUp: 0 });

    h.clock.advance(60_000);
    sonarr.write({ ...imported(2), id: 2 }, h.clock.now());
    h.clock.advance(60_000);
    await h.arr.catchUp();
    expect(queued(h)).toMatchObject([{ folder: show(2), source: 'sonarr-history', event: 'Download', requests: 1, received: file(2) }]);
    expect(h.arr.status()[0]).toMatchObject({ caughtUp: 1, lastEvent: '2026-01-01T00:01:00.000Z', cursor: '2026-01-01T00:01:00.000Z' });

    // Read again within the overlap: the same record is not handed on twice.
    h.clock.advance(30_000);
    await h.arr.catchUp();
    expect(queued(h)).toMatchObject([{ folder: show(2), requests: 1 }]);
    // The app was asked with its key in the header only, for its own event names.
    for (const r of sonarr.requests) {
      expect(r.headers['x-api-key']).toBe(sonarr.apiKey);
      expect(JSON.stringify(r.query)).not.toContain(sonarr.apiKey);
    }
    // Its history in pages, oldest first.
    const pages = sonarr.requests.filter((r) => r.path.endsWith('/history'));
    expect(pages.length).toBeGreaterThan(0);
    for (const r of pages) expect(r.query).toMatchObject({ sortKey: 'date', sortDirection: 'ascending' });
  });

  it('a webhook and the same event read from the history are one request: the history one is not queued again', async () => {
    h = await arrHarness(['sonarr']);
    const [sonarr] = h.apps;
    await h.arr.catchUp();
    h.clock.advance(1_000);
    const sent = await webhook(h, 3);
    expect(sent.statusCode).toBe(200);
    sonarr.write({ ...imported(3), id: 3 }, h.clock.now());
    h.clock.advance(1_000);
    await h.arr.catchUp();
    expect(queued(h)).toMatchObject([{ folder: show(3), source: 'sonarr', requests: 1 }]);
    expect(h.arr.status()[0].caughtUp).toBe(1);
  });

  it('what a queued webhook asked for before a restart still counts after it; the cursor and its overlap survive', async () => {
    h = await arrHarness(['sonarr']);
    await h.arr.catchUp();
    h.clock.advance(1_000);
    await webhook(h, 4);
    h.apps[0].write({ ...imported(4), id: 4 }, h.clock.now());
    h.apps[0].write({ ...imported(5), id: 5 }, h.clock.now());
    h.clock.advance(1_000);
    await h.arr.catchUp();
    expect(queued(h).map((f) => [f.folder, f.source, f.requests]).sort()).toEqual([[show(4), 'sonarr', 1], [show(5), 'sonarr-history', 1]]);

    // The same queue file under a new service: record 5 is in the cursor's overlap, folder 4 in the queue.
    const { queuefile, clock } = h;
    await h.service.close();
    const again = await arrHarness(['sonarr'], { queuefile });
    again.apps[0].history = h.apps[0].history;
    again.clock.set(clock.now() + 5_000);
    await h.close();
    h = again;
    h.arr.start();
    await h.arr.stop();
    await h.arr.catchUp();
    expect(queued(h).map((f) => [f.folder, f.requests]).sort()).toEqual([[show(4), 1], [show(5), 1]]);
  });

  it('a refused key is one line however often it is refused; webhooks are still taken; the catch-up resumes from its cursor when the key is right', async () => {
    h = await arrHarness(['sonarr']);
    const [sonarr] = h.apps;
    await h.arr.catchUp();
    const key = sonarr.apiKey;
    sonarr.apiKey = 'another-key';
    sonarr.write({ ...imported(6), id: 6 }, h.clock.now() + 10_000);
    for (let i = 0; i < 3; i++) {
      h.clock.advance(300_000);
      await h.arr.catchUp();
    }
    expect(warnings(h)).toEqual([
      `sonarr 'sonarr' at ${sonarr.url}/api/v3 refused the token (HTTP 401 on GET /system/status): check API_KEY of ARR entry "sonarr" (sonarr: Settings > General > Security > API Key). Its webhooks are still taken; its history is read again when it answers, from where the catch-up stopped.`,
    ]);
    expect(h.arr.status()[0]).toMatchObject({ state: 'refused', reachable: false, error: expect.stringMatching(/refused the token/) });
    expect((await webhook(h, 7)).statusCode).toBe(200);

    sonarr.apiKey = key;
    await h.arr.catchUp();
    expect(h.messages().filter((m) => m.includes('answers again'))).toEqual([`sonarr 'sonarr' answers again (Sonarr 4.0.14.2939); catching up on its history since 2026-01-01T00:00:00.000Z.`]);
    expect(queued(h).map((f) => [f.folder, f.source]).sort()).toEqual([[show(6), 'sonarr-history'], [show(7), 'sonarr']]);
  });

  it('an app that does not answer, or hangs past the timeout, is down: one line; its history is read when it answers', async () => {
    h = await arrHarness(['sonarr']);
    const [sonarr] = h.apps;
    await h.arr.catchUp();
    sonarr.failure = 'down';
    await h.arr.catchUp();
    sonarr.failure = 'hang';
    const hung = h.arr.catchUp();
    await until(() => sonarr.requests.length >= 3);
    h.clock.advance(30_000);
    await hung;
    expect(warnings(h)).toHaveLength(1);
    expect(warnings(h)[0]).toMatch(/^sonarr 'sonarr' does not answer: sonarr 'sonarr' at http:\/\/127\.0\.0\.1:\d+\/api\/v3 did not answer GET \/system\/status \(.*\): start it, or point the URL of ARR entry "sonarr" at it\./);
    expect(h.arr.status()[0].state).toBe('down');
    sonarr.failure = undefined;
    sonarr.write({ ...imported(8), id: 8 }, h.clock.now());
    h.clock.advance(1_000);
    await h.arr.catchUp();
    expect(queued(h).map((f) => f.folder)).toEqual([show(8)]);
  });

  it('a history answer that is an error or not JSON keeps the cursor: one line, and the same events are read again once it answers well', async () => {
    h = await arrHarness(['sonarr']);
    const [sonarr] = h.apps;
    await h.arr.catchUp();
    sonarr.write({ ...imported(9), id: 9 }, h.clock.now() + 1_000);
    h.clock.advance(2_000);
    const { cursor } = h.arr.status()[0];
    sonarr.failureFor = /\/history$/;
    sonarr.failure = { status: 500, body: 'database is locked' };
    await h.arr.catchUp();
    sonarr.failure = 'garbage';
    await h.arr.catchUp();
    expect(warnings(h)).toEqual([
      `Could not catch up on sonarr 'sonarr''s history: sonarr 'sonarr' at ${sonarr.url}/api/v3 answered 500 Internal Server Error to GET /history: database is locked. Nothing is skipped: the same events are read again at the next catch-up.`,
    ]);
    expect(h.arr.status()[0]).toMatchObject({ state: 'failing', cursor, error: expect.stringMatching(/not JSON/) });
    expect(queued(h)).toEqual([]);
    sonarr.failure = undefined;
    await h.arr.catchUp();
    expect(queued(h).map((f) => f.folder)).toEqual([show(9)]);
    expect(h.messages().filter((m) => m.includes('answers again'))).toHaveLength(1);
  });

  it('records that are not history records are set aside with one line, events no webhook scans for passed over (the page holds every kind); the rest is caught up', async () => {
    h = await arrHarness(['sonarr']);
    const [sonarr] = h.apps;
    await h.arr.catchUp();
    sonarr.history.push({ eventType: 'downloadFolderImported', date: arrDate(h.clock.now()), data: { importedPath: file(10) } });
    sonarr.write({ ...imported(11), id: 11 }, h.clock.now());
    sonarr.write({ seriesId: 12, episodeId: 12, sourceTitle: 'Show.12.S01E01', eventType: 'grabbed', data: {}, id: 12 }, h.clock.now());
    sonarr.write({ seriesId: 13, episodeId: 13, eventType: 'somethingNew', data: {}, id: 13 }, h.clock.now());
    h.clock.advance(1_000);
    await h.arr.catchUp();
    expect(queued(h).map((f) => f.folder)).toEqual([show(11)]);
    expect(warnings(h)).toEqual([
      `Set aside 1 record(s) of sonarr 'sonarr''s history that are not history records as sonarr writes them (no id): is the URL of ARR entry "sonarr" this app's?`,
    ]);
    expect(h.messages().filter((m) => m.startsWith('History record'))).toEqual([]);
    expect(h.arr.status()[0].caughtUp).toBe(1);
  });

  it('a week of history is handed to the intake in chunks within SERVER_MAX_REQUEST_PATHS, the cursor saved after each; a queue that fails half way loses nothing and doubles nothing', async () => {
    h = await arrHarness(['sonarr'], { config: { SERVER_MAX_REQUEST_PATHS: 100 } });
    const [sonarr] = h.apps;
    await h.arr.catchUp();
    for (let n = 1; n <= 1_000; n++) sonarr.write({ ...imported(n), id: n }, h.clock.now() + n * 600);
    h.clock.advance(7 * 24 * 3_600_000);
    const intake = h.service.intake;
    const submit = intake.submit.bind(intake);
    const sizes: number[] = [];
    let failOn = 4;
    intake.submit = async (requests, client) => {
      sizes.push(requests.length);
      if (sizes.length === failOn) throw new Error('could not write the queue (SQLITE_FULL): check that the queue file\'s disk has space and is writable');
      return submit(requests, client);
    };
    await h.arr.catchUp();
    expect(sizes).toEqual([100, 100, 100, 100]);
    expect(queued(h)).toHaveLength(300);
    expect(warnings(h)).toEqual([
      "Could not queue what sonarr 'sonarr''s history holds: could not write the queue (SQLITE_FULL): check that the queue file's disk has space and is writable. The catch-up stays where it was and reads it again next time.",
    ]);
    failOn = 0;
    await h.arr.catchUp();
    expect(sizes.slice(4)).toEqual([100, 100, 100, 100, 100, 100, 100]);
    const folders = queued(h);
    expect(folders).toHaveLength(1_000);
    expect(folders.every((f) => f.requests === 1 && f.source === 'sonarr-history')).toBe(true);
    expect(h.arr.status()[0].caughtUp).toBe(1_000);
  });

  it('a long history is read in pages of bounded size, oldest first, from where the cursor stands: records of one date across a page edge are handed on once each, none lost', async () => {
    h = await arrHarness(['sonarr']);
    const [sonarr] = h.apps;
    // Two thousand records from before scanrelay knew the app: the reading finds where to start without them.
    for (let n = 1; n <= 2_000; n++) sonarr.write({ ...imported(n), id: n }, h.clock.now() - 7 * 24 * 3_600_000 + n * 1_000);
    await h.arr.catchUp();
    sonarr.requests.length = 0;
    // 2,600 records, seven to a date (the app's dates are to the second), so the 500-record pages end inside a date.
    for (let n = 2_001; n <= 4_600; n++) sonarr.write({ ...imported(n), id: n }, h.clock.now() + 1_000 + Math.floor((n - 2_001) / 7) * 1_000);
    h.clock.advance(24 * 3_600_000);
    await h.arr.catchUp();
    const history = sonarr.requests.filter((r) => r.path.endsWith('/history'));
    const pages = history.filter((r) => r.query.pageSize !== '1');
    expect(pages.map((r) => [r.query.page, r.query.pageSize, r.query.sortDirection])).toEqual(
      [5, 6, 7, 8, 9, 10].map((p) => [String(p), String(ARR_HISTORY_PAGE_SIZE), 'ascending']),
    );
    // Where to start is found by asking single records, a few of them.
    expect(history.length - pages.length).toBeLessThan(30);
    const folders = queued(h);
    expect(folders).toHaveLength(2_600);
    expect(new Set(folders.map((f) => f.folder))).toEqual(new Set(Array.from({ length: 2_600 }, (_, i) => show(2_001 + i))));
    expect(folders.every((f) => f.requests === 1)).toBe(true);
    expect(h.arr.status()[0].caughtUp).toBe(2_600);
    // Read again (the overlap holds the last date's records): nothing is handed on twice.
    h.clock.advance(30_000);
    await h.arr.catchUp();
    expect(queued(h)).toHaveLength(2_600);
    expect(h.arr.status()[0].caughtUp).toBe(2_600);
  }, 60_000);

  it("a caught-up request is due within 5 s, whatever SERVER_SCAN_DELAY says; a SERVER_SCAN_DELAYS entry naming it counts from its event", async () => {
    h = await arrHarness(['sonarr'], { config: { SERVER_SCAN_DELAY: 180, SERVER_SCAN_DELAYS: { 'sonarr-history:upgrade': 120 } } });
    const [sonarr] = h.apps;
    await h.arr.catchUp();
    sonarr.write({ ...imported(20), id: 20 }, h.clock.now());
    h.clock.advance(3_600_000);
    sonarr.write({ ...imported(21), id: 21 }, h.clock.now() - 2_000);
    sonarr.write({ ...imported(22, { episodeId: 22 }), eventType: 'episodeFileDeleted', sourceTitle: file(22).replace('.mkv', '.avi'), data: { reason: 'Upgrade' }, id: 22 }, h.clock.now() - 10_000);
    sonarr.write({ ...imported(22, { episodeId: 22 }), id: 23 }, h.clock.now() - 10_000);
    sonarr.write({ ...imported(24), id: 24 }, h.clock.now() - 200_000);
    await h.arr.catchUp();
    const due = Object.fromEntries(queued(h).map((f) => [f.folder, [f.event, f.dueAt - h!.clock.now()]]));
    expect(due).toEqual({
      [show(20)]: ['Download', 5_000],
      [show(21)]: ['Download', 5_000],
      [show(22)]: ['Upgrade', 110_000],
      [show(24)]: ['Download', 5_000],
    });
  });
});

describe('the catch-up on its own', () => {
  it('reads on a timer every CATCH_UP_INTERVAL; stopped, it reads nothing more', async () => {
    h = await arrHarness(['sonarr'], { interval: 0.05 });
    const [sonarr] = h.apps;
    h.arr.start();
    await until(() => h!.arr.status()[0].state === 'up');
    sonarr.write({ ...imported(30), id: 30 }, h.clock.now());
    h.clock.advance(1_000);
    await until(() => queued(h!).length === 1, { what: 'the timer to catch up' });
    await h.arr.stop();
    // A call in flight at the stop is aborted, not waited for: its request may still reach the app just after.
    await new Promise((r) => setTimeout(r, 50));
    const asked = sonarr.requests.length;
    await new Promise((r) => setTimeout(r, 200));
    expect(sonarr.requests.length).toBe(asked);
  });

  it("a webhook from the app wakes a catch-up that waits for a silent app's next try", async () => {
    h = await arrHarness(['sonarr']);
    const [sonarr] = h.apps;
    sonarr.failure = 'down';
    h.arr.start();
    await until(() => h!.arr.status()[0].state === 'down');
    sonarr.failure = undefined;
    const sent = await webhook(h, 32);
    expect(sent.statusCode).toBe(200);
    await until(() => h!.arr.status()[0].state === 'up', { what: 'the webhook to wake the catch-up' });
  });
});
