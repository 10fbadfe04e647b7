// The Jellyfin model itself (test/fakes/jellyfin-*.ts): the monitor merges and climbs as the server's does,
// validates cost what they walk and run one at a time, and new files become items only when a validate that
// covers them ends. The benchmark and the scan-plan tests rely on these.
import { afterEach, describe, expect, it } from 'vitest';
import { episodeFile, movieFile, movieFolder, movieLibrary, seasonFolder, tvLibrary } from '../fakes/jellyfin-libraries.js';
import { startJellyfinServer, type JellyfinServer } from '../fakes/jellyfin-server.js';
import { startEmbyServer } from '../fakes/emby.js';
import { DotNetPriorityQueue, PRIORITY } from '../fakes/refresh-queue.js';

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

  it('is fed by the server’s own watcher where real-time monitoring is on and the disk is local, never on a network mount', async () => {
    const { model, monitor, scheduler, tv, movies } = await world();
    tv.realtimeMonitor = true;
    movies.realtimeMonitor = true;
    movies.networkMount = true;
    model.writeFile(episodeFile('/tv', 1, 1, 9));
    model.writeFile(movieFile('/movies', 30));
    await scheduler.advance(59_999);
    expect(monitor.fired).toEqual([]);
    await scheduler.advance(1);
    expect(monitor.fired.map((f) => f.items)).toEqual([[seasonFolder('/tv', 1, 1)]]);
    await scheduler.runUntilIdle();
    expect(model.itemAt(episodeFile('/tv', 1, 1, 9))).toBeDefined();
    expect(model.itemAt(movieFile('/movies', 30))).toBeUndefined();
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

describe('the refresh queue: .NET’s PriorityQueue, not first in first out', () => {
  it('dequeues equal priorities head first, then newest first; High before Normal', () => {
    const q = new DotNetPriorityQueue<string>();
    for (const s of ['S1', 'S2', 'S3', 'ROOT']) q.enqueue(s, PRIORITY.High);
    expect([q.dequeue(), q.dequeue(), q.dequeue(), q.dequeue(), q.dequeue()]).toEqual(['S1', 'ROOT', 'S3', 'S2', undefined]);
    q.enqueue('normal', PRIORITY.Normal);
    q.enqueue('high', PRIORITY.High);
    expect([q.dequeue(), q.dequeue()]).toEqual(['high', 'normal']);
  });

  it('runs a library refresh sent after eight season refreshes before most of them', async () => {
    const { server: s, model, scheduler, tv } = await world();
    const seasons = [1, 2, 3].flatMap((n) => [1, 2].map((m) => model.itemAt(seasonFolder('/tv', n, m))!)).slice(0, 6);
    seasons.push(model.itemAt('/tv/Series 0001')!, model.itemAt('/tv/Series 0002')!);
    for (const item of seasons) await post(s, `/Items/${item.Id}/Refresh`);
    await post(s, `/Items/${tv.id}/Refresh`);
    await scheduler.runUntilIdle();
    // The first runs at once; then the head of the heap, then the newest: the library walk is third.
    expect(model.validates.map((v) => v.path).indexOf('/tv')).toBe(2);
  });

  it('reads RefreshStatus as the server does: Queued only for the library’s own item; a monitor walk reads Idle until it runs', async () => {
    const { server: s, model, monitor, scheduler, tv, movies } = await world();
    await post(s, `/Items/${model.itemAt('/tv/Series 0001')!.Id}/Refresh`);
    await post(s, `/Items/${tv.id}/Refresh`);
    expect(model.refreshStatus(tv)).toBe('Queued');
    await scheduler.runUntilIdle();
    monitor.report('/tv/New Series');
    await scheduler.advance(59_999);
    await post(s, `/Items/${movies.id}/Refresh`);
    await scheduler.advance(1);
    // The monitor climbed to the location's physical folder, which waits behind the movie walk.
    expect(model.isQueued(tv.physicalId)).toBe(true);
    expect(model.refreshStatus(tv)).toBe('Idle');
    await scheduler.advance(100);
    expect(model.refreshStatus(tv)).toBe('Active');
  });

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

describe('the Targeted Scans plugin (d3v1l1989/targeted-scans@0b5cabe)', () => {
  const json = async (r: Response) => (await r.json()) as { Status: string; Results?: { Status: string; Path: string }[] };

  it('creates a new episode file at once, its refresh at High and its ancestors’ Default refreshes at Normal', async () => {
    const { server: s, model, scheduler } = await world({ plugin: true });
    const file = episodeFile('/tv', 1, 1, 6);
    model.writeFile(file);
    const created = await post(s, '/Library/ScanPath', { Path: file });
    expect([created.status, (await json(created)).Status]).toEqual([200, 'Created']);
    expect(model.shownAt(file)).toBe(s.clock.now());
    await scheduler.runUntilIdle();
    // The new episode (1 entry), then the series and the season, top down (TargetedScanService.cs L404-433).
    expect(model.validates.map((v) => [v.path, v.priority, v.options.mode, v.options.replaceAll])).toEqual([
      [file, 'High', 'FullRefresh', true],
      ['/tv/Series 0001', 'Normal', 'Default', false],
      [seasonFolder('/tv', 1, 1), 'Normal', 'Default', false],
    ]);
    // The new item had no metadata to lose: nothing counts as replaced.
    expect(model.replacements).toEqual([]);
  });

  it('answers a path that is already an item Refreshed and replaces the metadata of it and everything below it', async () => {
    const { server: s, model, scheduler } = await world({ plugin: true });
    const refreshed = await post(s, '/Library/ScanPath', { Path: seasonFolder('/tv', 1, 1) });
    expect([refreshed.status, (await json(refreshed)).Status]).toEqual([200, 'Refreshed']);
    expect(model.running).toMatchObject({ path: seasonFolder('/tv', 1, 1), priority: 'Normal', options: { mode: 'FullRefresh', replaceAll: true } });
    await scheduler.runUntilIdle();
    // The season and its five episodes.
    expect(model.replacements.map((r) => r.path)).toHaveLength(6);
  });

  it('re-creates a movie sent by its folder: same id, saved anew, its metadata gone', async () => {
    const { server: s, model } = await world({ plugin: true });
    const before = model.itemAt(movieFile('/movies', 3))!.Id;
    expect((await json(await post(s, '/Library/ScanPath', { Path: movieFolder('/movies', 3) }))).Status).toBe('Created');
    expect(model.itemAt(movieFile('/movies', 3))!.Id).toBe(before);
    expect(model.replacements.map((r) => r.path)).toEqual([movieFile('/movies', 3)]);
  });

  it('leaves the old movie of an upgrade sent by folder, and removes it when sent the deleted file', async () => {
    const { server: s, model } = await world({ plugin: true });
    const old = movieFile('/movies', 5);
    const upgraded = `${movieFolder('/movies', 5)}/Movie 00005 (2020) Bluray-2160p.mkv`;
    model.remove(old);
    model.writeFile(upgraded);
    await post(s, '/Library/ScanPath', { Path: movieFolder('/movies', 5) });
    expect(model.itemAt(upgraded)).toBeDefined();
    expect(model.itemAt(old)).toBeDefined(); // a duplicate pointing at a deleted file
    // The single route answers Removed as HTTP 500 "Failed" (ScanPathController.cs L92-96); the batch says Removed.
    const removed = await post(s, '/Library/ScanPath', { Path: old });
    expect([removed.status, (await json(removed)).Status]).toEqual([500, 'Failed']);
    expect(model.itemAt(old)).toBeUndefined();
    expect((await post(s, '/Library/ScanPath', { Path: old })).status).toBe(404);
  });

  it('takes several paths in one ScanPaths batch, shallowest first, each answered by name', async () => {
    const { server: s, model } = await world({ plugin: true });
    model.remove(episodeFile('/tv', 2, 1, 1));
    model.writeFile(episodeFile('/tv', 2, 1, 6));
    const batch = await post(s, '/Library/ScanPaths', { Paths: [episodeFile('/tv', 2, 1, 6), episodeFile('/tv', 2, 1, 1), '/tv/Nothing'] });
    expect(batch.status).toBe(200);
    expect((await json(batch)).Results!.map((r) => [r.Path, r.Status])).toEqual([
      ['/tv/Nothing', 'PathNotFound'],
      [episodeFile('/tv', 2, 1, 6), 'Created'],
      [episodeFile('/tv', 2, 1, 1), 'Removed'],
    ]);
    expect((await post(s, '/Library/ScanPaths', { Paths: [] })).status).toBe(400);
  });

  it('answers an empty path with ASP.NET’s validation problem, and as Emby always 200 with the Status', async () => {
    const { server: s } = await world({ plugin: true });
    expect((await post(s, '/Library/ScanPath', { Path: '' })).status).toBe(400);
    const emby = await startEmbyServer({ plugin: true });
    try {
      tvLibrary(emby.model, '/tv', { series: 1, seasons: 1, episodes: 1 });
      emby.model.settle();
      emby.model.remove(episodeFile('/tv', 1, 1, 1));
      const r = await fetch(`${emby.url}/Library/ScanPath`, { method: 'POST', headers: { 'X-Emby-Token': emby.token, 'Content-Type': 'application/json' }, body: JSON.stringify({ Path: episodeFile('/tv', 1, 1, 1) }) });
      expect([r.status, (await json(r)).Status]).toEqual([200, 'Removed']);
    } finally {
      await emby.close();
    }
  });

  it('is a 404 without a body when the plugin is not installed', async () => {    const { server: s } = await world();
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
