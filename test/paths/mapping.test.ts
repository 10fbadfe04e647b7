import { describe, expect, it } from 'vitest';
import { ignoredBy, mapPath, priorityOf } from '../../src/paths/mapping.js';
import { isInside, joinPath, parentFolder, trimTrailingSeparator } from '../../src/paths/folder.js';
import { holders } from '../../src/targets/library-list.js';
import { rewritePath } from '../../src/targets/rewrite.js';

const mappings = {
  '/data/Movies/': ['/movies/', '/mnt/unionfs/Media/Movies/', 'My Drive/Media/Movies/'],
  '/data/TV/': ['/tv/', '/mnt/unionfs/Media/TV/', 'My Drive/Media/TV/', 'D:\\Media\\TV\\'],
  '/data/TV/Anime/': ['/tv/Anime/'],
};

describe("SERVER_PATH_MAPPINGS: the sender's path prefix becomes the media server's", () => {
  it.each([
    ['container form', '/movies/Heat (1995)/Heat.mkv', '/data/Movies/Heat (1995)/Heat.mkv'],
    ['mount form', '/mnt/unionfs/Media/TV/Mr. Robot (2015)/Season 01/e1.mkv', '/data/TV/Mr. Robot (2015)/Season 01/e1.mkv'],
    ['drive form', 'My Drive/Media/Movies/Amélie (2001)/a.mkv', '/data/Movies/Amélie (2001)/a.mkv'],
    ['Windows form', 'D:\\Media\\TV\\Show $(x)\\Season 01\\e.mkv', '/data/TV/Show $(x)/Season 01/e.mkv'],
    ['longest alternative wins', '/tv/Anime/Naruto/e.mkv', '/data/TV/Anime/Naruto/e.mkv'],
    ['unmapped passes through', '/elsewhere/file.mkv', '/elsewhere/file.mkv'],
  ])('%s', (_name, input, expected) => {
    expect(mapPath(input, mappings).path).toBe(expected);
  });

  it('matches only at a path boundary', () => {
    expect(mapPath('/moviesextra/x.mkv', { '/data/': ['/movies'] }).path).toBe('/moviesextra/x.mkv');
    expect(mapPath('/movies/x.mkv', { '/data': ['/movies'] }).path).toBe('/data/x.mkv');
    expect(mapPath('/movies', { '/data/': ['/movies'] }).path).toBe('/data/');
  });

  it('replaces only the prefix, not later occurrences', () => {
    expect(mapPath('/tv/Show/tv/e.mkv', { '/data/TV/': ['/tv/'] }).path).toBe('/data/TV/Show/tv/e.mkv');
  });

  it('reports which mapping matched', () => {
    expect(mapPath('/movies/a', mappings).match).toEqual({ to: '/data/Movies/', from: '/movies/' });
    expect(mapPath('/nowhere/a', mappings).match).toBeUndefined();
  });
});

describe('ignore list and priorities', () => {
  it('SERVER_IGNORE_LIST is a case-insensitive substring', () => {
    expect(ignoredBy(['/tv/.grab/x.mkv'], ['/.grab/'])).toBe('/.grab/');
    expect(ignoredBy(['/tv/Show/THUMBS.DB'], ['Thumbs.db'])).toBe('Thumbs.db');
    expect(ignoredBy(['/tv/Show/e.mkv'], ['/.grab/'])).toBeUndefined();
  });
  it('SERVER_SCAN_PRIORITIES: first matching entry, unmatched is 0', () => {
    const p = { '0': ['/Movies/'], '1': ['/TV/'], '2': ['/Music/'] };
    expect(priorityOf('/data/tv/Show', p)).toBe(1);
    expect(priorityOf('/data/Music/a', p)).toBe(2);
    expect(priorityOf('/data/other', p)).toBe(0);
  });
});

describe('folder arithmetic', () => {
  it('parent folders of POSIX and Windows paths', () => {
    expect(parentFolder('/tv/Show/S01/e.mkv')).toBe('/tv/Show/S01');
    expect(parentFolder('/tv/Show/S01/')).toBe('/tv/Show');
    expect(parentFolder('D:\\Media\\TV\\e.mkv')).toBe('D:\\Media\\TV');
    expect(parentFolder('D:\\e.mkv')).toBe('D:\\');
    expect(parentFolder('/e.mkv')).toBe('/');
  });
  it('joins with the base separator', () => {
    expect(joinPath('/tv/Show', 'Season 01/e.mkv')).toBe('/tv/Show/Season 01/e.mkv');
    expect(joinPath('C:\\tv\\Show\\', 'Season 01\\e.mkv')).toBe('C:\\tv\\Show\\Season 01\\e.mkv');
  });
  it('isInside compares at boundaries', () => {
    expect(isInside('/data/tv/Show', '/data/tv')).toBe(true);
    expect(isInside('/data/tv', '/data/tv/')).toBe(true);
    expect(isInside('/data/tvshows/x', '/data/tv')).toBe(false);
  });
});

describe('one mapping mechanism for SERVER_PATH_MAPPINGS and per-target rewrites', () => {
  const shared = { '/data/media/': ['D:\\Media\\', '/mnt/unionfs/Media/'], '/': ['/root-form'] };
  it.each([
    ['d:\\media\\TV\\Show\\Season 01', '/data/media/TV/Show/Season 01'], // a Windows form matches in any case
    ['D:\\MEDIA\\Movies\\Heat (1995)\\', '/data/media/Movies/Heat (1995)/'],
    ['/mnt/unionfs/media/tv/x', '/mnt/unionfs/media/tv/x'], // a POSIX form stays case-sensitive
    ['/mnt/unionfs/Media', '/data/media/'],
    ['/root-form/a', '/a'],
  ])('mapPath(%s) = %s', (path, expected) => {
    expect(mapPath(path, shared).path).toBe(expected);
  });

  it.each([
    ['d:\\media\\TV\\Show\\Season 01\\', '/data/media/TV/Show/Season 01'],
    ['/mnt/unionfs/Media', '/data/media'],
    ['/mnt/unionfs/Media/tv/Show/', '/data/media/tv/Show'],
    ['/elsewhere/x/', '/elsewhere/x'],
  ])('a target rewrite is the same mapping without the trailing separator: %s -> %s', (path, expected) => {
    expect(rewritePath(path, shared)).toBe(expected);
    expect(rewritePath(path, shared)).toBe(trimTrailingSeparator(mapPath(path, shared).path));
  });
});

describe('one containment rule for POSIX and Windows paths', () => {
  it('a Windows library location holds a folder written in another case, as Windows sees it; POSIX stays exact', () => {
    expect(isInside('d:\\media\\tv\\Show\\Season 01', 'D:\\Media\\TV')).toBe(true);
    expect(isInside('D:\\Media\\TVShows\\x', 'D:\\Media\\TV')).toBe(false);
    expect(isInside('/data/Media/tv/Show', '/data/media/tv')).toBe(false);
    expect(isInside('/data/media/tv', '/data/media/tv/')).toBe(true);
    // Section matching uses the same rule as the mappings and rewrites, so they cannot disagree on a Windows path.
    const sections = [{ id: '2', title: 'TV', locations: ['D:\\Media\\TV'] }];
    expect(holders(sections, 'd:\\media\\tv\\Show\\Season 01').map((s) => s.id)).toEqual(['2']);
  });
});
