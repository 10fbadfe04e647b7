// Item refresh, target side: the item(s) holding a file are found on Plex (by file, per section) and on
// Jellyfin/Emby (by Path, paging the library) and refreshed; a sidecar is looked up by the video beside it.
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { targetSchema, type Config } from '../../src/config/schema.js';
import { defaultConfig } from '../../src/config/load.js';
import { silentLogger } from '../../src/log/logger.js';
import { lookupCandidates } from '../../src/paths/sidecar.js';
import { buildTargets } from '../../src/targets/build.js';
import { embyTarget } from '../../src/targets/emby.js';
import { jellyfinTarget } from '../../src/targets/jellyfin.js';
import { PlexTarget } from '../../src/targets/plex/target.js';
import { startFakeEmby } from '../fakes/emby.js';
import { startFakeJellyfin, type FakeMediaBrowser } from '../fakes/jellyfin.js';
import { FakePlex } from '../fakes/plex.js';

const EPISODE = '/data/media/tv/Andor/Season 01/Andor - S01E03.mkv';
const SHOWS_ID = '8d2f6a4c1e7b49d3a5c0e9f2b6d1a8c4'; // the "Shows" library of the Jellyfin fixture

let plex: FakePlex | undefined;
let mb: FakeMediaBrowser | undefined;
afterEach(async () => {
  await plex?.stop();
  await mb?.close();
  plex = mb = undefined;
});

describe('lookupCandidates', () => {
  it('a video is looked up as itself; a sidecar by the videos it would belong to, tags stripped', () => {
    expect(lookupCandidates(EPISODE)).toEqual([EPISODE]);
    const c = lookupCandidates('/tv/Andor/Season 01/Andor - S01E03.en.forced.srt');
    expect(c[0]).toBe('/tv/Andor/Season 01/Andor - S01E03.mkv');
    expect(c).toContain('/tv/Andor/Season 01/Andor - S01E03.en.mp4');
    expect(lookupCandidates('D:\\TV\\Show\\e1.srt')[0]).toBe('D:\\TV\\Show\\e1.mkv');
  });
});

const plexAt = (p: FakePlex, token = p.token) => new PlexTarget({ url: p.url, token, clock: new ManualClock() });

describe("the Plex target's refreshItem", () => {
  it('finds the episode holding the file and asks Plex to refresh it (PUT /library/metadata/{key}/refresh)', async () => {
    plex = await new FakePlex().start();
    const item = plex.addToLibrary(EPISODE, '500');
    plex.addToLibrary('/data/media/tv/Andor/Season 01/Andor - S01E04.mkv', '500');
    const target = plexAt(plex);
    expect(await target.locate(EPISODE)).toEqual({ status: 'found', items: [item.ratingKey], detail: `item ${item.ratingKey} in TV Shows (section 2)` });
    expect(plex.itemRefreshes).toEqual([]);
    expect(await target.refreshItem(EPISODE)).toEqual({ status: 'refreshed', items: [item.ratingKey], detail: `refreshed item ${item.ratingKey}` });
    expect(await target.refreshItem('/data/media/tv/Andor/Season 01/Andor - S01E03.en.srt')).toMatchObject({ status: 'refreshed', items: [item.ratingKey] });
    expect(plex.itemRefreshes).toEqual([item.ratingKey, item.ratingKey]);
  });

  it('not in the library or in no section: not-found; a refused token: retry, target down', async () => {
    plex = await new FakePlex().start();
    const target = plexAt(plex);
    expect(await target.refreshItem(EPISODE)).toMatchObject({ status: 'not-found', detail: expect.stringContaining('TV Shows') });
    expect(await target.refreshItem('/elsewhere/x.mkv')).toMatchObject({ status: 'not-found', detail: "'/elsewhere/x.mkv' is in no Plex section" });
    const refused = await plexAt(plex, 'wrong-token').refreshItem(EPISODE);
    expect(refused).toMatchObject({ status: 'retry', targetDown: true });
    expect(plex.itemRefreshes).toEqual([]);
  });
});

describe("the Jellyfin and Emby targets' refreshItem", () => {
  it('Jellyfin: pages the library holding the file for its Path and refreshes that item', async () => {
    mb = await startFakeJellyfin();
    mb.items = [
      ...Array.from({ length: 5 }, (_, i) => ({ Id: `other-${i}`, Path: `/data/media/tv/Other/e${i}.mkv`, ParentId: SHOWS_ID })),
      { Id: 'ep-andor-3', Path: EPISODE, ParentId: SHOWS_ID },
      { Id: 'movie-1', Path: EPISODE, ParentId: 'movies-elsewhere' },
    ];
    const jf = jellyfinTarget({ name: 'jf', url: mb.url, token: 'jellyfin-token-1234', pageSize: 2 });
    expect(await jf.locate!(EPISODE)).toEqual({ status: 'found', items: ['ep-andor-3'], detail: 'item ep-andor-3 in Shows' });
    mb.requests.length = 0;
    const result = await jf.refreshItem!(EPISODE);
    expect(result).toEqual({ status: 'refreshed', items: ['ep-andor-3'], detail: 'refreshed item ep-andor-3' });
    expect(mb.itemRefreshes()).toEqual(['ep-andor-3']);
    const pages = mb.requests.filter((r) => r.path === '/Items');
    expect(pages).toHaveLength(3);
    expect(mb.requests.every((r) => r.path === '/System/Info/Public' || String(r.headers.authorization).includes('jellyfin-token-1234'))).toBe(true);
    // A subtitle next to it refreshes the same item.
    expect(await jellyfinTarget({ name: 'jf', url: mb.url, token: 'jellyfin-token-1234' }).refreshItem!(EPISODE.replace('.mkv', '.de.srt'))).toMatchObject({ items: ['ep-andor-3'] });
  });

  it('Emby: the library id comes from VirtualFolders/Query; not found and refused token are told apart', async () => {
    mb = await startFakeEmby();
    mb.items = [{ Id: '9001', Path: EPISODE, ParentId: '7' }];
    const target = embyTarget({ name: 'emby', url: mb.url, token: 'emby-token-5678' });
    expect(await target.refreshItem!(EPISODE)).toMatchObject({ status: 'refreshed', items: ['9001'] });
    expect(await target.refreshItem!('/data/media/tv/New/e1.mkv')).toMatchObject({ status: 'not-found' });
    const refused = await embyTarget({ name: 'emby', url: mb.url, token: 'bad-token-00' }).refreshItem!(EPISODE);
    expect(refused).toMatchObject({ status: 'retry', targetDown: true });
    expect(JSON.stringify(refused)).not.toContain('bad-token-00');
    expect(mb.itemRefreshes()).toEqual(['9001']);
  });
});

describe('item refresh through the table', () => {
  it('a request asking for it is refreshed everywhere; Rename/Upgrade only where REFRESH_ITEMS (or PLEX_REFRESH_ITEMS) is on', async () => {
    plex = await new FakePlex().start();
    mb = await startFakeJellyfin({ libraries: [{ Name: 'Shows', ItemId: 'shows', Locations: ['/media/tv'] }] });
    mb.items = [{ Id: 'jf-ep', Path: '/media/tv/Andor/Season 01/Andor - S01E03.mkv', ParentId: 'shows' }];
    const item = plex.addToLibrary(EPISODE);
    const config: Config = {
      ...defaultConfig(() => 'x'.repeat(32)),
      PLEX_LOCAL_URL: plex.url,
      PLEX_TOKEN: plex.token,
      PLEX_REFRESH_ITEMS: false,
      TARGETS: [
        targetSchema().parse({ NAME: 'jf', TYPE: 'jellyfin', URL: mb.url, TOKEN: 'jellyfin-token-1234', PATH_MAPPINGS: { '/media/': ['/data/media/'] }, REFRESH_ITEMS: true }),
        targetSchema().parse({ NAME: 'abs', TYPE: 'audiobookshelf', URL: 'http://127.0.0.1:9', TOKEN: 't' }),
        targetSchema().parse({ NAME: 'jf-movies', TYPE: 'jellyfin', URL: mb.url, TOKEN: 'jellyfin-token-1234', INCLUDE: ['/data/media/movies'] }),
      ],
    };
    const targets = new Map(buildTargets(config, { clock: new ManualClock(), logger: silentLogger }).map((t) => [t.name, t]));
    expect([...targets.values()].filter((t) => t.refreshItem).map((t) => t.name)).toEqual(['plex', 'jf', 'jf-movies']);
    expect(targets.get('plex')!.refreshOnChange).toBe(false);
    expect(targets.get('jf')!.refreshOnChange).toBe(true);
    expect(await targets.get('plex')!.refreshItem!(EPISODE)).toMatchObject({ status: 'refreshed', items: [item.ratingKey] });
    expect(await targets.get('jf')!.refreshItem!(EPISODE)).toMatchObject({ status: 'refreshed', items: ['jf-ep'] });
    expect(await targets.get('jf-movies')!.refreshItem!(EPISODE)).toMatchObject({ status: 'not-found', detail: expect.stringContaining('INCLUDE') });
  });
});
