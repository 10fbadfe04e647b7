// The IDs fix-mismatched compares come from the Sonarr/Radarr download payloads: series.tvdbId, movie.tmdbId,
// imdbId and the title, on each file request (never on a deleted file's), and nothing for other apps or events.
import { describe, expect, it } from 'vitest';
import { parseScanBody } from '../../src/triggers/index.js';
import { ownFixture } from '../support/fixtures.js';

const requestsOf = (file: string, ua: string) => {
  const result = parseScanBody(ownFixture(`arr/${file}`), ua);
  if (result.kind !== 'scan') throw new Error(`${file}: ${result.kind}`);
  return result.requests;
};

describe('series and movie IDs on scan requests', () => {
  it('a Sonarr download carries the series IDs and title', () => {
    const [req] = requestsOf('sonarr-v4-download-unicode.json', 'Sonarr/4.0.17.2952 (ubuntu 24.04)');
    expect(req.ids).toMatchObject({ tvdb: expect.stringMatching(/^\d+$/), title: expect.any(String) });
  });

  it('a Radarr download carries the movie IDs and title', () => {
    const [req] = requestsOf('radarr-windows-download.json', 'Radarr/5.26.2.10099 (windows 10.0.19045)');
    expect(req.ids).toEqual({ tmdb: '194', imdb: 'tt0211915', title: 'Amélie' });
  });

  it('an upgrade carries them on the new file only, not on the deleted one; Lidarr carries none', () => {
    const body = { eventType: 'Download', isUpgrade: true, series: { path: '/tv/S', tvdbId: 81189, title: 'S' }, episodeFile: { path: '/tv/S/Season 01/new.mkv' }, deletedFiles: [{ path: '/tv/S/Season 01/old.mkv' }] };
    const result = parseScanBody(body, 'Sonarr/4.0.17.2952 (ubuntu 24.04)');
    expect(result.kind === 'scan' && result.requests.map((r) => [r.deleted ?? false, r.ids])).toEqual([
      [false, { tvdb: '81189', title: 'S' }],
      [true, undefined],
    ]);
    expect(requestsOf('lidarr-multidisc-download.json', 'Lidarr/2.14.5.4836 (debian 12)').every((r) => r.ids === undefined)).toBe(true);
  });

  it('IDs that are zero or not IDs are left out', () => {
    const body = { eventType: 'Download', movie: { folderPath: '/m/F', tmdbId: 0, imdbId: 'not an id', title: 'F' }, movieFile: { path: '/m/F/f.mkv' } };
    const result = parseScanBody(body, 'Radarr/6.0.3.10157 (alpine 3.22)');
    expect(result.kind === 'scan' && result.requests[0].ids).toBeUndefined();
  });
});
