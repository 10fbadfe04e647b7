// SCAN_METHOD through the real service: arr webhooks in, the jellyfin target out to the model 10.11 server on
// 127.0.0.1 (test/fakes/jellyfin-server.ts), which shows a change only when a validate that covers it ends.
// Time is simulated (test/support/jellyfin-service.ts): "within seconds" is seconds of the shared clock.
import { afterEach, describe, expect, it } from 'vitest';
import { episodeFile, movieFile, movieLibrary, seasonFolder, seriesName, tvLibrary } from '../fakes/jellyfin-libraries.js';
import type { JellyfinServer } from '../fakes/jellyfin-server.js';
import { jellyfinService, radarrDownload, sonarrDownload, sonarrEpisodeDeleted, sonarrSeriesDeleted, type JellyfinService, type JellyfinServiceOptions } from '../support/jellyfin-service.js';

let t: JellyfinService | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

const libraries = (s: JellyfinServer) => {
  tvLibrary(s.model, '/tv', { series: 4, seasons: 2, episodes: 3 });
  movieLibrary(s.model, '/movies', 5);
  s.model.settle();
};

async function start(opts: JellyfinServiceOptions = {}): Promise<JellyfinService> {
  t = await jellyfinService({ msPerEntry: 2, setup: libraries, ...opts });
  return t;
}

const refreshes = (s: JellyfinServer) => s.requests.filter((r) => r.method === 'POST' && /^\/Items\/.+\/Refresh$/.test(r.path));
const refreshedPaths = (s: JellyfinServer) => refreshes(s).map((r) => s.model.items.get(r.path.split('/')[2])?.Path ?? r.path);
const libraryId = (s: JellyfinServer, location: string) => s.model.libraries.find((l) => l.location === location)!.id;

describe('jellyfin SCAN_METHOD auto, without the plugin', () => {
  it('a new episode in a known season refreshes that season once and shows within seconds of its webhook', async () => {
    const { server, webhook, run } = await start();
    const file = episodeFile('/tv', 2, 1, 4);
    server.model.writeFile(file);
    const sent = server.clock.now();
    await webhook('sonarr', sonarrDownload(file));
    await run(10_000);
    expect(refreshedPaths(server)).toEqual([seasonFolder('/tv', 2, 1)]);
    expect(refreshes(server)[0].query).toEqual({ metadataRefreshMode: 'Default', imageRefreshMode: 'Default', replaceAllMetadata: 'false', replaceAllImages: 'false' });
    expect(server.model.shownAt(file)! - sent).toBeLessThanOrEqual(3_000);
    expect(server.monitor.fired).toEqual([]);
    // The plugin was asked once (absent: 404), the walk down cost at most 3 listings.
    expect(server.count('POST', '/Library/ScanPath')).toBe(1);
    expect(server.count('GET', '/Items')).toBeLessThanOrEqual(3);
  });

  it('a second folder of a cached series costs no listing; a deleted episode refreshes its season', async () => {
    const { server, webhook, run } = await start();
    server.model.writeFile(episodeFile('/tv', 3, 1, 4));
    await webhook('sonarr', sonarrDownload(episodeFile('/tv', 3, 1, 4)));
    await run(5_000);
    const listings = server.count('GET', '/Items');
    const gone = episodeFile('/tv', 3, 2, 1);
    server.model.remove(gone);
    await webhook('sonarr', sonarrEpisodeDeleted(gone));
    await run(5_000);
    expect(server.count('GET', '/Items')).toBe(listings);
    expect(refreshedPaths(server)).toEqual([seasonFolder('/tv', 3, 1), seasonFolder('/tv', 3, 2)]);
    expect(server.model.itemAt(gone)).toBeUndefined();
  });

  it('a deleted series folder refreshes its parent, the library', async () => {
    const { server, webhook, run } = await start();
    const series = `/tv/${seriesName(4)}`;
    server.model.remove(series);
    await webhook('sonarr', sonarrSeriesDeleted(series));
    await run(10_000);
    expect(refreshes(server).map((r) => r.path)).toEqual([`/Items/${libraryId(server, '/tv')}/Refresh`]);
    expect(server.model.itemAt(series)).toBeUndefined();
  });

  it('new series due together share one refresh of the library item, logged as a library walk', async () => {
    const { server, webhook, run, logged } = await start();
    const files = [episodeFile('/tv', 7, 1, 1), episodeFile('/tv', 8, 1, 1)];
    for (const f of files) {
      server.model.writeFile(f);
      await webhook('sonarr', sonarrDownload(f));
      await run(300);
    }
    await run(20_000);
    expect(refreshes(server).map((r) => r.path)).toEqual([`/Items/${libraryId(server, '/tv')}/Refresh`]);
    for (const f of files) expect(server.model.shownAt(f)).toBeDefined();
    expect(logged('as a whole, once for 2 folders')).toHaveLength(1);
    expect(server.monitor.fired).toEqual([]);
  });

  it('a burst of movies costs one library walk, never one per movie', async () => {
    const { server, webhook, run } = await start();
    const files = [movieFile('/movies', 6), movieFile('/movies', 7), movieFile('/movies', 2)];
    for (const f of files) {
      server.model.writeFile(f);
      await webhook('radarr', radarrDownload(f, f === movieFile('/movies', 2)));
      await run(200);
    }
    await run(30_000);
    expect(server.model.validates.filter((v) => v.itemId === libraryId(server, '/movies'))).toHaveLength(1);
    for (const f of files) expect(server.model.shownAt(f)).toBeDefined();
    // Each movie's follow-up found it among the library's newest items once the walk was over.
    expect(t!.service.queue.history().map((h) => h.outcome)).toEqual(['confirmed', 'confirmed', 'confirmed']);
  });
});

// With the Targeted Scans plugin: test/targets/jellyfin-plugin.test.ts.

describe('jellyfin SCAN_METHOD media-updated, and Emby', () => {
  it('media-updated is the old way: the monitor refreshes a minute later', async () => {
    const { server, webhook, run } = await start({ entry: { SCAN_METHOD: 'media-updated' } });
    const file = episodeFile('/tv', 2, 2, 4);
    server.model.writeFile(file);
    const sent = server.clock.now();
    await webhook('sonarr', sonarrDownload(file));
    await run(90_000);
    expect(server.count('POST', '/Library/Media/Updated')).toBe(1);
    expect(server.count('POST', '/Library/ScanPath')).toBe(0);
    expect(server.model.shownAt(file)! - sent).toBeGreaterThan(60_000);
  });
});
