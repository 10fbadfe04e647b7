// The rules of parseScanBody that no single fixture shows: what is invalid, what is a test, where the
// source comes from, which events are answered without a scan, and what a payload missing fields gets.
import { describe, expect, it } from 'vitest';
import type { Source } from '../../src/request.js';
import { parseScanBody, type TriggerResult } from '../../src/triggers/index.js';
import { ownFixture } from '../support/fixtures.js';
import { scan } from '../support/requests.js';
import { withoutIds } from '../support/requests.js';

type Body = Record<string, unknown>;


const sonarrUA = 'Sonarr/4.0.17.2952 (ubuntu 24.04)';
const noEventType = 'not a scan request: no eventType; expected an arr webhook or eventType=Manual&filepath=...';
const missingFilepath = 'filepath is missing: send eventType=Manual&filepath=<path of a file or folder>';
const notAnObject = 'not a scan request: the body is not a JSON object or form fields';

const series = { id: 1, title: 'Show', path: '/tv/Show' };
const movie = { id: 1, title: 'Film', folderPath: '/movies/Film (2020)' };
const artist = { id: 1, name: 'Band', path: '/music/Band' };
const author = { id: 1, name: 'Writer', path: '/books/Writer' };

describe('bodies that are not scan requests', () => {
  it.each<[string, unknown]>([
    ['undefined', undefined],
    ['null', null],
    ['a string', 'eventType=Manual&filepath=/x'],
    ['a number', 42],
    ['a boolean', true],
    ['an array', [{ eventType: 'Test' }]],
    ['a Buffer', Buffer.from('{"eventType":"Test"}')],
    ['a Map', new Map([['eventType', 'Test']])],
    ['a Date', new Date(0)],
  ])('%s is invalid', (_name, body) => {
    expect(withoutIds(parseScanBody(body))).toStrictEqual({ kind: 'invalid', reason: notAnObject });
  });

  it.each<[string, Body]>([
    ['an empty object', {}],
    ['a filepath without eventType', { filepath: '/movies/Film (2020)' }],
    ['an arr payload without eventType', { series, episodeFile: { path: '/tv/Show/Season 01/e.mkv' } }],
    ['an empty eventType', { eventType: '', filepath: '/x' }],
    ['a blank eventType', { eventType: '  ', series }],
    ['EventType used for anything but Test', { EventType: 'Download', series, episodeFile: { path: '/tv/Show/e.mkv' } }],
  ])('%s is invalid: no eventType', (_name, body) => {
    expect(withoutIds(parseScanBody(body, sonarrUA))).toStrictEqual({ kind: 'invalid', reason: noEventType });
  });

  it.each<[string, Body]>([
    ['a number', { eventType: 7 }],
    ['a repeated form field', { eventType: ['Manual', 'Manual'], filepath: '/x' }],
    ['an object', { eventType: { name: 'Download' } }],
  ])('eventType as %s is invalid', (_name, body) => {
    expect(withoutIds(parseScanBody(body))).toStrictEqual({ kind: 'invalid', reason: 'eventType must be a single string' });
  });

  it('accepts the null-prototype objects form parsing produces', () => {
    const form = Object.assign(Object.create(null) as Body, { eventType: 'Manual', filepath: '/tv/Show' });
    expect(parseScanBody(form).kind).toBe('scan');
  });
});

describe('Test events', () => {
  it.each<[string, Body, string | undefined, Source | 'unknown']>([
    ['Sonarr with its User-Agent', { series, eventType: 'Test' }, sonarrUA, 'sonarr'],
    ['Sonarr without a User-Agent', { series, eventType: 'Test' }, undefined, 'sonarr'],
    ['Whisparr v3 (Radarr-shaped)', { movie, eventType: 'Test' }, 'Whisparr/3.0.0.801 (alpine 3.20)', 'whisparr'],
    ['lower-case test', { artist, eventType: 'test' }, undefined, 'lidarr'],
    ['upper-case TEST', { author, eventType: 'TEST' }, undefined, 'readarr'],
    ["plex_autoscan's EventType alias", { EventType: 'Test' }, undefined, 'unknown'],
    ['EventType alias, any case', { EventType: 'test' }, 'curl/8.5.0', 'unknown'],
    ['Test wins over Manual fields', { eventType: 'Test', filepath: '/x' }, undefined, 'unknown'],
  ])('%s', (_name, body, userAgent, source) => {
    expect(withoutIds(parseScanBody(body, userAgent))).toStrictEqual({ kind: 'test', source, event: 'Test' });
  });

  it('never scans the C:\\testpath the apps send', () => {
    const body = { series: { id: 1, title: 'Test Title', path: 'C:\\testpath' }, eventType: 'Test' };
    expect(parseScanBody(body, sonarrUA).kind).toBe('test');
  });
});

describe('manual requests', () => {
  const manual = (path: string): TriggerResult => ({
    kind: 'scan',
    source: 'manual',
    event: 'Manual',
    requests: [{ path, source: 'manual', event: 'Manual', kind: 'auto' }],
  });

  it.each<[string, Body, string | undefined, string]>([
    ['the page form', { eventType: 'Manual', filepath: '/mnt/unionfs/Media/Movies/Movie Name (year)/' }, 'Mozilla/5.0', '/mnt/unionfs/Media/Movies/Movie Name (year)/'],
    ['curl, lower-case manual', { eventType: 'manual', filepath: '/mnt/unionfs/Media/TV/Show/Season 01/e.mkv' }, 'curl/8.5.0', '/mnt/unionfs/Media/TV/Show/Season 01/e.mkv'],
    ['an arr User-Agent does not change the source', { eventType: 'Manual', filepath: '/tv/Show' }, sonarrUA, '/tv/Show'],
    ['a Windows path', { eventType: 'Manual', filepath: 'D:\\Media\\TV\\Show\\Season 01\\x.mkv' }, undefined, 'D:\\Media\\TV\\Show\\Season 01\\x.mkv'],
    ['quotes, $ and unicode', { eventType: 'Manual', filepath: `/media/Movies/"Weird" $HOME 'Amélie' (2001)` }, undefined, `/media/Movies/"Weird" $HOME 'Amélie' (2001)`],
    ['surrounding spaces are kept as typed', { eventType: 'Manual', filepath: ' /tv/Show ' }, undefined, ' /tv/Show '],
  ])('%s', (_name, body, userAgent, path) => {
    expect(withoutIds(parseScanBody(body, userAgent))).toStrictEqual(manual(path));
  });

  it.each<[string, Body]>([
    ['missing', { eventType: 'Manual' }],
    ['empty', { eventType: 'Manual', filepath: '' }],
    ['whitespace only', { eventType: 'Manual', filepath: ' \t\n ' }],
    ['not a string', { eventType: 'Manual', filepath: 12 }],
    ['null', { eventType: 'Manual', filepath: null }],
  ])('filepath %s is invalid', (_name, body) => {
    expect(withoutIds(parseScanBody(body))).toStrictEqual({ kind: 'invalid', reason: missingFilepath });
  });

  it('a repeated filepath field is invalid, not silently one of them', () => {
    expect(withoutIds(parseScanBody({ eventType: 'Manual', filepath: ['/a', '/b'] }))).toStrictEqual({
      kind: 'invalid',
      reason: 'filepath was sent 2 times: send one path per request',
    });
  });
});

describe('source', () => {
  const download = { series, episodeFile: { path: '/tv/Show/Season 01/e.mkv' }, isUpgrade: false, eventType: 'Download' };

  it.each<[string | undefined, Source]>([
    ['Sonarr/4.0.17.2952 (ubuntu 24.04)', 'sonarr'],
    ['Sonarr/3.0.9.1549 (ubuntu 20.04)', 'sonarr'],
    ['Whisparr/2.0.0.1067 (alpine 3.20)', 'whisparr'],
    ['whisparr/2.0.0.1067', 'whisparr'],
    ['Radarr/6.0.3.10157 (alpine 3.22)', 'radarr'],
    ['curl/8.5.0', 'sonarr'],
    ['Mozilla/5.0 (X11; Linux x86_64)', 'sonarr'],
    // A series payload is Sonarr's unless the User-Agent names another app: these name none.
    ['MyRadarrProxy/1.0', 'sonarr'],
    ['RadarrX/1.0', 'sonarr'],
    ['', 'sonarr'],
    [undefined, 'sonarr'],
  ])('User-Agent %j → %s', (userAgent, source) => {
    expect(withoutIds(parseScanBody(download, userAgent))).toStrictEqual(
      scan(source, 'Download', (r) => [r.file('/tv/Show/Season 01/e.mkv')]),
    );
  });

  it.each<[string, Body, Source]>([
    ['series', download, 'sonarr'],
    ['movie', { movie, movieFile: { path: '/movies/Film (2020)/Film.mkv' }, eventType: 'Download' }, 'radarr'],
    ['artist', { artist, trackFiles: [{ path: '/music/Band/Album/01.flac' }], eventType: 'Download' }, 'lidarr'],
    ['author', { author, bookFiles: [{ path: '/books/Writer/Book/b.epub' }], eventType: 'Download' }, 'readarr'],
  ])('without a User-Agent, a %s payload is from %s', (_key, body, source) => {
    const result = parseScanBody(body);
    expect(result.kind === 'scan' && result.source).toBe(source);
    expect(result.kind === 'scan' && result.requests.every((r) => r.source === source)).toBe(true);
  });

  it('Whisparr v3 payloads are read as Radarr ones and reported as Whisparr', () => {
    const body = {
      movie: { id: 9, title: 'Scene', folderPath: '/data/adult/Scene (2024)', stashId: 'abc', itemType: 'scene' },
      movieFile: { relativePath: 'Scene (2024) [WEBDL-1080p].mp4', path: '/data/adult/Scene (2024)/Scene (2024) [WEBDL-1080p].mp4' },
      isUpgrade: false,
      eventType: 'Download',
    };
    expect(withoutIds(parseScanBody(body, 'Whisparr/3.0.0.801 (alpine 3.20)'))).toStrictEqual(
      scan('whisparr', 'Download', (r) => [r.file('/data/adult/Scene (2024)/Scene (2024) [WEBDL-1080p].mp4')]),
    );
  });
});

describe('event names are compared case-insensitively and reported in PascalCase', () => {
  it.each(['Download', 'download', 'DOWNLOAD', 'dOwNlOaD', ' Download '])('%j', (eventType) => {
    const body = { ...ownFixture<Body>('arr/sonarr-v3-download.json'), eventType };
    expect(withoutIds(parseScanBody(body))).toStrictEqual(
      scan('sonarr', 'Download', (r) => [
        r.file('/tv/Mr. Robot (2015)/Season 04/Mr. Robot - S04E13 - Hello, Elliot WEBDL-1080p.mkv'),
      ]),
    );
  });

  it.each<[string, Body, TriggerResult]>([
    ['rename', { series, renamedEpisodeFiles: [{ previousPath: '/tv/Show/a.mkv', path: '/tv/Show/b.mkv' }], eventType: 'rename' },
      scan('sonarr', 'Rename', (r) => [r.deletedFile('/tv/Show/a.mkv'), r.refreshedFile('/tv/Show/b.mkv')])],
    ['retag', { artist, trackFile: { path: '/music/Band/Album/01.flac' }, eventType: 'retag' },
      scan('lidarr', 'Retag', (r) => [r.file('/music/Band/Album/01.flac')])],
    ['moviedelete', { movie, eventType: 'moviedelete' }, scan('radarr', 'MovieDelete', (r) => [r.deletedFolder('/movies/Film (2020)')])],
    ['grab', { artist, eventType: 'grab' }, { kind: 'ignored', source: 'lidarr', event: 'Grab', reason: 'Grab events carry no file on disk yet' }],
  ])('%s', (_name, body, expected) => {
    expect(withoutIds(parseScanBody(body))).toStrictEqual(expected);
  });
});

describe('events with nothing to scan are ignored (200), with a reason', () => {
  it.each<[string, Body, string]>([
    ['Grab', { series }, 'Grab events carry no file on disk yet'],
    ['Health', { level: 'warning', message: 'x' }, "Health events are about the app's own state, not media files"],
    ['HealthRestored', { level: 'ok', message: 'x' }, "HealthRestored events are about the app's own state, not media files"],
    ['ApplicationUpdate', { message: 'x', previousVersion: '4.0.16', newVersion: '4.0.17' }, 'ApplicationUpdate events are about the app itself, not media files'],
    ['SeriesAdd', { series }, 'SeriesAdd events come before any file is imported'],
    ['MovieAdded', { movie, addMethod: 'manual' }, 'MovieAdded events come before any file is imported'],
    ['ArtistAdd', { artist }, 'ArtistAdd events come before any file is imported'],
    ['AuthorAdded', { author }, 'AuthorAdded events come before any file is imported'],
    ['ManualInteractionRequired', { series }, 'ManualInteractionRequired events mean the download still waits to be imported'],
    ['DownloadFailure', { quality: 'FLAC', releaseTitle: 'x' }, 'DownloadFailure events mean nothing reached the disk'],
    ['ImportFailure', { artist, trackFiles: [] }, 'ImportFailure events mean nothing was imported'],
    ['SeriesUpdated', { series }, 'SeriesUpdated is not an event scanrelay scans for'],
    ['MovieDelete', { series }, 'MovieDelete events do not apply to a series payload'],
    ['EpisodeFileDelete', { movie }, 'EpisodeFileDelete events do not apply to a movie payload'],
    ['Retag', { series }, 'Retag events do not apply to a series payload'],
    // Without any app's object or path: read as the app the User-Agent names, which says the path it lacks
    // (minimal-payloads.test.ts reads payloads that have paths but no object).
    ['Download', { quality: 'HDTV-720p' }, 'Download event has no episodeFile.path, episodeFiles[].path or destinationPath'],
  ])('%s', (eventType, extra, reason) => {
    const result = parseScanBody({ ...extra, eventType }, sonarrUA);
    expect(result).toStrictEqual({ kind: 'ignored', source: 'sonarr', event: eventType, reason });
  });

  it('without a User-Agent or media object the source is unknown', () => {
    expect(parseScanBody({ level: 'error', message: 'x', eventType: 'Health' })).toMatchObject({
      kind: 'ignored',
      source: 'unknown',
      event: 'Health',
    });
  });
});

describe('scan events missing the fields they need are ignored, not invalid', () => {
  it.each<[string, Body, string, string]>([
    ['Sonarr Download, empty episodeFile', { series, episodeFile: {}, isUpgrade: false, eventType: 'Download' }, 'Download', 'Download event has no episodeFile.path'],
    ['Sonarr Download, relativePath but no series.path', { series: { id: 1 }, episodeFile: { relativePath: 'Season 01/e.mkv' }, eventType: 'Download' }, 'Download', 'Download event has no episodeFile.path'],
    ['Sonarr upgrade without a file', { series, episodeFile: { id: 3 }, isUpgrade: true, deletedFiles: [{ path: '/tv/Show/old.mkv' }], eventType: 'Download' }, 'Upgrade', 'Download event has no episodeFile.path'],
    ['Sonarr Download with no file at all', { series, eventType: 'Download' }, 'Download', 'Download event has no episodeFile.path, episodeFiles[].path or destinationPath'],
    ['Sonarr import complete, empty list, no destination', { series, episodeFiles: [], fileCount: 0, eventType: 'Download' }, 'Download', 'Download event has no episodeFile.path, episodeFiles[].path or destinationPath'],
    ['Sonarr Rename with nothing', { series: { id: 1 }, eventType: 'Rename' }, 'Rename', 'Rename event has no renamedEpisodeFiles[].path and no series.path'],
    ['Sonarr EpisodeFileDelete', { series: { id: 1 }, episodeFile: { id: 2 }, eventType: 'EpisodeFileDelete' }, 'EpisodeFileDelete', 'EpisodeFileDelete event has no episodeFile.path'],
    ['Sonarr SeriesDelete', { series: { id: 1, path: '   ' }, deletedFiles: true, eventType: 'SeriesDelete' }, 'SeriesDelete', 'SeriesDelete event has no series.path'],
    ['Radarr Download', { movie, isUpgrade: false, eventType: 'Download' }, 'Download', 'Download event has no movieFile.path'],
    ['Radarr Rename with nothing', { movie: { id: 1 }, renamedMovieFiles: [], eventType: 'Rename' }, 'Rename', 'Rename event has no renamedMovieFiles[].path and no movie.folderPath'],
    ['Radarr MovieFileDelete', { movie: { id: 1 }, movieFile: { relativePath: 'x.mkv' }, eventType: 'MovieFileDelete' }, 'MovieFileDelete', 'MovieFileDelete event has no movieFile.path'],
    ['Radarr MovieDelete', { movie: { id: 1 }, eventType: 'MovieDelete' }, 'MovieDelete', 'MovieDelete event has no movie.folderPath'],
    ['Lidarr Download', { artist, trackFiles: [], isUpgrade: false, eventType: 'Download' }, 'Download', 'Download event has no trackFiles[].path'],
    ['Lidarr Rename with nothing', { artist: { id: 1 }, eventType: 'Rename' }, 'Rename', 'Rename event has no renamedTrackFiles[].path and no artist.path'],
    ['Lidarr Retag', { artist, eventType: 'Retag' }, 'Retag', 'Retag event has no trackFile.path'],
    ['Lidarr AlbumDelete', { artist: { id: 1 }, eventType: 'AlbumDelete' }, 'AlbumDelete', 'AlbumDelete event has no artist.path'],
    ['Lidarr ArtistDelete', { artist: { id: 1 }, eventType: 'ArtistDelete' }, 'ArtistDelete', 'ArtistDelete event has no artist.path'],
    ['Readarr Download', { author, bookFiles: [{ id: 1 }], eventType: 'Download' }, 'Download', 'Download event has no bookFiles[].path'],
    ['Readarr Rename with nothing', { author: { id: 1 }, eventType: 'Rename' }, 'Rename', 'Rename event has no renamedBookFiles[].path and no author.path'],
    ['Readarr Retag', { author, bookFile: {}, eventType: 'Retag' }, 'Retag', 'Retag event has no bookFile.path'],
    ['Readarr BookFileDelete', { author, eventType: 'BookFileDelete' }, 'BookFileDelete', 'BookFileDelete event has no bookFile.path'],
    ['Readarr BookDelete', { author: { id: 1 }, eventType: 'BookDelete' }, 'BookDelete', 'BookDelete event has no author.path'],
    ['Readarr AuthorDelete', { author: { id: 1 }, eventType: 'AuthorDelete' }, 'AuthorDelete', 'AuthorDelete event has no author.path'],
  ])('%s', (_name, body, event, reason) => {
    expect(parseScanBody(body)).toMatchObject({ kind: 'ignored', event, reason });
  });
});

describe('fallbacks for older or partial payloads', () => {
  it.each<[string, Body, TriggerResult]>([
    ['Sonarr Rename before renamedEpisodeFiles: the series folder', { series, eventType: 'Rename' },
      scan('sonarr', 'Rename', (r) => [r.folder('/tv/Show')])],
    ['Radarr Rename before renamedMovieFiles: the movie folder', { movie, eventType: 'Rename' },
      scan('radarr', 'Rename', (r) => [r.folder('/movies/Film (2020)')])],
    ['Lidarr Rename before renamedTrackFiles: the artist folder', { artist, eventType: 'Rename' },
      scan('lidarr', 'Rename', (r) => [r.folder('/music/Band')])],
    ['Readarr Rename without renamedBookFiles: the author folder', { author, renamedBookFiles: [], eventType: 'Rename' },
      scan('readarr', 'Rename', (r) => [r.folder('/books/Writer')])],
    ['import complete without files: destinationPath as a folder',
      { series, episodeFiles: [], destinationPath: '/tv/Show/Season 02', eventType: 'Download' },
      scan('sonarr', 'Download', (r) => [r.folder('/tv/Show/Season 02')])],
    ['import complete whose files lack paths: destinationPath',
      { series: { id: 1 }, episodeFiles: [{ id: 1 }], destinationPath: '/tv/Show/Season 02', eventType: 'Download' },
      scan('sonarr', 'Download', (r) => [r.folder('/tv/Show/Season 02')])],
    ['import complete with files: destinationPath unused',
      { series, episodeFiles: [{ path: '/tv/Show/Season 02/e1.mkv' }], destinationPath: '/tv/Show/Season 02', eventType: 'Download' },
      scan('sonarr', 'Download', (r) => [r.file('/tv/Show/Season 02/e1.mkv')])],
    ['Readarr BookDelete: the author folder', { author, book: { id: 1, title: 'B' }, deletedFiles: true, eventType: 'BookDelete' },
      scan('readarr', 'BookDelete', (r) => [r.deletedFolder('/books/Writer')])],
    ['Readarr AuthorDelete: the author folder', { author, deletedFiles: false, eventType: 'AuthorDelete' },
      scan('readarr', 'AuthorDelete', (r) => [r.deletedFolder('/books/Writer')])],
    ['deletedFiles ignored when isUpgrade is false',
      { movie, movieFile: { path: '/movies/Film (2020)/new.mkv' }, isUpgrade: false, deletedFiles: [{ path: '/movies/Film (2020)/old.mkv' }], eventType: 'Download' },
      scan('radarr', 'Download', (r) => [r.file('/movies/Film (2020)/new.mkv')])],
    ['Readarr upgrade: deleted files by folder',
      { author, bookFiles: [{ path: '/books/Writer/Book/01.m4b' }, { path: '/books/Writer/Book/02.m4b' }], isUpgrade: true,
        deletedFiles: [{ path: '/books/Writer/Book/01.mp3' }, { path: '/books/Writer/Book/02.mp3' }], eventType: 'Download' },
      scan('readarr', 'Upgrade', (r) => [r.file('/books/Writer/Book/01.m4b'), r.deletedFile('/books/Writer/Book/01.mp3')])],
  ])('%s', (_name, body, expected) => {
    expect(withoutIds(parseScanBody(body))).toStrictEqual(expected);
  });
});

describe('one payload never yields the same request twice', () => {
  it.each<[string, Body, TriggerResult]>([
    ['a rename listing a file twice',
      { series, renamedEpisodeFiles: [{ previousPath: '/tv/Show/a.mkv', path: '/tv/Show/b.mkv' }, { previousPath: '/tv/Show/a.mkv', path: '/tv/Show/b.mkv' }], eventType: 'Rename' },
      scan('sonarr', 'Rename', (r) => [r.deletedFile('/tv/Show/a.mkv'), r.refreshedFile('/tv/Show/b.mkv')])],
    ['an upgrade deleting the same file twice',
      { series, episodeFile: { path: '/tv/Show/new.mkv' }, isUpgrade: true, deletedFiles: [{ path: '/tv/Show/old.mkv' }, { path: '/tv/Show/old.mkv' }], eventType: 'Download' },
      scan('sonarr', 'Upgrade', (r) => [r.refreshedFile('/tv/Show/new.mkv'), r.deletedFile('/tv/Show/old.mkv')])],
    ['an upgrade that kept the file name: only the live file',
      { movie, movieFile: { path: '/movies/Film (2020)/Film.mkv' }, isUpgrade: true, deletedFiles: [{ path: '/movies/Film (2020)/Film.mkv' }], eventType: 'Download' },
      scan('radarr', 'Upgrade', (r) => [r.refreshedFile('/movies/Film (2020)/Film.mkv')])],
    ['path and relativePath naming the same file',
      { series, episodeFiles: [{ path: '/tv/Show/Season 01/e1.mkv' }, { relativePath: 'Season 01/e1.mkv' }], eventType: 'Download' },
      scan('sonarr', 'Download', (r) => [r.file('/tv/Show/Season 01/e1.mkv')])],
    ['a Lidarr rename back and forth',
      { artist, renamedTrackFiles: [{ previousPath: '/music/Band/A/1.flac', path: '/music/Band/A/01.flac' }, { previousPath: '/music/Band/A/1.flac', path: '/music/Band/A/01.flac' }], eventType: 'Rename' },
      scan('lidarr', 'Rename', (r) => [r.deletedFile('/music/Band/A/1.flac'), r.file('/music/Band/A/01.flac')])],
  ])('%s', (_name, body, expected) => {
    expect(withoutIds(parseScanBody(body))).toStrictEqual(expected);
  });
});

describe('purity', () => {
  function deepFreeze<T>(value: T): T {
    if (value && typeof value === 'object') {
      for (const inner of Object.values(value)) deepFreeze(inner);
      Object.freeze(value);
    }
    return value;
  }

  it.each([
    'sonarr-importcomplete-24.json',
    'lidarr-multidisc-download.json',
    'radarr-windows-download.json',
    'sonarr-v4-download-unicode.json',
  ])('%s is read without being changed, and twice gives the same answer', (file) => {
    const body = ownFixture<Body>(`arr/${file}`);
    const copy = structuredClone(body);
    const first = parseScanBody(deepFreeze(body), sonarrUA);
    expect(body).toStrictEqual(copy);
    expect(parseScanBody(body, sonarrUA)).toStrictEqual(first);
  });
});
