// Jellyfin as people lay out their libraries, through the real service against the model server
// (test/fakes/jellyfin-model.ts and the plugins in jellyfin-targeted-scan.ts): series without season folders,
// in-between folders under a movie location, a library with several locations, season packs, and deletes that
// kept their files, deleted them, or deleted a movie's folder. On each, with and without the Targeted Scans plugin:
// no existing item's metadata replaced or item removed by anything scanrelay sent (the model's `replacements` and
// `lost`), deleted items gone, new items there, at most one walk of what holds them per burst (two for a season pack).
import { afterEach, describe, expect, it } from 'vitest';
import { episodeFile, movieFile, movieFolder, movieLibrary, seriesName, tvLibrary } from '../fakes/jellyfin-libraries.js';
import type { JellyfinServer } from '../fakes/jellyfin-server.js';
import type { ScanPlugin } from '../fakes/jellyfin-targeted-scan.js';
import { jellyfinService, radarrDownload, sonarrDownload, sonarrEpisodeDeleted, sonarrImport, type JellyfinService } from '../support/jellyfin-service.js';

let t: JellyfinService | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

/** A series laid out without season folders (anime, specials): its episodes directly in the series folder. */
const flatEpisode = (e: number) => `/tv/Flat/Flat - ${String(e).padStart(3, '0')}.mkv`;
/** Movies in an in-between folder below the location, as /movies/hd/<Movie>/<Movie>.mkv. */
const hdMovie = (n: number) => `${movieFolder('/movies/hd', n)}/Movie ${String(n).padStart(5, '0')} (2020).mkv`;

async function start(plugin: boolean, opts: { scanPlugin?: ScanPlugin; locations?: string[] } = {}): Promise<JellyfinService> {
  t = await jellyfinService({
    plugin,
    scanPlugin: opts.scanPlugin,
    msPerEntry: 2,
    msPerNewItem: 50,
    setup: (s) => {
      tvLibrary(s.model, '/tv', { series: 3, seasons: 2, episodes: 4 });
      for (let e = 1; e <= 12; e++) s.model.writeFile(flatEpisode(e));
      if (opts.locations) {
        s.model.addLibrary('Movies', 'movies', opts.locations);
        opts.locations.forEach((l, i) => [1, 2, 3, 4].forEach((m) => s.model.writeFile(movieFile(l, 10 * i + m))));
      } else {
        movieLibrary(s.model, '/movies', 6);
        for (let m = 1; m <= 8; m++) s.model.writeFile(hdMovie(m));
      }
      s.model.settle();
    },
  });
  await t.run(1_000); // changes are later than the library's settled state
  return t;
}

/** The same case without the plugin, then with it: each on a fresh server. */
async function bothWays(run: (plugin: boolean) => Promise<void>): Promise<void> {
  for (const plugin of [false, true]) {
    await run(plugin);
    await t?.close();
    t = undefined;
  }
}

/** Nothing scanrelay sent replaced an existing item's metadata or removed an item still on disk. */
function untouched(s: JellyfinServer): void {
  expect(s.model.replacements).toEqual([]);
  expect(s.model.lost).toEqual([]);
}

/** Walks of folder items (a movie's or an episode's own refresh is no walk), past the library's settled state. */
const walks = (s: JellyfinServer) => s.model.validates.filter((v) => s.model.items.get(v.itemId)?.IsFolder !== false && !v.why.includes('(Created Movie)') && !v.why.includes('(Created Episode)'));
const pluginCalls = (s: JellyfinServer) => s.requests.filter((r) => r.path.startsWith('/Library/ScanPath') && (r.body as { Path?: string }).Path !== '');

describe('series without season folders', () => {
  it('with and without the plugin: an upgrade that keeps its file name touches that episode only, a new episode appears', () =>
    bothWays(async (plugin) => {
      const { server, webhook, run } = await start(plugin);
      const upgraded = flatEpisode(3);
      server.model.writeFile(upgraded);
      await webhook('sonarr', { ...sonarrDownload(upgraded), isUpgrade: true, deletedFiles: [{ path: upgraded }] });
      await run(20_000);
      untouched(server);
      // Jellyfin's own Default refresh overwrites the changed file's unlocked fields; nothing else is touched.
      expect(server.model.overwritten.map((o) => o.path)).toEqual([upgraded]);
      const added = flatEpisode(13);
      server.model.writeFile(added);
      await webhook('sonarr', sonarrDownload(added));
      await run(20_000);
      expect(server.model.itemAt(added)?.Type).toBe('Episode');
      untouched(server);
    }));
});

describe('an in-between folder under a movie location', () => {
  it('with and without the plugin: a new movie in /movies/hd walks /movies/hd once and removes none of its movies', () =>
    bothWays(async (plugin) => {
      const { server, webhook, run } = await start(plugin);
      const added = hdMovie(9);
      server.model.writeFile(added);
      await webhook('radarr', radarrDownload(added));
      await run(20_000);
      expect(server.model.itemAt(added)?.Type).toBe('Movie');
      untouched(server);
      expect(walks(server).map((v) => v.walkedPaths)).toEqual([['/movies/hd']]);
      expect(pluginCalls(server)).toEqual([]);
    }));
});

describe('a library with several locations', () => {
  it('with and without the plugin: a burst of new movies in one location walks that location once, not the other', () =>
    bothWays(async (plugin) => {
      const { server, webhook, run } = await start(plugin, { locations: ['/movies', '/movies-4k'] });
      const added = [movieFile('/movies-4k', 31), movieFile('/movies-4k', 32)];
      const first = server.clock.now();
      for (const f of added) {
        server.model.writeFile(f);
        await webhook('radarr', radarrDownload(f));
        await run(200);
      }
      await run(30_000);
      for (const f of added) expect(server.model.itemAt(f)?.Type).toBe('Movie');
      untouched(server);
      expect(walks(server).flatMap((v) => v.walkedPaths)).toEqual(plugin ? [] : ['/movies-4k']);
      // Sent once the burst had its SERVER_SCAN_DELAY (1 s here) and ROOT_HOLD_MS (5 s); no existing movie read anew.
      if (!plugin) expect(walks(server)[0].startedAt - first).toBeLessThanOrEqual(1_000 + 5_000 + 500);
      expect(server.model.overwritten).toEqual([]);
    }));
});

describe('a season pack', () => {
  it('with and without the plugin, in one import or file by file: ten episodes of a new season cost at most two walks', () =>
    bothWays(async (plugin) => {
      for (const [season, how] of [[3, 'in one import'], [4, 'file by file']] as const) {
        const { server, webhook, run } = await start(plugin);
        const files = Array.from({ length: 10 }, (_, i) => episodeFile('/tv', 2, season, i + 1));
        for (const f of files) server.model.writeFile(f);
        if (how === 'in one import') await webhook('sonarr', sonarrImport(files));
        else for (const f of files) await webhook('sonarr', sonarrDownload(f));
        await run(30_000);
        for (const f of files) expect(server.model.itemAt(f)?.Type).toBe('Episode');
        untouched(server);
        expect(walks(server).length, how).toBeLessThanOrEqual(2);
        await t?.close();
        t = undefined;
      }
    }));

  it('with and without the plugin: a pack that makes a new series costs at most two walks, none of the library', () =>
    bothWays(async (plugin) => {
      const { server, webhook, run } = await start(plugin);
      const files = Array.from({ length: 10 }, (_, i) => episodeFile('/tv', 8, 1, i + 1));
      for (const f of files) server.model.writeFile(f);
      for (const f of files) await webhook('sonarr', sonarrDownload(f));
      await run(30_000);
      for (const f of files) expect(server.model.itemAt(f)?.Type).toBe('Episode');
      untouched(server);
      // Without the plugin the only call that adds a series is the library's walk (docs/targets.md).
      if (plugin) expect(walks(server).length).toBeLessThanOrEqual(2);
      expect(walks(server).filter((v) => v.itemId === server.model.libraries[0].id).length).toBeLessThanOrEqual(plugin ? 0 : 1);
    }));
});

describe('deletes', () => {
  const series = `/tv/${seriesName(1)}`;
  it('with and without the plugin: a SeriesDelete or MovieDelete that kept the files (deletedFiles false, or not said) changes nothing', () =>
    bothWays(async (plugin) => {
      const { server, webhook, run } = await start(plugin);
      await webhook('sonarr', { eventType: 'SeriesDelete', series: { id: 1, title: 'x', path: series }, deletedFiles: false });
      await webhook('radarr', { eventType: 'MovieDelete', movie: { id: 1, title: 'x', folderPath: movieFolder('/movies', 2) }, deletedFiles: false, movieFolderSize: 0 });
      // The catch-up's item-list delete says nothing of the files: the disk does.
      await webhook('sonarr', { eventType: 'SeriesDelete', series: { id: 2, title: 'y', path: '/tv/Flat' } });
      await run(30_000);
      untouched(server);
      expect(server.model.itemAt(series)).toBeDefined();
      expect(server.model.itemAt(flatEpisode(1))).toBeDefined();
      expect(server.model.itemAt(movieFile('/movies', 2))).toBeDefined();
      expect(pluginCalls(server)).toEqual([]);
    }));

  it('with and without the plugin: deleted files are no longer items, a folder left behind (a sidecar the app did not own) included', () =>
    bothWays(async (plugin) => {
      const { server, webhook, run } = await start(plugin);
      // Radarr deleted the movie's files; a subtitle it did not import keeps the folder on disk.
      server.model.remove(movieFile('/movies', 3));
      server.model.disk.set(`${movieFolder('/movies', 3)}/notes.txt`, { kind: 'file', changedAt: server.clock.now() });
      await webhook('radarr', { eventType: 'MovieDelete', movie: { id: 3, title: 'x', folderPath: movieFolder('/movies', 3) }, deletedFiles: true, movieFolderSize: 1 });
      server.model.remove(flatEpisode(5));
      await webhook('sonarr', sonarrEpisodeDeleted(flatEpisode(5)));
      server.model.remove(hdMovie(6));
      await webhook('radarr', { eventType: 'MovieFileDelete', movie: { id: 6, title: 'x', folderPath: movieFolder('/movies/hd', 6) }, movieFile: { id: 6, relativePath: hdMovie(6).split('/').pop(), path: hdMovie(6) }, deleteReason: 'manual' });
      await run(30_000);
      for (const gone of [movieFile('/movies', 3), flatEpisode(5), hdMovie(6)]) expect(server.model.itemAt(gone), gone).toBeUndefined();
      untouched(server);
    }));

  it('with and without the plugin: a deleted movie folder, in-between folder or not, and a deleted series are no longer items', () =>
    bothWays(async (plugin) => {
      const { server, webhook, run } = await start(plugin);
      server.model.remove(movieFolder('/movies', 3));
      await webhook('radarr', { eventType: 'MovieDelete', movie: { id: 3, title: 'x', folderPath: movieFolder('/movies', 3) }, deletedFiles: true, movieFolderSize: 1 });
      server.model.remove(movieFolder('/movies/hd', 4));
      await webhook('radarr', { eventType: 'MovieDelete', movie: { id: 4, title: 'x', folderPath: movieFolder('/movies/hd', 4) }, deletedFiles: true, movieFolderSize: 1 });
      server.model.remove(series);
      await webhook('sonarr', { eventType: 'SeriesDelete', series: { id: 1, title: 'x', path: series }, deletedFiles: true });
      await run(30_000);
      for (const gone of [movieFile('/movies', 3), hdMovie(4), series]) expect(server.model.itemAt(gone), gone).toBeUndefined();
      untouched(server);
    }));
});

describe('Omniscan on the plugin routes', () => {
  it('reads Existing as nothing to do and Error as a failure that falls back: new movies are items, a deleted episode goes, nothing is retried', async () => {
    const { server, service, webhook, run, logged } = await start(true, { scanPlugin: 'omniscan' });
    const added = movieFile('/movies', 9);
    server.model.writeFile(added);
    await webhook('radarr', radarrDownload(added));
    const gone = episodeFile('/tv', 3, 2, 2);
    server.model.remove(gone);
    await webhook('sonarr', sonarrEpisodeDeleted(gone));
    await run(30_000);
    expect(server.model.itemAt(added)?.Type).toBe('Movie');
    expect(server.model.itemAt(gone)).toBeUndefined();
    untouched(server);
    // Omniscan never deletes: the gone file's item is still there, answered Existing; its season is refreshed instead.
    expect(logged('could not make an item').join('\n')).toContain('Existing');
    expect(service.queue.list()).toEqual([]);
  });
});

describe('what the doctor says of the plugin routes', () => {
  it('names the plugins and Jellyfin versions checked with one, and what Jellyfin 12 gets without', () =>
    bothWays(async (plugin) => {
      const { server, service, webhook, run } = await start(plugin);
      server.model.writeFile(movieFile('/movies', 9));
      await webhook('radarr', radarrDownload(movieFile('/movies', 9)));
      await run(10_000);
      const notes = service.targets[0].serverNotes?.() ?? [];
      // The path doctor says the same beside what a folder's scan would refresh.
      const doctor = (await service.targets[0].explainScan?.('/movies/Movie 00001 (2020)')) ?? '';
      for (const said of [notes.join('\n'), doctor]) {
        if (plugin) expect(said).toMatch(/Targeted Scans 1\.9\.0.*Jellyfin 10\.11 only.*Omniscan/);
        else expect(said).toMatch(/no Targeted Scans plugin.*one walk of the location.*Jellyfin 12/);
      }
    }));
});

describe('a backlog of slow season refreshes', () => {
  it('without the plugin: each episode is confirmed when its season’s refresh shows it, however long the seasons before it take', async () => {
    t = await jellyfinService({
      msPerEntry: 2,
      // Each new episode's first refresh (probe, providers, images) outlasts the watch's idle grace.
      msPerNewItem: 60_000,
      setup: (s) => {
        tvLibrary(s.model, '/tv', { series: 4, seasons: 2, episodes: 3 });
        s.model.settle();
      },
    });
    const { server, service, webhook, run } = t;
    await run(1_000);
    const files = [1, 2, 3, 4].map((n) => episodeFile('/tv', n, 2, 9));
    for (const f of files) {
      server.model.writeFile(f);
      await webhook('sonarr', sonarrDownload(f));
    }
    await run(330_000);
    for (const f of files) expect(server.model.itemAt(f)?.Type).toBe('Episode');
    // Season refreshes never show in RefreshStatus: the watch is judged by the files each one shows.
    expect(service.queue.history().map((h) => h.outcome)).toEqual(files.map(() => 'confirmed'));
  }, 60_000);
});
