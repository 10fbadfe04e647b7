// Every request our Jellyfin code makes is an operation of the official TypeScript SDK (@jellyfin/sdk, generated
// from Jellyfin's OpenAPI document): method, path template and query names. The plugin's route is the one listed
// exception. Plex's requests are checked against @lukehagar/plexjs where it lists the route, with the exceptions
// below and why each is there. A new request must join a table here (or, once the target modules export their
// request templates, be read from them) and so meets the check.
import { afterEach, describe, expect, it } from 'vitest';
import { childrenQuery } from '../../src/targets/mediabrowser-locate.js';
import { refreshQuery } from '../../src/targets/mediabrowser-scan-plan.js';
import { episodeFile, movieFile, movieFolder, movieLibrary, seasonFolder, tvLibrary } from '../fakes/jellyfin-libraries.js';
import { startJellyfinServer, type JellyfinServer } from '../fakes/jellyfin-server.js';
import { MediaBrowserScanFlow } from '../support/mediabrowser-scan-flow.js';
import { jellyfinOperations, mismatch, plexOperations, type OurRequest } from '../support/sdk-operations.js';

const jellyfinRequests: OurRequest[] = [
  { method: 'GET', template: '/System/Info/Public', query: [], from: 'src/targets/mediabrowser.ts (available)' },
  { method: 'GET', template: '/Library/VirtualFolders', query: [], from: 'src/targets/jellyfin.ts (librariesPath)' },
  { method: 'POST', template: '/Library/Media/Updated', query: [], from: 'src/targets/mediabrowser.ts (scan)' },
  { method: 'GET', template: '/Items', query: ['ParentId', 'Recursive', 'Fields', 'StartIndex', 'Limit'], from: 'src/targets/mediabrowser-items.ts' },
  { method: 'POST', template: '/Items/{id}/Refresh', query: ['MetadataRefreshMode', 'ImageRefreshMode', 'ReplaceAllMetadata', 'ReplaceAllImages'], from: 'src/targets/mediabrowser-items.ts' },
  // Read from the new modules themselves, so a query name added there is checked without touching this table.
  { method: 'GET', template: '/Items', query: Object.keys(childrenQuery('p', 0, 1)), from: 'src/targets/mediabrowser-locate.ts (childrenQuery)' },
  { method: 'POST', template: '/Items/{itemId}/Refresh', query: Object.keys(refreshQuery('jellyfin')), from: 'src/targets/mediabrowser-scan-plan.ts (refreshQuery)' },
];

/**
 * Found by this check in code that is being refactored: mediabrowser-items.ts sends IsFolder=false, which
 * GetItems does not bind (the server ignores it and lists folders too; Filters=IsNotFolder is the way). Asserted
 * to mismatch so the entry goes once the fix lands.
 */
const jellyfinToFix: OurRequest[] = [
  { method: 'GET', template: '/Items', query: ['ParentId', 'Recursive', 'IsFolder', 'Fields', 'StartIndex', 'Limit'], from: 'src/targets/mediabrowser-items.ts' },
];

/** Requests Jellyfin's own API does not have, and why we send them anyway. */
const jellyfinExceptions: (OurRequest & { why: string })[] = [
  { method: 'POST', template: '/Library/ScanPath', query: [], from: 'src/targets/mediabrowser-scan-plan.ts', why: 'the Targeted Scans plugin’s route (d3v1l1989/targeted-scans), used only when the server answers it' },
];

const plexRequests: OurRequest[] = [
  { method: 'GET', template: '/activities', query: [], from: 'src/plex/activities.ts' },
  { method: 'GET', template: '/identity', query: [], from: 'src/plex/api.ts' },
  { method: 'PUT', template: '/library/sections/{id}/emptyTrash', query: [], from: 'src/plex/after-scan.ts' },
  { method: 'PUT', template: '/library/metadata/{key}/analyze', query: [], from: 'src/plex/after-scan.ts' },
  { method: 'PUT', template: '/library/metadata/{key}/split', query: [], from: 'src/plex/match.ts' },
  { method: 'PUT', template: '/library/metadata/{key}/match', query: ['guid', 'name'], from: 'src/plex/match.ts' },
  { method: 'PUT', template: '/library/metadata/{key}/refresh', query: [], from: 'src/plex/match.ts, src/plex/refresh-item.ts' },
];

/** Plex requests plexjs does not list as sent, each with why we keep it. */
const plexExceptions: (OurRequest & { why: string })[] = [
  { method: 'GET', template: '/library/sections', query: [], from: 'src/plex/api.ts', why: 'the long-standing section list every Plex answers; plexjs lists only /library/sections/all' },
  { method: 'GET', template: '/library/sections/{id}/refresh', query: ['path'], from: 'src/plex/api.ts', why: 'plexjs says POST; Plex has answered GET for a partial scan for a decade (plex_autoscan, python-plexapi send GET)' },
  { method: 'GET', template: '/library/sections/{id}/all', query: ['file'], from: 'src/plex/confirm.ts, src/plex/match.ts', why: 'file is a filter field; plexjs models filters as one free-form mediaQuery object' },
  { method: 'GET', template: '/library/metadata/{key}', query: ['includeGuids'], from: 'src/plex/match.ts', why: 'includeGuids (the tvdb/tmdb/imdb ids of an item) is not in plexjs’s list of this route’s flags' },
  { method: 'GET', template: '/library/metadata/{key}/children', query: [], from: 'src/plex/after-scan.ts', why: 'a season’s or show’s children; plexjs does not list the route' },
  { method: 'GET', template: '/library/metadata/{key}/matches', query: ['manual', 'title', 'agent', 'language'], from: 'src/plex/match.ts', why: 'plexjs says PUT; Plex answers GET, which is what its web app sends for the Match dialog' },
];

describe('Jellyfin requests are operations of @jellyfin/sdk', () => {
  const ops = jellyfinOperations();

  it('reads the SDK’s operations', () => {
    expect(ops.length).toBeGreaterThan(300);
    expect(mismatch({ method: 'POST', template: '/Items/{x}/Refresh', query: ['metadataRefreshMode'], from: '' }, ops, true)).toBeUndefined();
    expect(mismatch({ method: 'GET', template: '/Items', query: ['Path'], from: '' }, ops, true)).toMatch(/takes no Path/);
  });

  it.each(jellyfinRequests.map((r) => [`${r.method} ${r.template} (${r.from})`, r] as const))('%s', (_, request) => {
    expect(mismatch(request, ops, true)).toBeUndefined();
  });

  it('lists as exceptions only requests the SDK really lacks', () => {
    for (const e of jellyfinExceptions) expect(mismatch(e, ops, true), e.template).toBeDefined();
    for (const e of jellyfinToFix) expect(mismatch(e, ops, true)).toMatch(/takes no IsFolder/);
  });

  let server: JellyfinServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('holds for every request the scan flow sent to the model server, by every SCAN_METHOD', async () => {
    const exceptions = jellyfinExceptions.map((e) => `${e.method} ${e.template}`);
    for (const method of ['auto', 'item', 'library', 'media-updated'] as const) {
      for (const plugin of [false, true]) {
        server = await startJellyfinServer({ plugin });
        tvLibrary(server.model, '/tv', { series: 3, seasons: 1, episodes: 2 });
        movieLibrary(server.model, '/movies', 3);
        server.model.settle();
        server.model.writeFile(episodeFile('/tv', 1, 1, 3));
        server.model.writeFile(movieFile('/movies', 4));
        const flow = new MediaBrowserScanFlow({ url: server.url, token: server.token, method, clock: server.clock });
        await flow.deliver([seasonFolder('/tv', 1, 1), movieFolder('/movies', 4)].map((path) => ({ path, deleted: false, gone: false })));
        for (const r of server.requests) {
          const template = r.path.replace(/^\/Items\/[^/]+\/Refresh$/, '/Items/{itemId}/Refresh');
          if (exceptions.includes(`${r.method} ${template}`)) continue;
          expect(mismatch({ method: r.method, template, query: Object.keys(r.query), from: 'flow' }, ops, true), `${method} ${r.method} ${r.path}`).toBeUndefined();
        }
        await server.close();
        server = undefined;
      }
    }
  });
});

describe('Plex requests are operations of @lukehagar/plexjs', () => {
  const ops = plexOperations();

  it.each(plexRequests.map((r) => [`${r.method} ${r.template} (${r.from})`, r] as const))('%s', (_, request) => {
    expect(mismatch(request, ops, false)).toBeUndefined();
  });

  it('lists as exceptions only requests plexjs really lacks, each with its reason', () => {
    for (const e of plexExceptions) {
      expect(mismatch(e, ops, false), e.template).toBeDefined();
      expect(e.why.length).toBeGreaterThan(20);
    }
  });
});
