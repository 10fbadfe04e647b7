// The Targeted Scans plugin the way it is built (targeted-scans@0b5cabe), through the real service against the
// model Jellyfin (test/fakes/jellyfin-server.ts, which runs the plugin's code paths): it is sent the files a
// request names that have no item yet and the paths gone from disk (an upgrade's replaced file, a deleted
// episode or series), in one ScanPaths call when several; never a path that is already an item, which it would
// answer with ReplaceAllMetadata. A known folder is refreshed as an item, in Default modes.
import { afterEach, describe, expect, it } from 'vitest';
import { episodeFile, movieFile, movieFolder, movieLibrary, seasonFolder, seriesName, tvLibrary } from '../fakes/jellyfin-libraries.js';
import type { JellyfinServer } from '../fakes/jellyfin-server.js';
import { jellyfinService, PASS, radarrDownload, sonarrDownload, sonarrEpisodeDeleted, sonarrImport, sonarrSeriesDeleted, type JellyfinService } from '../support/jellyfin-service.js';

let t: JellyfinService | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

async function start(): Promise<JellyfinService> {
  t = await jellyfinService({
    plugin: true,
    msPerEntry: 2,
    config: { SERVER_ALLOW_MANUAL_SCAN: true },
    setup: (s) => {
      tvLibrary(s.model, '/tv', { series: 4, seasons: 2, episodes: 3 });
      movieLibrary(s.model, '/movies', 5);
      s.model.settle();
    },
  });
  return t;
}

/** What the plugin was sent, past the probe: each call's paths. */
const pluginCalls = (s: JellyfinServer) =>
  s.requests.filter((r) => r.path.startsWith('/Library/ScanPath') && (r.body as { Path?: string }).Path !== '').map((r) => [r.path, (r.body as { Path?: string; Paths?: string[] }).Path ?? (r.body as { Paths: string[] }).Paths]);
const refreshed = (s: JellyfinServer) => s.requests.filter((r) => r.method === 'POST' && /^\/Items\/.+\/Refresh$/.test(r.path));
const walks = (s: JellyfinServer) => s.model.validates.filter((v) => s.model.items.get(v.itemId)?.IsFolder !== false);

describe('jellyfin SCAN_METHOD auto, with the Targeted Scans plugin', () => {
  it('sends a new movie’s file: an item at once, no library walk', async () => {
    const { server, webhook, run } = await start();
    const file = movieFile('/movies', 9);
    server.model.writeFile(file);
    const sent = server.clock.now();
    await webhook('radarr', radarrDownload(file));
    await run(10_000);
    expect(pluginCalls(server)).toEqual([['/Library/ScanPath', file]]);
    expect(server.model.shownAt(file)! - sent).toBeLessThanOrEqual(3_000);
    expect(walks(server)).toEqual([]);
    expect(server.model.replacements).toEqual([]);
  });

  it('sends an upgrade’s new file and the one it replaced in one ScanPaths: the new is an item, the old one gone', async () => {
    const { server, webhook, run } = await start();
    const old = movieFile('/movies', 3);
    const upgraded = `${movieFolder('/movies', 3)}/Movie 00003 (2020) Remux-2160p.mkv`;
    server.model.remove(old);
    server.model.writeFile(upgraded);
    await webhook('radarr', radarrDownload(upgraded, true, [old]));
    await run(20_000);
    expect(pluginCalls(server)).toEqual([['/Library/ScanPaths', [old, upgraded]]]);
    expect(server.model.itemAt(upgraded)).toBeDefined();
    expect(server.model.itemAt(old)).toBeUndefined();
    expect(walks(server)).toEqual([]);
    expect(t!.service.queue.history().map((h) => h.outcome)).toEqual(['confirmed']);
  });

  it('refreshes a file that is already an item (an upgrade that kept its name) as an item, never through the plugin', async () => {
    const { server, webhook, run } = await start();
    const file = episodeFile('/tv', 2, 1, 2);
    await run(1_000);
    server.model.writeFile(file);
    await webhook('sonarr', { ...(sonarrDownload(file) as object), isUpgrade: true, deletedFiles: [{ path: file }] });
    await run(10_000);
    expect(pluginCalls(server)).toEqual([]);
    expect(refreshed(server).map((r) => [server.model.items.get(r.path.split('/')[2])?.Path, r.query.metadataRefreshMode, r.query.replaceAllMetadata])).toEqual([[file, 'Default', 'false']]);
    expect(server.model.shownAt(file)).toBeDefined();
    expect(server.model.replacements).toEqual([]);
  });

  it('refreshes a known season once for new files in it, not the plugin: it would queue a series and a season refresh per file', async () => {
    const { server, webhook, run } = await start();
    const files = [4, 5, 6].map((e) => episodeFile('/tv', 1, 2, e));
    for (const f of files) {
      server.model.writeFile(f);
      await webhook('sonarr', sonarrDownload(f));
    }
    await run(10_000);
    expect(pluginCalls(server)).toEqual([]);
    expect(refreshed(server).map((r) => server.model.items.get(r.path.split('/')[2])?.Path)).toEqual([seasonFolder('/tv', 1, 2)]);
    for (const f of files) expect(server.model.itemAt(f)).toBeDefined();
    expect(walks(server)).toHaveLength(1);
    expect(server.model.replacements).toEqual([]);
  });

  it('sends one file of a new series’ pack: the series’ validate the plugin queues finds the rest', async () => {
    const { server, webhook, run } = await start();
    const files = [1, 2, 3].map((e) => episodeFile('/tv', 7, 1, e));
    for (const f of files) server.model.writeFile(f);
    await webhook('sonarr', sonarrImport(files));
    await run(10_000);
    expect(pluginCalls(server)).toEqual([['/Library/ScanPath', files[0]]]);
    for (const f of files) expect(server.model.itemAt(f)).toBeDefined();
    expect(server.model.replacements).toEqual([]);
  });

  it('sends a deleted episode’s file: its 500 "Failed" is the item removed, with no walk', async () => {
    const { server, webhook, run } = await start();
    const gone = episodeFile('/tv', 3, 2, 1);
    server.model.remove(gone);
    await webhook('sonarr', sonarrEpisodeDeleted(gone));
    await run(5_000);
    expect(server.requests.filter((r) => r.path === '/Library/ScanPath').map((r) => r.status)).toEqual([400, 500]);
    expect(server.model.itemAt(gone)).toBeUndefined();
    expect(server.model.validates).toEqual([]);
    expect(t!.service.queue.history().map((h) => [h.outcome, h.detail])).toEqual([['scanned', 'Targeted Scans plugin: Removed 1']]);
  });

  it('sends a deleted series’ folder: the plugin removes its item, no walk; the delete is confirmed', async () => {
    const { server, webhook, run } = await start();
    const series = `/tv/${seriesName(3)}`;
    server.model.remove(series);
    await webhook('sonarr', sonarrSeriesDeleted(series));
    await run(20_000);
    expect(pluginCalls(server)).toEqual([['/Library/ScanPath', series]]);
    expect(server.model.itemAt(series)).toBeUndefined();
    expect(server.model.validates).toHaveLength(0);
    expect(t!.service.queue.history().map((h) => [h.outcome, h.detail?.slice(0, 24)])).toEqual([['confirmed', 'Removed from the library']]);
  });

  it('refreshes a folder that is an item (a manual scan of a season) in Default modes, not through the plugin', async () => {
    const { server, run } = await start();
    expect((await t!.service.app.inject({ method: 'POST', url: `/api/${PASS}/scan`, payload: { path: seasonFolder('/tv', 4, 1) } })).statusCode).toBe(200);
    await run(10_000);
    expect(pluginCalls(server)).toEqual([]);
    expect(refreshed(server).map((r) => server.model.items.get(r.path.split('/')[2])?.Path)).toEqual([seasonFolder('/tv', 4, 1)]);
    expect(server.model.replacements).toEqual([]);
  });

  it('falls back to the item refresh when the plugin goes (404) and does not ask it again', async () => {
    const { server, webhook, run } = await start();
    server.model.writeFile(movieFile('/movies', 7));
    await webhook('radarr', radarrDownload(movieFile('/movies', 7)));
    await run(5_000);
    server.plugin = false;
    const file = movieFile('/movies', 8);
    server.model.writeFile(file);
    await webhook('radarr', radarrDownload(file));
    await run(15_000);
    const library = server.model.libraries.find((l) => l.location === '/movies')!;
    expect(refreshed(server).map((r) => r.path)).toEqual([`/Items/${library.id}/Refresh`]);
    expect(server.model.shownAt(file)).toBeDefined();
    expect(server.count('POST', '/Library/ScanPath')).toBe(3);
    server.model.writeFile(movieFile('/movies', 9));
    await webhook('radarr', radarrDownload(movieFile('/movies', 9)));
    await run(15_000);
    expect(server.count('POST', '/Library/ScanPath')).toBe(3);
  });
});
