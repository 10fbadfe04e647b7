// Emby as its API says it (Emby.SDK@58acc58): a folder's item found by GET /Items?Path= in one request, no walk
// down; the libraries, their RefreshStatus and real-time monitoring from /Library/VirtualFolders/Query; a server
// that does not apply the Path filter walked down as Jellyfin is. Through the real service against the model
// server answering as Emby.
import { afterEach, describe, expect, it } from 'vitest';
import { episodeFile, movieFile, seasonFolder, tvLibrary } from '../fakes/jellyfin-libraries.js';
import type { JellyfinServer } from '../fakes/jellyfin-server.js';
import { jellyfinService, radarrDownload, sonarrDownload, type JellyfinService, type JellyfinServiceOptions } from '../support/jellyfin-service.js';

let t: JellyfinService | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

async function emby(opts: JellyfinServiceOptions = {}): Promise<JellyfinService> {
  t = await jellyfinService({
    kind: 'emby',
    msPerEntry: 2,
    entry: { SCAN_METHOD: 'item' },
    setup: (s) => {
      tvLibrary(s.model, '/tv', { series: 3, seasons: 2, episodes: 3 }, 'Shows', { realtimeMonitor: true });
      s.model.settle();
    },
    ...opts,
  });
  return t;
}

const byPath = (s: JellyfinServer) => s.requests.filter((r) => r.path === '/Items' && r.query.Path !== undefined).map((r) => r.query.Path);
const walkedDown = (s: JellyfinServer) => s.requests.filter((r) => r.path === '/Items' && r.query.Filters === 'IsFolder').length;
const refreshed = (s: JellyfinServer) => s.requests.filter((r) => r.method === 'POST' && /\/Refresh$/.test(r.path)).map((r) => s.model.items.get(r.path.split('/')[2])?.Path);

describe('emby: an item by its path', () => {
  it('finds a season by GET /Items?Path= in one request, no walk down, and refreshes it', async () => {
    const { server, webhook, run } = await emby();
    const file = episodeFile('/tv', 2, 1, 4);
    server.model.writeFile(file);
    await webhook('sonarr', sonarrDownload(file));
    await run(5_000);
    expect(byPath(server)).toEqual([seasonFolder('/tv', 2, 1)]);
    expect(refreshed(server)).toEqual([seasonFolder('/tv', 2, 1)]);
    // The follow-up finds the season the same way (after the socket's grace: Emby cannot say the token is a key's).
    await run(60_000);
    expect(walkedDown(server)).toBe(0);
    expect(t!.service.queue.history().map((h) => h.outcome)).toEqual(['confirmed']);
  });

  it('asks each level up for a new season, stopping at the series', async () => {
    const { server, webhook, run } = await emby();
    const file = episodeFile('/tv', 3, 3, 1);
    server.model.writeFile(file);
    await webhook('sonarr', sonarrDownload(file));
    await run(5_000);
    expect(byPath(server)).toEqual([seasonFolder('/tv', 3, 3), '/tv/Series 0003']);
    expect(refreshed(server)).toEqual(['/tv/Series 0003']);
  });

  it('walks down as on Jellyfin when the server answers a Path query with other items (the filter not applied)', async () => {
    const { server, webhook, run } = await emby();
    // A server that ignores Path: the model answers every item for it.
    server.omitPathFilter = true;
    const file = episodeFile('/tv', 1, 2, 4);
    server.model.writeFile(file);
    await webhook('sonarr', sonarrDownload(file));
    await run(5_000);
    expect(byPath(server)).toHaveLength(1);
    expect(walkedDown(server)).toBeGreaterThan(0);
    expect(refreshed(server)).toEqual([seasonFolder('/tv', 1, 2)]);
  });
});

describe('emby: /Library/VirtualFolders/Query', () => {
  it('lists the libraries with their real-time monitoring, said in /health', async () => {
    const { service, server } = await emby();
    await service.targets[0].available();
    expect(server.count('GET', '/Library/VirtualFolders/Query')).toBe(1);
    const health = (await service.app.inject({ url: '/health' })).json() as { targets: { notes?: string[] }[] };
    expect(health.targets[0].notes?.[0]).toContain("Real-time monitoring is on for library 'Shows'");
    expect(health.targets[0].notes?.[0]).toContain('untick real time monitoring');
  });

  it('follow-ups wait while a library reads Active in RefreshStatus, not on time alone', async () => {
    const { server, webhook, run } = await emby({ msPerEntry: 1_000 });
    const tv = server.model.libraries[0];
    server.model.queueRefresh(tv.id, 'a scan of the library');
    const file = episodeFile('/tv', 1, 1, 4);
    server.model.writeFile(file);
    await webhook('sonarr', sonarrDownload(file));
    await run(30_000);
    // The walk (about 25 s) is Active past the follow-up's first look at 11 s: no listing until it is over.
    expect(t!.service.queue.history()).toEqual([]);
    await run(40_000);
    expect(t!.service.queue.history().map((h) => h.outcome)).toEqual(['confirmed']);
    expect(t!.logged('once more in')).toEqual([]);
  });
});

describe('emby: the Targeted Scans plugin', () => {
  it('reads its 200 "Failed" as a failure: the item refresh takes the folder', async () => {
    const { server, webhook, run } = await emby({ plugin: true, entry: { SCAN_METHOD: 'auto' } });
    // A new series (its nearest item is the library's own, so the plugin is asked), whose file lies in a folder the
    // plugin cannot resolve (no season or episode there).
    const file = '/tv/A New Show (2026)/Season 01/A New Show - S01E01.strm';
    server.model.writeFile(file);
    await webhook('sonarr', sonarrDownload(file));
    await run(5_000);
    const answered = server.requests.filter((r) => r.path === '/Library/ScanPath' && (r.body as { Path: string }).Path === file);
    expect(answered.map((r) => r.status)).toEqual([200]);
    expect(t!.logged('could not make an item of')).toHaveLength(1);
    // Nothing of the new series was an item to scanrelay: the refresh that takes the folder is the library's.
    await run(60_000);
    const refreshes = server.requests.filter((r) => r.method === 'POST' && /\/Refresh$/.test(r.path)).map((r) => r.path);
    expect(refreshes).toEqual([`/Items/${server.model.libraries[0].id}/Refresh`]);
    expect(server.model.replacements).toEqual([]);
  });
});

describe('emby: a library with several locations', () => {
  it('a burst of new movies in one location refreshes that location, found by its path, not the whole library', async () => {
    const { server, webhook, run } = await emby({
      setup: (s) => {
        s.model.addLibrary('Movies', 'movies', ['/movies', '/movies-4k']);
        for (const [i, l] of ['/movies', '/movies-4k'].entries()) for (const m of [1, 2, 3]) s.model.writeFile(movieFile(l, 10 * i + m));
        s.model.settle();
      },
    });
    await run(1_000);
    const added = [movieFile('/movies-4k', 31), movieFile('/movies-4k', 32)];
    for (const f of added) {
      server.model.writeFile(f);
      await webhook('radarr', radarrDownload(f));
      await run(200);
    }
    await run(30_000);
    for (const f of added) expect(server.model.itemAt(f)?.Type).toBe('Movie');
    // The location's own item, asked for by its path, is the one refreshed: the other location is not walked.
    expect(byPath(server)).toContain('/movies-4k');
    expect(refreshed(server)).toEqual(['/movies-4k']);
    expect(server.model.replacements).toEqual([]);
  });
});
