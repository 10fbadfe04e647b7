// Items deleted while scanrelay could not hear the app (src/arr/deleted-items.ts), against the fake apps on 127.0.0.1
// and a real queue: the history cannot tell them (each app deletes an item's history with it), so the catch-up
// compares the app's item list with the last one. For every app: the folder of an item deleted while down is queued
// once, as that app's delete webhook queues it (the same mappings, event and deleted flag); the first list queues
// nothing; a webhook already received for it is not doubled; a list that lost most of its items at once, or failed,
// keeps the last list. Each item found deleted is one event caught up, on /health, the dashboard and /metrics.
import { afterEach, describe, expect, it } from 'vitest';
import type { ArrAppType } from '../fakes/arr-app.js';
import { SECRET } from '../support/service.js';
import { arrHarness, type ArrHarness } from './harness.js';

/** Per app: where its items live, how a folder is queued (Plex's side), and its delete webhook. */
const APPS: { type: ArrAppType; noun: string; root: string; queuedRoot: string; agent: string; event: string; payload: (path: string) => Record<string, unknown> }[] = [
  { type: 'sonarr', noun: 'series', root: '/tv/', queuedRoot: '/data/media/tv/', agent: 'Sonarr/4.0.14.2939', event: 'SeriesDelete', payload: (path) => ({ series: { path } }) },
  // WebhookMovie.FolderPath is movie.Path (Radarr's Notifications/Webhook/WebhookMovie.cs).
  { type: 'radarr', noun: 'movie', root: '/movies/', queuedRoot: '/data/media/movies/', agent: 'Radarr/5.21.1.9799', event: 'MovieDelete', payload: (path) => ({ movie: { folderPath: path } }) },
  { type: 'lidarr', noun: 'artist', root: '/music/', queuedRoot: '/data/media/music/', agent: 'Lidarr/2.11.2.4629', event: 'ArtistDelete', payload: (path) => ({ artist: { path } }) },
  { type: 'readarr', noun: 'author', root: '/books/', queuedRoot: '/data/media/books/', agent: 'Readarr/0.4.18.2805', event: 'AuthorDelete', payload: (path) => ({ author: { path } }) },
  { type: 'whisparr', noun: 'series', root: '/tv/', queuedRoot: '/data/media/tv/', agent: 'Whisparr/2.0.0.1046', event: 'SeriesDelete', payload: (path) => ({ series: { path } }) },
  { type: 'whisparr-v3', noun: 'movie', root: '/movies/', queuedRoot: '/data/media/movies/', agent: 'Whisparr/3.0.0.1234', event: 'MovieDelete', payload: (path) => ({ movie: { folderPath: path } }) },
];

const MAPPINGS = { '/data/media/tv/': ['/tv/'], '/data/media/movies/': ['/movies/'], '/data/media/music/': ['/music/'], '/data/media/books/': ['/books/'] };

let h: ArrHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const queued = (t: ArrHarness) => t.service.queue.list(100_000).map((f) => ({ folder: f.folder, source: f.source, event: f.event, requests: f.requests }));
const levels = (t: ArrHarness, level: string) =>
  t.logs.flatMap((l) => l.split('\n').filter(Boolean)).map((l) => JSON.parse(l) as { level: string; msg: string }).filter((l) => l.level === level).map((l) => l.msg);
/** The app's caught-up figure as /health, the dashboard and /metrics show it (a counter not yet counted shows no line). */
async function caughtUp(t: ArrHarness, app: string): Promise<{ health: number; dashboard: number; metric: number }> {
  const health = (await t.service.app.inject({ url: '/health' })).json() as { arr: { name: string; caughtUp: number }[] };
  const page = (await t.service.app.inject({ url: `/${SECRET}/dashboard` })).body;
  const card = page.slice(page.indexOf(`data-app="${app}"`));
  const metrics = (await t.service.app.inject({ url: '/metrics' })).body;
  return {
    health: health.arr.find((a) => a.name === app)!.caughtUp,
    dashboard: Number(/<dt>Caught up since start \([^)]+ ago\)<\/dt><dd>(\d+)<\/dd>/.exec(card)?.[1]),
    metric: Number(metrics.split('\n').find((l) => l.startsWith(`scanrelay_arr_events_caught_up_total{app="${app}"} `))?.split(' ')[1] ?? 0),
  };
}
const sendDelete = (t: ArrHarness, app: (typeof APPS)[number], path: string) =>
  t.service.app.inject({ method: 'POST', url: `/${SECRET}`, headers: { 'user-agent': `${app.agent} (ubuntu 24.04)` }, payload: { eventType: app.event, ...app.payload(path) } });

describe.each(APPS)('$type: an item deleted while scanrelay was down', (app) => {
  const item = (n: number) => `${app.root}Item ${n}`;

  it('is queued once, as its delete webhook queues it; the first list queues nothing; a webhook already received is not doubled', async () => {
    h = await arrHarness([app.type], { config: { SERVER_PATH_MAPPINGS: MAPPINGS } });
    const [fake] = h.apps;
    for (let n = 1; n <= 6; n++) fake.addItem(item(n));
    // The first list: what the app holds now, nothing queued, however much it deleted before.
    await h.arr.catchUp();
    expect(queued(h)).toEqual([]);
    expect(fake.requests.filter((r) => r.path === `${fake.api}/${app.noun}`)).toHaveLength(1);
    expect(await caughtUp(h, app.type)).toEqual({ health: 0, dashboard: 0, metric: 0 });

    // While down: item 1 deleted (its history with it); item 2 deleted and its webhook received.
    h.clock.advance(60_000);
    fake.deleteItem(item(1));
    fake.deleteItem(item(2));
    expect((await sendDelete(h, app, item(2))).statusCode).toBe(200);
    h.clock.advance(60_000);
    await h.arr.catchUp();
    const source = app.type.startsWith('whisparr') ? 'whisparr' : app.type;
    expect(queued(h).sort((a, b) => a.folder.localeCompare(b.folder))).toEqual([
      { folder: `${app.queuedRoot}Item 1`, source: `${source}-history`, event: app.event, requests: 1 },
      { folder: `${app.queuedRoot}Item 2`, source, event: app.event, requests: 1 },
    ]);
    expect(levels(h, 'info').filter((m) => m.includes('no longer lists'))).toEqual([
      `${app.type.startsWith('whisparr') ? 'whisparr' : app.type} '${app.type}' no longer lists 2 ${app.noun} folder(s) (${item(1)}, ${item(2)}): queued as its ${app.event} webhook would have.`,
    ]);
    // Two delete events caught up, as two events read from the history would be: the one whose webhook came too.
    expect(await caughtUp(h, app.type)).toEqual({ health: 2, dashboard: 2, metric: 2 });

    // Read again: the list is the new one, nothing queued twice.
    h.clock.advance(60_000);
    await h.arr.catchUp();
    expect(queued(h)).toHaveLength(2);
    expect(levels(h, 'warn')).toEqual([]);
    expect(await caughtUp(h, app.type)).toEqual({ health: 2, dashboard: 2, metric: 2 });
  });
});

describe('the item list, bounded', () => {
  const show = (n: number) => `/tv/Show ${n}`;

  // Issue 52: a 31 MiB list asked for at every catch-up of a second kept the relay busy reading it.
  it('is asked for at most once a minute, however often the history is read', async () => {
    h = await arrHarness(['sonarr']);
    const [sonarr] = h.apps;
    sonarr.addItem(show(1));
    sonarr.addItem(show(2));
    const asked = (path: string) => sonarr.requests.filter((r) => r.path === `${sonarr.api}${path}`).length;
    for (let s = 0; s < 120; s++) {
      await h.arr.catchUp();
      if (s === 30) sonarr.deleteItem(show(2));
      h.clock.advance(1_000);
    }
    // Every catch-up but the first (which only sets where the history starts) reads the history.
    expect(asked('/history')).toBe(119);
    expect(asked('/series')).toBe(2);
    // The delete made in between is found at the next list, not lost.
    expect(queued(h).map((f) => f.folder)).toEqual(['/data/media/tv/Show 2']);
  });

  it('a list that lost more than half its items at once is one WARN, queues nothing and keeps the last list; taken as it is after a day', async () => {
    h = await arrHarness(['sonarr']);
    const [sonarr] = h.apps;
    for (let n = 1; n <= 10; n++) sonarr.addItem(show(n));
    await h.arr.catchUp();
    // An app restored from an empty database, or a URL base that reaches another one: 6 of 10 gone.
    const whole = [...sonarr.library];
    sonarr.library = whole.slice(6);
    for (let i = 0; i < 3; i++) {
      h.clock.advance(300_000);
      await h.arr.catchUp();
    }
    expect(queued(h)).toEqual([]);
    expect(await caughtUp(h, 'sonarr')).toEqual({ health: 0, dashboard: 0, metric: 0 });
    expect(levels(h, 'warn')).toEqual([
      "sonarr 'sonarr''s series list lost 6 of its 10 folders at once: taken for an app restored from an empty database or a URL that points at another app, not for deletes. Nothing is queued for them and the last list is kept; should the app keep answering this list for 24 hours, it is taken as it is, still queuing nothing.",
    ]);
    // The app answers its whole list again: the last list was kept, so one real delete meanwhile is still found.
    sonarr.library = whole.filter((i) => i.path !== show(1));
    h.clock.advance(300_000);
    await h.arr.catchUp();
    expect(queued(h)).toEqual([{ folder: '/data/media/tv/Show 1', source: 'sonarr-history', event: 'SeriesDelete', requests: 1 }]);

    // A library that really shrank: after a day of answering so, it is the list, and nothing of it was queued.
    sonarr.library = whole.slice(8);
    h.clock.advance(300_000);
    await h.arr.catchUp();
    h.clock.advance(24 * 3_600_000);
    await h.arr.catchUp();
    expect(levels(h, 'info').filter((m) => m.includes('taken as its library now'))).toHaveLength(1);
    sonarr.deleteItem(show(10));
    h.clock.advance(300_000);
    await h.arr.catchUp();
    expect(queued(h).map((f) => f.folder)).toEqual(['/data/media/tv/Show 1', '/data/media/tv/Show 10']);
    expect(levels(h, 'warn')).toHaveLength(2);
    // The real deletes only: what the shrunk list lost was never queued, so never caught up.
    expect(await caughtUp(h, 'sonarr')).toEqual({ health: 2, dashboard: 2, metric: 2 });
  });

  // Issue 52, finding 6: padding the list with invented folders first let the next answer drop every real one.
  it('a list padded with folders at once is kept only after a day: dropping the real ones next is still most of the list gone', async () => {
    h = await arrHarness(['sonarr']);
    const [sonarr] = h.apps;
    for (let n = 1; n <= 10; n++) sonarr.addItem(show(n));
    await h.arr.catchUp();
    const real = [...sonarr.library];
    for (let n = 1; n <= 30; n++) sonarr.addItem(`/tv/Padding ${n}`);
    h.clock.advance(300_000);
    await h.arr.catchUp();
    sonarr.library = sonarr.library.filter((i) => !real.includes(i));
    h.clock.advance(300_000);
    await h.arr.catchUp();
    expect(queued(h)).toEqual([]);
    expect(levels(h, 'warn')).toEqual([expect.stringMatching(/^sonarr 'sonarr''s series list lost 10 of its 10 folders at once/)]);
    // A real delete among the kept folders is still found while the growth is held.
    sonarr.library = [...real.slice(1), ...sonarr.library];
    h.clock.advance(300_000);
    await h.arr.catchUp();
    expect(queued(h).map((f) => f.folder)).toEqual(['/data/media/tv/Show 1']);
  });

  it('a list that fails keeps the last one (one WARN) and the history is still caught up; the delete is found when the list answers', async () => {
    h = await arrHarness(['sonarr']);
    const [sonarr] = h.apps;
    for (let n = 1; n <= 4; n++) sonarr.addItem(show(n));
    await h.arr.catchUp();
    sonarr.deleteItem(show(2));
    sonarr.write({ seriesId: 3, episodeId: 3, sourceTitle: 'Show.3.S01E01', downloadId: 'd3', eventType: 'downloadFolderImported', data: { importedPath: '/tv/Show 3/Season 01/Show 3 - S01E01.mkv' }, id: 3 }, h.clock.now());
    sonarr.failureFor = /\/series$/;
    sonarr.failure = { status: 500, body: 'database is locked' };
    for (let i = 0; i < 2; i++) {
      h.clock.advance(60_000);
      await h.arr.catchUp();
    }
    expect(queued(h).map((f) => f.folder)).toEqual(['/data/media/tv/Show 3/Season 01']);
    expect(levels(h, 'warn')).toEqual([
      `Could not read sonarr 'sonarr''s series list: sonarr 'sonarr' at ${sonarr.url}/api/v3 answered 500 Internal Server Error to GET /series: database is locked. What it deleted is compared with its last list when it answers; nothing is lost meanwhile.`,
    ]);
    expect(h.arr.status()[0].state).toBe('up');
    expect(await caughtUp(h, 'sonarr')).toEqual({ health: 1, dashboard: 1, metric: 1 });
    sonarr.failure = undefined;
    h.clock.advance(60_000);
    await h.arr.catchUp();
    expect(queued(h).map((f) => f.folder).sort()).toEqual(['/data/media/tv/Show 2', '/data/media/tv/Show 3/Season 01']);
    expect(levels(h, 'info')).toContain("sonarr 'sonarr''s series list is read again.");
    expect(await caughtUp(h, 'sonarr')).toEqual({ health: 2, dashboard: 2, metric: 2 });
  });

  it('a queue that cannot take the deletes counts none of them: the last list is kept, and they are queued and counted once when it can', async () => {
    h = await arrHarness(['sonarr']);
    for (let n = 1; n <= 4; n++) h.apps[0].addItem(show(n));
    await h.arr.catchUp();
    h.apps[0].deleteItem(show(3));
    const intake = h.service.intake;
    const submit = intake.submit.bind(intake);
    intake.submit = async () => {
      throw new Error("could not write the queue (SQLITE_FULL): check that the queue file's disk has space and is writable");
    };
    h.clock.advance(60_000);
    await h.arr.catchUp();
    expect(queued(h)).toEqual([]);
    expect(levels(h, 'warn')).toEqual([
      "Could not queue the folders of what sonarr 'sonarr' deleted: could not write the queue (SQLITE_FULL): check that the queue file's disk has space and is writable. Its last list is kept and compared again next time.",
    ]);
    expect(await caughtUp(h, 'sonarr')).toEqual({ health: 0, dashboard: 0, metric: 0 });
    intake.submit = submit;
    for (let i = 0; i < 2; i++) {
      h.clock.advance(60_000);
      await h.arr.catchUp();
    }
    expect(queued(h).map((f) => f.folder)).toEqual(['/data/media/tv/Show 3']);
    expect(await caughtUp(h, 'sonarr')).toEqual({ health: 1, dashboard: 1, metric: 1 });
  });

  it('the list is kept in the queue file: deletes while scanrelay was stopped are found after a restart, and a queue file without one starts from the first list', async () => {
    h = await arrHarness(['sonarr']);
    for (let n = 1; n <= 4; n++) h.apps[0].addItem(show(n));
    await h.arr.catchUp();
    const { queuefile, clock } = h;
    const library = h.apps[0].library;
    await h.service.close();
    const again = await arrHarness(['sonarr'], { queuefile });
    again.apps[0].library = library.filter((i) => i.path !== show(4));
    again.clock.set(clock.now() + 3_600_000);
    await h.close();
    h = again;
    await h.arr.catchUp();
    expect(queued(h)).toEqual([{ folder: '/data/media/tv/Show 4', source: 'sonarr-history', event: 'SeriesDelete', requests: 1 }]);
    expect(await caughtUp(h, 'sonarr')).toEqual({ health: 1, dashboard: 1, metric: 1 });
  });
});
