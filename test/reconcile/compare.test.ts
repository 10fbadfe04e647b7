// The comparison itself: a file the server spells in NFD or in another case is not missing; an item is unknown to
// the app only under one of its root folders, at a path boundary.
import { describe, expect, it } from 'vitest';
import { compare, spelledInside, spelling } from '../../src/reconcile/compare.js';

const items = (...paths: string[]) => paths;

describe('compare', () => {
  it('NFC against NFD, and case, are the same file; a file the server lacks is missing, as the app names it', () => {
    const expected = [
      { received: '/tv/Amélie/S01E01.mkv', path: '/data/tv/Amélie/S01E01.mkv'.normalize('NFC') },
      { received: '/tv/Heat/heat.mkv', path: '/data/tv/Heat/heat.mkv' },
      { received: '/tv/Gone/gone.mkv', path: '/data/tv/Gone/gone.mkv' },
    ];
    const server = items('/data/tv/Amélie/S01E01.mkv'.normalize('NFD'), '/data/tv/HEAT/Heat.MKV');
    expect(compare(expected, server, ['/data/tv'])).toEqual({ missing: ['/tv/Gone/gone.mkv'], unknown: [] });
  });

  it('an item is unknown to the app only under one of its root folders, at a path boundary', () => {
    const server = items('/data/tv/Old/old.mkv', '/data/tv-4k/Other/other.mkv', '/data/movies/Heat/heat.mkv');
    expect(compare([], server, ['/data/tv/'])).toEqual({ missing: [], unknown: ['/data/tv/Old/old.mkv'] });
    expect(compare([], server, [])).toEqual({ missing: [], unknown: [] });
    expect(spelledInside(spelling('/data/tv-4k/x'), spelling('/data/tv'))).toBe(false);
    expect(spelledInside(spelling('D:\\TV\\Show\\x.mkv'), spelling('d:\\tv'))).toBe(true);
  });
});
