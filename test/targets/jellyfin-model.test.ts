// The Jellyfin model itself (test/fakes/jellyfin-*.ts): the monitor merges and climbs as the server's does,
// validates cost what they walk and run one at a time, and new files become items only when a validate that
// covers them ends. The benchmark and the scan-plan tests rely on these.
import { afterEach, describe, expect, it } from 'vitest';
import { episodeFile, movieFile, movieFolder, movieLibrary, seasonFolder, tvLibrary } from '../fakes/jellyfin-libraries.js';
import { startJellyfinServer, type JellyfinServer } from '../fakes/jellyfin-server.js';

let server: JellyfinServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function world(opts: { plugin?: boolean } = {}) {
  server = await startJellyfinServer({ plugin: opts.plugin });
  const { model } = server;
  const tv = tvLibrary(model, '/tv', { series: 3, seasons: 2, episodes: 5 });
  const movies = movieLibrary(model, '/movies', 10);
  model.settle();
  return { server, model, tv, movies, monitor: server.monitor, scheduler: server.scheduler };
}

const post = (s: JellyfinServer, path: string, body?: unknown) =>
  fetch(s.url + path, {
    method: 'POST',
    headers: { Authorization: `MediaBrowser Token="${s.token}"`, 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

describe('the library monitor (POST /Library/Media/Updated)', () => {
  it('merges sibling seasons onto their series and fires LibraryMonitorDelay after the last report', async () => {
    const { server: s, model, scheduler } = await world();
    model.writeFile(episodeFile('/tv', 1, 1, 6));
    model.writeFile(episodeFile('/tv', 1, 2, 6));
    expect((await post(s, '/Library/Media/Updated', { Updates: [{ Path: seasonFolder('/tv', 1, 1), UpdateType: 'Created' }] })).status).toBe(204);
    await scheduler.advance(50_000);
    await post(s, '/Library/Media/Updated', { Updates: [{ Path: seasonFolder('/tv', 1, 2), UpdateType: 'Created' }] });
    // The timer restarted at 50 s: nothing at 60 s, the merged refresher fires at 110 s.
    await scheduler.advance(10_001);
    expect(s.monitor.fired).toHaveLength(0);
    await scheduler.advance(50_000);
    expect(s.monitor.fired).toHaveLength(1);
    // The refresher keeps every path it was given as well as the parent it moved to: each is refreshed.
    expect(s.monitor.fired[0].items).toEqual([seasonFolder('/tv', 1, 1), '/tv/Series 0001', seasonFolder('/tv', 1, 2)]);
    await scheduler.runUntilIdle();
    expect(model.validates.map((v) => v.path)).toContain('/tv/Series 0001');
    expect(model.shownAt(episodeFile('/tv', 1, 2, 6))).toBeDefined();
  });

  it('sends every movie folder to the library root: a movie folder is no item', async () => {
    const { model, monitor, scheduler } = await world();
    model.writeFile(movieFile('/movies', 11));
    monitor.report(movieFolder('/movies', 11));
    monitor.report(movieFolder('/movies', 3));
    await scheduler.runUntilIdle();
    expect(monitor.fired.map((f) => f.items)).toEqual([['/movies']]);
    // The whole library walked: 10 movies + the new one, a folder and a file each, and the root.
    expect(model.validates.map((v) => v.entries)).toEqual([23]);
    expect(model.itemAt(movieFile('/movies', 11))).toBeDefined();
  });

  it('climbs from a new season folder to the series, the nearest item the database knows', async () => {
    const { model, monitor, scheduler } = await world();
    model.writeFile(episodeFile('/tv', 2, 3, 1));
    monitor.report(seasonFolder('/tv', 2, 3));
    await scheduler.runUntilIdle();
    expect(monitor.fired[0].items).toEqual(['/tv/Series 0002']);
    expect(model.itemAt(seasonFolder('/tv', 2, 3))?.Type).toBe('Season');
  });

  it('keeps seasons of different series apart (their parents differ), then merges a new series onto the root', async () => {
    const { monitor, scheduler } = await world();
    monitor.report(seasonFolder('/tv', 1, 1));
    monitor.report(seasonFolder('/tv', 2, 1));
    expect(monitor.active).toBe(2);
    monitor.report('/tv/Series 0001');
    monitor.report('/tv/New Series');
    await scheduler.runUntilIdle();
    expect(monitor.fired.flatMap((f) => f.items)).toContain('/tv');
  });
});

describe('the refresh queue', () => {
  it('runs one validate at a time, each costing the entries below its item', async () => {
    const { server: s, model, scheduler } = await world();
    const season = model.itemAt(seasonFolder('/tv', 1, 1))!;
    const root = model.itemAt('/tv')!;
    expect((await post(s, `/Items/${root.Id}/Refresh`)).status).toBe(204);
    expect((await post(s, `/Items/${season.Id}/Refresh`)).status).toBe(204);
    expect((await post(s, '/Items/ffff/Refresh')).status).toBe(404);
    // The TV library: 3 series x (1 + 2 seasons x (1 + 5 episodes)) = 39 entries, and the root.
    expect(model.running?.entries).toBe(40);
    expect(model.queued).toBe(1);
    await scheduler.advance(40 * 2);
    expect(model.running?.path).toBe(season.Path);
    expect(model.running?.entries).toBe(6);
    await scheduler.runUntilIdle();
    expect(model.walked).toBe(46);
  });

  it('shows a new file only once a validate that began after it ends', async () => {
    const { model, scheduler } = await world();
    const season = model.itemAt(seasonFolder('/tv', 3, 1))!;
    const early = episodeFile('/tv', 3, 1, 6);
    const late = episodeFile('/tv', 3, 1, 7);
    model.writeFile(early);
    model.queueRefresh(season.Id, 'test');
    model.writeFile(late);
    expect(model.itemAt(early)).toBeUndefined();
    await scheduler.runUntilIdle();
    // At the validate's end (the LibraryChanged 30 s later is the last event of the run).
    expect(model.shownAt(early)).toBe(model.validates.at(-1)!.endsAt);
    expect(model.itemAt(late)).toBeUndefined();
    expect(model.shownAt(late)).toBeUndefined();
  });

  it('removes the items of files gone from disk when their folder is validated', async () => {
    const { model, scheduler } = await world();
    const gone = episodeFile('/tv', 1, 2, 3);
    model.remove(gone);
    model.queueRefresh(model.itemAt(seasonFolder('/tv', 1, 2))!.Id, 'test');
    await scheduler.runUntilIdle();
    expect(model.itemAt(gone)).toBeUndefined();
    expect(model.shownAt(gone)).toBe(model.validates.at(-1)!.endsAt);
  });
});

describe('the Targeted Scans plugin (POST /Library/ScanPath)', () => {
  it('creates a new movie at once, refreshes a known item, and answers 404 and 500 as the plugin does', async () => {
    const { server: s, model } = await world({ plugin: true });
    model.writeFile(movieFile('/movies', 12));
    const created = await post(s, '/Library/ScanPath', { Path: movieFolder('/movies', 12) });
    expect(created.status).toBe(200);
    expect(((await created.json()) as { Status: string }).Status).toBe('Created');
    expect(model.shownAt(movieFile('/movies', 12))).toBe(s.clock.now());

    const refreshed = await post(s, '/Library/ScanPath', { Path: seasonFolder('/tv', 1, 1) });
    expect(((await refreshed.json()) as { Status: string }).Status).toBe('Refreshed');
    expect(model.running?.path).toBe(seasonFolder('/tv', 1, 1));

    expect((await post(s, '/Library/ScanPath', { Path: '/movies/Nothing (1999)' })).status).toBe(404);
    model.remove('/tv/Series 0003');
    const removed = await post(s, '/Library/ScanPath', { Path: '/tv/Series 0003' });
    expect(removed.status).toBe(500);
    expect(((await removed.json()) as { Status: string }).Status).toBe('Removed');
    expect(model.itemAt('/tv/Series 0003')).toBeUndefined();
  });

  it('is a 404 without a body when the plugin is not installed', async () => {
    const { server: s } = await world();
    const res = await post(s, '/Library/ScanPath', { Path: '/movies' });
    expect(res.status).toBe(404);
    expect(await res.text()).toBe('');
  });
});

describe('GET /Items', () => {
  it('lists one parent’s children, folders only when asked, paged, with Path only when Fields asks', async () => {
    const { server: s, tv } = await world();
    const get = async (q: string) =>
      (await (await fetch(`${s.url}/Items?${q}`, { headers: { Authorization: `MediaBrowser Token="${s.token}"` } })).json()) as {
        Items: { Path?: string }[];
        TotalRecordCount: number;
      };
    const page = await get(`ParentId=${tv.id}&Filters=IsFolder&Fields=Path&StartIndex=1&Limit=1`);
    expect(page.TotalRecordCount).toBe(3);
    expect(page.Items.map((i) => i.Path)).toEqual(['/tv/Series 0002']);
    expect((await get(`parentId=${tv.id}`)).Items[0].Path).toBeUndefined();
  });
});
