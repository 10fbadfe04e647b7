// Minimal payloads: each arr event carrying only the fields that event needs (no series/movie/artist/author
// object unless the event's only path is in it), as older releases, scripts and other relays send them. Each must
// still scan what the paths say; an event is ignored only when no path is there.
import { afterEach, describe, expect, it } from 'vitest';
import { parseScanBody } from '../../src/triggers/index.js';
import { SECRET, testService, type TestService } from '../support/service.js';

type Row = [app: string, payload: Record<string, unknown>, scans: { path: string; kind: string; deleted?: true }[]];

const file = (path: string) => ({ path, kind: 'file' });
const gone = (path: string) => ({ path, kind: 'file', deleted: true as const });
const goneFolder = (path: string) => ({ path, kind: 'folder', deleted: true as const });

const ROWS: Row[] = [
  // Sonarr
  ['sonarr', { eventType: 'Download', episodeFile: { path: '/tv/S/Season 1/e1.mkv' } }, [file('/tv/S/Season 1/e1.mkv')]],
  ['sonarr', { eventType: 'Download', series: { path: '/tv/S' }, episodeFile: { relativePath: 'Season 1/e2.mkv' } }, [file('/tv/S/Season 1/e2.mkv')]],
  ['sonarr', { eventType: 'Download', episodeFiles: [{ path: '/tv/S/Season 2/e1.mkv' }] }, [file('/tv/S/Season 2/e1.mkv')]],
  ['sonarr', { eventType: 'Rename', renamedEpisodeFiles: [{ previousPath: '/tv/S/Season 1/old.mkv', path: '/tv/S/Season 1/new.mkv' }] }, [gone('/tv/S/Season 1/old.mkv'), file('/tv/S/Season 1/new.mkv')]],
  ['sonarr', { eventType: 'EpisodeFileDelete', episodeFile: { path: '/tv/S/Season 1/e1.mkv' } }, [gone('/tv/S/Season 1/e1.mkv')]],
  ['sonarr', { eventType: 'SeriesDelete', series: { path: '/tv/S' } }, [goneFolder('/tv/S')]],
  // Radarr
  ['radarr', { eventType: 'Download', movieFile: { path: '/movies/M (2001)/m.mkv' } }, [file('/movies/M (2001)/m.mkv')]],
  ['radarr', { eventType: 'Download', movie: { folderPath: '/movies/M (2001)' }, movieFile: { relativePath: 'm.mkv' } }, [file('/movies/M (2001)/m.mkv')]],
  ['radarr', { eventType: 'Rename', renamedMovieFiles: [{ previousPath: '/movies/M/a.mkv', path: '/movies/M/b.mkv' }] }, [gone('/movies/M/a.mkv'), file('/movies/M/b.mkv')]],
  ['radarr', { eventType: 'MovieFileDelete', movieFile: { path: '/movies/M/m.mkv' } }, [gone('/movies/M/m.mkv')]],
  ['radarr', { eventType: 'MovieDelete', movie: { folderPath: '/movies/M' } }, [goneFolder('/movies/M')]],
  // Lidarr
  ['lidarr', { eventType: 'Download', trackFiles: [{ path: '/music/A/Album/01.flac' }] }, [file('/music/A/Album/01.flac')]],
  ['lidarr', { eventType: 'Rename', renamedTrackFiles: [{ previousPath: '/music/A/Al/01 x.flac', path: '/music/A/Al/01 y.flac' }] }, [gone('/music/A/Al/01 x.flac'), file('/music/A/Al/01 y.flac')]],
  ['lidarr', { eventType: 'Retag', trackFile: { path: '/music/A/Al/02.flac' } }, [file('/music/A/Al/02.flac')]],
  ['lidarr', { eventType: 'Retag', artist: { path: '/music/A' }, trackFile: { relativePath: 'Al/03.flac' } }, [file('/music/A/Al/03.flac')]],
  ['lidarr', { eventType: 'ArtistDelete', artist: { path: '/music/A' } }, [goneFolder('/music/A')]],
  ['lidarr', { eventType: 'AlbumDelete', artist: { path: '/music/A' } }, [goneFolder('/music/A')]],
  // Readarr
  ['readarr', { eventType: 'Download', bookFiles: [{ path: '/books/Au/B/b.epub' }] }, [file('/books/Au/B/b.epub')]],
  ['readarr', { eventType: 'Download', author: { path: '/books/Au' }, bookFiles: [{ relativePath: 'C/c.epub' }] }, [file('/books/Au/C/c.epub')]],
  ['readarr', { eventType: 'Rename', renamedBookFiles: [{ previousPath: '/books/Au/B/x.epub', path: '/books/Au/B/y.epub' }] }, [gone('/books/Au/B/x.epub'), file('/books/Au/B/y.epub')]],
  ['readarr', { eventType: 'Retag', bookFile: { path: '/books/Au/B/b.epub' } }, [file('/books/Au/B/b.epub')]],
  ['readarr', { eventType: 'BookFileDelete', bookFile: { path: '/books/Au/B/b.epub' } }, [gone('/books/Au/B/b.epub')]],
  ['readarr', { eventType: 'BookDelete', author: { path: '/books/Au' } }, [goneFolder('/books/Au')]],
  ['readarr', { eventType: 'AuthorDelete', author: { path: '/books/Au' } }, [goneFolder('/books/Au')]],
];

describe('minimal payloads: every path field an event carries is read', () => {
  it.each(ROWS)('%s %j', (app, payload, scans) => {
    for (const userAgent of [undefined, `${app[0].toUpperCase()}${app.slice(1)}/1.0.0 (test)`]) {
      const result = parseScanBody(payload, userAgent);
      expect(result, `User-Agent ${userAgent}`).toMatchObject({ kind: 'scan', source: app });
      const got = result.kind === 'scan' ? result.requests.map((r) => ({ path: r.path, kind: r.kind, ...(r.deleted ? { deleted: true } : {}) })) : [];
      expect(got).toEqual(scans);
    }
  });

  it('an event with no path anywhere is still answered as ignored, with the reason', () => {
    expect(parseScanBody({ eventType: 'Rename', renamedTrackFiles: [] })).toMatchObject({ kind: 'ignored', source: 'lidarr', reason: expect.stringMatching(/no renamedTrackFiles/) });
    expect(parseScanBody({ eventType: 'BookFileDelete' }, 'Readarr/0.4.18')).toMatchObject({ kind: 'ignored', source: 'readarr', reason: expect.stringMatching(/no bookFile.path/) });
    expect(parseScanBody({ eventType: 'Rename' })).toMatchObject({ kind: 'ignored', reason: expect.stringMatching(/names no series, movie, artist or author/) });
  });

  it('a SeriesDelete or MovieDelete that kept the files (deletedFiles false) is ignored, saying so; true or unsaid is a delete', () => {
    expect(parseScanBody({ eventType: 'SeriesDelete', series: { path: '/tv/S' }, deletedFiles: false }, 'Sonarr/4.0.17')).toMatchObject({ kind: 'ignored', source: 'sonarr', reason: expect.stringMatching(/kept the files .*'\/tv\/S' is still on disk/) });
    expect(parseScanBody({ eventType: 'MovieDelete', movie: { folderPath: '/movies/M' }, deletedFiles: false, movieFolderSize: 0 }, 'Radarr/5.2.6')).toMatchObject({ kind: 'ignored', source: 'radarr', reason: expect.stringMatching(/kept the files/) });
    expect(parseScanBody({ eventType: 'MovieDelete', movie: { folderPath: '/movies/M' }, deletedFiles: true }, 'Radarr/5.2.6')).toMatchObject({ kind: 'scan', requests: [{ path: '/movies/M', deleted: true }] });
  });
});

describe('minimal payloads through the real server', () => {
  let t: TestService;
  afterEach(async () => t?.close());

  it('a Lidarr Rename without its artist object queues both folders', async () => {
    t = await testService();
    t.plex.sections.push({ key: '3', title: 'Music', locations: ['/data/media/music'] });
    const res = await t.service.app.inject({
      method: 'POST',
      url: `/${SECRET}`,
      payload: { eventType: 'Rename', renamedTrackFiles: [{ previousPath: '/data/media/music/A/Old/01.flac', path: '/data/media/music/A/New/01.flac' }] },
    });
    expect(res.statusCode).toBe(200);
    expect(t.service.queue.list().map((r) => r.folder).sort()).toEqual(['/data/media/music/A/New', '/data/media/music/A/Old']);
  });
});
