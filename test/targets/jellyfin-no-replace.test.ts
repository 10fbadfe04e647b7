// No import ever replaces metadata: over every SCAN_METHOD, with and without the Targeted Scans plugin, and every
// kind of change an arr or a person sends (new episode, season, series and movie; deletes; upgrades that keep or
// change the name; a rename; a deleted series; manual scans of a known season and of a movie's folder), with
// REFRESH_ITEMS on so renames and upgrades refresh their item too. The model server (test/fakes/jellyfin-model.ts)
// counts every existing item whose metadata a refresh replaced (ReplaceAllMetadata, or an item saved anew over
// itself); none may be, and no request scanrelay sends may ask for a FullRefresh or ReplaceAllMetadata.
import { afterEach, describe, expect, it } from 'vitest';
import { SCAN_METHODS } from '../../src/targets/mediabrowser/scan-plan.js';
import { episodeFile, movieFile, movieFolder, movieLibrary, seasonFolder, seriesName, tvLibrary } from '../fakes/jellyfin-libraries.js';
import type { JellyfinServer } from '../fakes/jellyfin-server.js';
import { jellyfinService, PASS, radarrDownload, sonarrDownload, sonarrEpisodeDeleted, sonarrSeriesDeleted, type JellyfinService } from '../support/jellyfin-service.js';

let t: JellyfinService | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

type Send = (t: JellyfinService) => Promise<unknown>;

/** Each change: what it does to the disk, and what reaches scanrelay. */
const changes: { what: string; disk: (s: JellyfinServer) => void; send: Send }[] = [
  { what: 'new episode', disk: (s) => s.model.writeFile(episodeFile('/tv', 1, 1, 9)), send: (t) => t.webhook('sonarr', sonarrDownload(episodeFile('/tv', 1, 1, 9))) },
  { what: 'new season', disk: (s) => s.model.writeFile(episodeFile('/tv', 2, 3, 1)), send: (t) => t.webhook('sonarr', sonarrDownload(episodeFile('/tv', 2, 3, 1))) },
  { what: 'new series', disk: (s) => s.model.writeFile(episodeFile('/tv', 9, 1, 1)), send: (t) => t.webhook('sonarr', sonarrDownload(episodeFile('/tv', 9, 1, 1))) },
  { what: 'deleted episode', disk: (s) => s.model.remove(episodeFile('/tv', 3, 1, 1)), send: (t) => t.webhook('sonarr', sonarrEpisodeDeleted(episodeFile('/tv', 3, 1, 1))) },
  {
    what: 'episode upgrade, same name',
    disk: (s) => s.model.writeFile(episodeFile('/tv', 1, 2, 1)),
    send: (t) => t.webhook('sonarr', { ...sonarrDownload(episodeFile('/tv', 1, 2, 1)), isUpgrade: true, deletedFiles: [{ path: episodeFile('/tv', 1, 2, 1) }] }),
  },
  {
    what: 'episode upgrade, renamed',
    disk: (s) => (s.model.remove(episodeFile('/tv', 2, 1, 2)), s.model.writeFile(`${seasonFolder('/tv', 2, 1)}/S02E02 Proper.mkv`)),
    send: (t) => t.webhook('sonarr', { ...sonarrDownload(`${seasonFolder('/tv', 2, 1)}/S02E02 Proper.mkv`), isUpgrade: true, deletedFiles: [{ path: episodeFile('/tv', 2, 1, 2) }] }),
  },
  {
    what: 'rename',
    disk: (s) => (s.model.remove(episodeFile('/tv', 2, 2, 2)), s.model.writeFile(`${seasonFolder('/tv', 2, 2)}/Renamed.mkv`)),
    send: (t) => t.webhook('sonarr', { eventType: 'Rename', series: { id: 1, title: 'x', path: `/tv/${seriesName(2)}` }, renamedEpisodeFiles: [{ previousPath: episodeFile('/tv', 2, 2, 2), path: `${seasonFolder('/tv', 2, 2)}/Renamed.mkv` }] }),
  },
  { what: 'deleted series', disk: (s) => s.model.remove(`/tv/${seriesName(3)}`), send: (t) => t.webhook('sonarr', sonarrSeriesDeleted(`/tv/${seriesName(3)}`)) },
  { what: 'new movie', disk: (s) => s.model.writeFile(movieFile('/movies', 9)), send: (t) => t.webhook('radarr', radarrDownload(movieFile('/movies', 9))) },
  {
    what: 'movie upgrade, renamed',
    disk: (s) => (s.model.remove(movieFile('/movies', 1)), s.model.writeFile(`${movieFolder('/movies', 1)}/Movie 00001 (2020) 2160p.mkv`)),
    send: (t) => t.webhook('radarr', radarrDownload(`${movieFolder('/movies', 1)}/Movie 00001 (2020) 2160p.mkv`, true, [movieFile('/movies', 1)])),
  },
  { what: 'movie upgrade, same name', disk: (s) => s.model.writeFile(movieFile('/movies', 2)), send: (t) => t.webhook('radarr', radarrDownload(movieFile('/movies', 2), true, [movieFile('/movies', 2)])) },
  { what: 'manual scan of a known season', disk: () => undefined, send: (t) => t.service.app.inject({ method: 'POST', url: `/api/${PASS}/scan`, payload: { path: seasonFolder('/tv', 4, 1) } }) },
  { what: 'manual scan of a movie’s folder', disk: () => undefined, send: (t) => t.service.app.inject({ method: 'POST', url: `/api/${PASS}/scan`, payload: { path: movieFolder('/movies', 3) } }) },
];

describe('no request replaces the metadata of an item that existed', () => {
  for (const method of SCAN_METHODS) {
    for (const plugin of [false, true]) {
      it(`SCAN_METHOD ${method}${plugin ? ', the plugin installed' : ''}: every kind of change, no existing item's metadata replaced`, async () => {
        t = await jellyfinService({
          plugin,
          msPerEntry: 2,
          entry: { SCAN_METHOD: method, REFRESH_ITEMS: true },
          config: { SERVER_ALLOW_MANUAL_SCAN: true },
          setup: (s) => {
            tvLibrary(s.model, '/tv', { series: 4, seasons: 2, episodes: 3 });
            movieLibrary(s.model, '/movies', 5);
            s.model.settle();
          },
        });
        const s = t.server;
        await t.run(1_000); // changes are later than the library's settled state
        for (const c of changes) {
          c.disk(s);
          await c.send(t);
          await t.run(500);
        }
        await t.run(150_000);
        expect(s.model.replacements).toEqual([]);
        const asked = s.requests.filter((r) => r.method === 'POST' && /^\/Items\/[^/]+\/Refresh$/.test(r.path)).map((r) => Object.fromEntries(Object.entries(r.query).map(([k, v]) => [k.toLowerCase(), v])));
        expect(asked.length + s.count('POST', '/Library/Media/Updated') + s.count('POST', '/Library/ScanPath') + s.count('POST', '/Library/ScanPaths')).toBeGreaterThan(0);
        for (const q of asked) expect([q.metadatarefreshmode, q.replaceallmetadata]).toEqual(['Default', 'false']);
        // With the plugin it did the work (the probe aside): new files, the renamed upgrades' old files, the deletes.
        if (plugin && method === 'auto') expect(s.count('POST', '/Library/ScanPath') + s.count('POST', '/Library/ScanPaths')).toBeGreaterThan(5);
        // Every change reached the library: new files are items, deleted ones are not (a scan that did nothing would pass the above).
        expect(s.model.itemAt(episodeFile('/tv', 1, 1, 9))).toBeDefined();
        expect(s.model.itemAt(movieFile('/movies', 9))).toBeDefined();
        expect(s.model.itemAt(episodeFile('/tv', 3, 1, 1))).toBeUndefined();
      });
    }
  }
});
