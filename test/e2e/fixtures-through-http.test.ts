// Every arr fixture of one app and event (test/fixtures/arr/<app>-<event>.json), POSTed to the real HTTP server,
// yields exactly the Plex folder refreshes listed below: the folders of the files it names (and nothing for
// Test/Grab/Health/...).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { arrEventFixtures, ownFixtureText } from '../support/fixtures.js';
import { SECRET, testService, type TestService } from '../support/service.js';

const TV = '/data/media/tv/The Expanse (2015)';
const MOVIE = '/data/media/movies/Dune Part Two (2024)';
const ALBUM = '/data/media/music/Radiohead/OK Computer (1997)';
const BOOK = '/data/media/books/Brandon Sanderson/The Way of Kings (2010)';

/** fixture -> [user agent, folders Plex must be asked to refresh]. */
const expected: Record<string, [string, string[]]> = {
  'sonarr-download.json': ['Sonarr/4.0.17.2952 (ubuntu 24.04)', [`${TV}/Season 01`]],
  'sonarr-upgrade.json': ['Sonarr/4.0.17.2952 (ubuntu 24.04)', [`${TV}/Season 01`]],
  'sonarr-importcomplete.json': ['Sonarr/4.0.17.2952 (ubuntu 24.04)', [`${TV}/Season 01`]],
  'sonarr-rename.json': ['Sonarr/4.0.17.2952 (ubuntu 24.04)', [`${TV}/Season 01`]],
  'sonarr-episodefiledelete.json': ['Sonarr/4.0.17.2952 (ubuntu 24.04)', [`${TV}/Season 01`]],
  'sonarr-seriesdelete.json': ['Sonarr/4.0.17.2952 (ubuntu 24.04)', [TV]],
  'sonarr-grab.json': ['Sonarr/4.0.17.2952 (ubuntu 24.04)', []],
  'sonarr-health.json': ['Sonarr/4.0.17.2952 (ubuntu 24.04)', []],
  'sonarr-applicationupdate.json': ['Sonarr/4.0.17.2952 (ubuntu 24.04)', []],
  'sonarr-seriesadd.json': ['Sonarr/4.0.17.2952 (ubuntu 24.04)', []],
  'sonarr-manualinteractionrequired.json': ['Sonarr/4.0.17.2952 (ubuntu 24.04)', []],
  'sonarr-test.json': ['Sonarr/4.0.17.2952 (ubuntu 24.04)', []],
  'radarr-download.json': ['Radarr/6.0.3.10000 (debian 12)', [MOVIE]],
  'radarr-upgrade.json': ['Radarr/6.0.3.10000 (debian 12)', [MOVIE]],
  'radarr-rename.json': ['Radarr/6.0.3.10000 (debian 12)', [MOVIE]],
  'radarr-moviefiledelete.json': ['Radarr/6.0.3.10000 (debian 12)', [MOVIE]],
  'radarr-moviedelete.json': ['Radarr/6.0.3.10000 (debian 12)', [MOVIE]],
  'radarr-grab.json': ['Radarr/6.0.3.10000 (debian 12)', []],
  'radarr-movieadded.json': ['Radarr/6.0.3.10000 (debian 12)', []],
  'radarr-test.json': ['Radarr/6.0.3.10000 (debian 12)', []],
  'lidarr-download.json': ['Lidarr/2.14.5.4836 (alpine 3.22)', [ALBUM]],
  'lidarr-rename.json': ['Lidarr/2.14.5.4836 (alpine 3.22)', [ALBUM]],
  'lidarr-retag.json': ['Lidarr/2.14.5.4836 (alpine 3.22)', [ALBUM]],
  'lidarr-albumdelete.json': ['Lidarr/2.14.5.4836 (alpine 3.22)', ['/data/media/music/Radiohead']],
  'lidarr-artistdelete.json': ['Lidarr/2.14.5.4836 (alpine 3.22)', ['/data/media/music/Radiohead']],
  'lidarr-grab.json': ['Lidarr/2.14.5.4836 (alpine 3.22)', []],
  'lidarr-test.json': ['Lidarr/2.14.5.4836 (alpine 3.22)', []],
  'readarr-download.json': ['Readarr/0.3.21.2475 (ubuntu 22.04)', [BOOK]],
  'readarr-rename.json': ['Readarr/0.3.21.2475 (ubuntu 22.04)', [BOOK]],
  'readarr-retag.json': ['Readarr/0.3.21.2475 (ubuntu 22.04)', [BOOK]],
  'readarr-bookfiledelete.json': ['Readarr/0.3.21.2475 (ubuntu 22.04)', [BOOK]],
  'readarr-test.json': ['Readarr/0.3.21.2475 (ubuntu 22.04)', []],
  'whisparr-download.json': ['Whisparr/2.0.0.1000 (debian 12)', ['/data/media/adult/Example Studio/Season 2024']],
};

let t: TestService;
let base: string;
beforeAll(async () => {
  t = await testService({ config: { SERVER_PATH_MAPPINGS: {}, SERVER_IGNORE_LIST: [] } });
  t.plex.sections.push(
    { key: '4', title: 'Books', locations: ['/data/media/books'] },
    { key: '5', title: 'Other', locations: ['/data/media/adult'] },
  );
  base = await t.service.listen(0, '127.0.0.1');
});
afterAll(async () => t?.close());

describe('arr fixtures through the real HTTP server', () => {
  it('has an expectation for every event fixture', () => {
    expect(arrEventFixtures()).toEqual(Object.keys(expected).sort());
  });

  it.each(Object.entries(expected))('%s', async (file, [userAgent, folders]) => {
    const before = t.plex.refreshes.length;
    const body = ownFixtureText(`arr/${file}`);
    const res = await fetch(`${base}/${SECRET}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': userAgent },
      body,
    });
    expect(res.status).toBe(200);
    t.clock.advance(t.service.config.SERVER_SCAN_DELAY * 1000);
    await t.service.processor.drain();
    const refreshed = t.plex.refreshes.slice(before).map((r) => r.path);
    expect(refreshed.sort()).toEqual([...folders].sort());
    expect(t.service.queue.count()).toBe(0);
  });
});
