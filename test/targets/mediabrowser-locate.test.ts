// Finding the deepest folder item for a folder, with `list` wired to real HTTP against the model Jellyfin:
// one level per segment, a cache per level, a miss re-reads only the level that missed, and the budget of at
// most 3 listing requests for a folder whose series is already cached.
import { afterEach, describe, expect, it } from 'vitest';
import { childrenQuery, ItemLocator, type LibraryRoot } from '../../src/targets/mediabrowser/locate.js';
import { episodeFile, movieFolder, movieLibrary, seasonFolder, tvLibrary } from '../fakes/jellyfin-libraries.js';
import { startJellyfinServer, type JellyfinServer } from '../fakes/jellyfin-server.js';

let server: JellyfinServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function setup(pageSize = 50) {
  server = await startJellyfinServer();
  const s = server;
  const tv = tvLibrary(s.model, '/tv', { series: 120, seasons: 3, episodes: 2 });
  const movies = movieLibrary(s.model, '/movies', 300);
  s.model.settle();
  const libraries: LibraryRoot[] = [tv, movies].map((l) => ({ id: l.id, name: l.name, locations: [l.location] }));
  const locator = new ItemLocator({
    clock: s.clock,
    pageSize,
    list: async (parentId, start, limit) => {
      const res = await fetch(`${s.url}/Items?${new URLSearchParams(childrenQuery(parentId, start, limit))}`, { headers: { Authorization: `MediaBrowser Token="${s.token}"` } });
      const page = (await res.json()) as { Items: { Id: string; Path: string; Type: string }[]; TotalRecordCount: number };
      return { items: page.Items, total: page.TotalRecordCount };
    },
  });
  return { s, locator, libraries };
}

describe('ItemLocator', () => {
  it('walks down one level per segment, paging the library level, to the season', async () => {
    const { s, locator, libraries } = await setup();
    const found = await locator.locate(libraries, seasonFolder('/tv', 77, 2));
    expect(found?.item).toMatchObject({ path: seasonFolder('/tv', 77, 2), type: 'Season' });
    expect(found?.depth).toBe(2);
    expect(found?.isLibraryRoot).toBe(false);
    // 120 series in pages of 50 (3 requests), then the series' 3 seasons (1).
    expect(found?.requests).toBe(4);
    expect(s.count('GET', '/Items')).toBe(4);
    // Never the whole library: no listing asked for more than one parent's folders.
    expect(s.requests.every((r) => r.path !== '/Items' || (r.query.ParentId && r.query.Filters === 'IsFolder'))).toBe(true);
  });

  it('costs at most 3 listing requests for a folder whose series is cached, none for a known season', async () => {
    const { s, locator, libraries } = await setup();
    await locator.locate(libraries, seasonFolder('/tv', 5, 1));
    expect((await locator.locate(libraries, seasonFolder('/tv', 5, 3)))?.requests).toBe(0);
    // A new season of a cached series: the series level misses and is read again (1 request), nothing else.
    s.model.writeFile(episodeFile('/tv', 5, 4, 1));
    s.clock.advance(5_000);
    const fresh = await locator.locate(libraries, seasonFolder('/tv', 5, 4));
    expect(fresh?.item.path).toBe('/tv/Series 0005');
    expect(fresh?.requests).toBeLessThanOrEqual(3);
    expect(fresh?.requests).toBe(1);
  });

  it('learns an item the server made since: the level that missed is read again, only that one', async () => {
    const { s, locator, libraries } = await setup();
    s.model.writeFile(episodeFile('/tv', 9, 4, 1));
    expect((await locator.locate(libraries, seasonFolder('/tv', 9, 4)))?.item.path).toBe('/tv/Series 0009');
    const series = s.model.itemAt('/tv/Series 0009')!;
    s.model.queueRefresh(series.Id, 'test');
    await s.scheduler.runUntilIdle();
    s.clock.advance(5_000);
    const after = await locator.locate(libraries, seasonFolder('/tv', 9, 4));
    expect(after?.item.type).toBe('Season');
    expect(after?.requests).toBe(1);
  });

  it('stops at the library root for a movie folder (no item), sharing one re-read among folders due together', async () => {
    const { locator, libraries } = await setup();
    const first = await locator.locate(libraries, movieFolder('/movies', 12));
    expect(first?.isLibraryRoot).toBe(true);
    // Filters=IsFolder: the movie library's level holds no movies, so it is one short page.
    expect(first?.requests).toBe(1);
    expect((await locator.locate(libraries, movieFolder('/movies', 13)))?.requests).toBe(0);
  });

  it('answers undefined for a folder in no library', async () => {
    const { locator, libraries } = await setup();
    expect(await locator.locate(libraries, '/elsewhere/x')).toBeUndefined();
  });
});
