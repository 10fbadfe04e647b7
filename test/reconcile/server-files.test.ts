// Each server's files as the reconcile reads them, page by page, from the model servers: Plex's
// /library/sections/{id}/all with the section's leaf type and X-Plex-Container-Start/-Size (every part of every
// media), Jellyfin's /Items below the library, recursive, file item types only, with Path, by StartIndex/Limit.
import { afterEach, describe, expect, it } from 'vitest';
import { PlexApi } from '../../src/targets/plex/api.js';
import { sectionFiles } from '../../src/targets/plex/section-files.js';
import { apiCaller } from '../../src/http/api-call.js';
import { embyTarget } from '../../src/targets/emby.js';
import { jellyfinServer, jellyfinTarget } from '../../src/targets/jellyfin.js';
import { libraryFiles } from '../../src/targets/mediabrowser/library-files.js';
import { episodeFile, tvLibrary } from '../fakes/jellyfin-libraries.js';
import { startJellyfinServer, type JellyfinServer } from '../fakes/jellyfin-server.js';
import { FakePlex } from '../fakes/plex.js';

let plex: FakePlex | undefined;
let jellyfin: JellyfinServer | undefined;
afterEach(async () => {
  await plex?.stop();
  await jellyfin?.close();
  plex = jellyfin = undefined;
});

const all = async (pages: AsyncIterable<string[]>) => {
  const out: string[][] = [];
  for await (const page of pages) out.push(page);
  return out;
};

describe('the servers’ files, paged', () => {
  it('Plex: the episodes of a show section (type 4), every page by X-Plex-Container-Start/-Size; a photo section reads nothing', async () => {
    plex = await new FakePlex().start();
    const files = Array.from({ length: 5 }, (_, i) => `/data/media/tv/Show/Season 01/e${i}.mkv`);
    for (const f of files) plex.addToLibrary(f);
    const api = new PlexApi({ url: plex.url, token: plex.token });
    const pages = await all(sectionFiles(api, { id: '2', title: 'TV Shows', locations: ['/data/media/tv'], sectionType: 'show' }, 2));
    expect(pages).toEqual([files.slice(0, 2), files.slice(2, 4), files.slice(4)]);
    const asked = plex.requests.filter((r) => r.path === '/library/sections/2/all');
    expect(asked.map((r) => [r.query.type, r.query['X-Plex-Container-Start'], r.query['X-Plex-Container-Size']])).toEqual([
      ['4', '0', '2'],
      ['4', '2', '2'],
      ['4', '4', '2'],
    ]);
    expect(await all(sectionFiles(api, { id: '9', title: 'Photos', locations: ['/photos'], sectionType: 'photo' }))).toEqual([]);
  });

  it('Jellyfin: every episode below the library, paged; no series, season or folder', async () => {
    jellyfin = await startJellyfinServer();
    tvLibrary(jellyfin.model, '/tv', { series: 2, seasons: 1, episodes: 3 });
    jellyfin.model.settle();
    const target = jellyfinTarget({ name: 'jellyfin', url: jellyfin.url, token: jellyfin.token });
    const [library] = await target.libraries!();
    const pages = await all(target.files!(library));
    expect(pages.flat().sort()).toEqual([1, 2].flatMap((s) => [1, 2, 3].map((e) => episodeFile('/tv', s, 1, e))).sort());
    const asked = jellyfin.requests.filter((r) => r.path === '/Items');
    expect(asked[0].query).toMatchObject({ ParentId: library.id, Recursive: 'true', Fields: 'Path', StartIndex: '0', Limit: '500' });
    expect(asked[0].query.IncludeItemTypes.split(',')).toContain('Episode');
    // Two at a time: every page, by StartIndex and Limit, until TotalRecordCount.
    const api = apiCaller({ who: 'jellyfin', url: jellyfin.url, urlKey: 'URL', headers: jellyfinServer.authHeaders(jellyfin.token), secrets: [], authHint: '' });
    const paged = await all(libraryFiles(api, library, 2));
    expect(paged.map((p) => p.length)).toEqual([2, 2, 2]);
    expect(paged.flat().sort()).toEqual(pages.flat().sort());
  });

  it('Emby (the same model answering as Emby): the same files through its own library list', async () => {
    jellyfin = await startJellyfinServer({ kind: 'emby' });
    tvLibrary(jellyfin.model, '/tv', { series: 1, seasons: 1, episodes: 2 });
    jellyfin.model.settle();
    const target = embyTarget({ name: 'emby', url: jellyfin.url, token: jellyfin.token });
    const [library] = await target.libraries!();
    expect((await all(target.files!(library))).flat().sort()).toEqual([1, 2].map((e) => episodeFile('/tv', 1, 1, e)));
  });
});
