// Every request our Jellyfin code makes is an operation of the official TypeScript SDK (@jellyfin/sdk, generated
// from Jellyfin's OpenAPI document): method, path template and query names. The list is the one the module
// exports (src/targets/mediabrowser/requests.ts, its query names read from the builders the code calls); the
// plugin's route is the one listed exception. What the real target sent the model server through the service,
// by every SCAN_METHOD, is checked too, so a request that skipped the list still meets the check. Plex's requests
// are checked against @lukehagar/plexjs where it lists the route, with the exceptions below and why each is there
// (still a hand table: the Plex modules do not export theirs yet).
import { afterEach, describe, expect, it } from 'vitest';
import { jellyfinRequests } from '../../src/targets/jellyfin.js';
import { SCAN_METHODS } from '../../src/targets/mediabrowser/scan-plan.js';
import { episodeFile, movieFile, movieLibrary, tvLibrary } from '../fakes/jellyfin-libraries.js';
import { jellyfinService, radarrDownload, sonarrDownload, type JellyfinService } from '../support/jellyfin-service.js';
import { jellyfinOperations, mismatch, plexOperations, type OurRequest } from '../support/sdk-operations.js';

const jellyfinSent = jellyfinRequests.filter((r) => !r.exception);
const jellyfinExceptions = jellyfinRequests.filter((r) => r.exception);

const plexRequests: OurRequest[] = [
  { method: 'GET', template: '/activities', query: [], from: 'src/targets/plex/follow/follower.ts' },
  { method: 'GET', template: '/identity', query: [], from: 'src/targets/plex/api.ts' },
  { method: 'PUT', template: '/library/sections/{id}/emptyTrash', query: [], from: 'src/targets/plex/after-scan.ts' },
  { method: 'PUT', template: '/library/metadata/{key}/analyze', query: [], from: 'src/targets/plex/after-scan.ts' },
  { method: 'PUT', template: '/library/metadata/{key}/split', query: [], from: 'src/targets/plex/match.ts' },
  { method: 'PUT', template: '/library/metadata/{key}/match', query: ['guid', 'name'], from: 'src/targets/plex/match.ts' },
  { method: 'PUT', template: '/library/metadata/{key}/refresh', query: [], from: 'src/targets/plex/match.ts, src/targets/plex/refresh-item.ts' },
];

/** Plex requests plexjs does not list as sent, each with why we keep it. */
const plexExceptions: (OurRequest & { why: string })[] = [
  { method: 'GET', template: '/library/sections', query: [], from: 'src/targets/plex/api.ts', why: 'the long-standing section list every Plex answers; plexjs lists only /library/sections/all' },
  { method: 'GET', template: '/library/sections/{id}/refresh', query: ['path'], from: 'src/targets/plex/api.ts', why: 'plexjs says POST; Plex has answered GET for a partial scan for a decade (plex_autoscan, python-plexapi send GET)' },
  { method: 'GET', template: '/library/sections/{id}/all', query: ['file'], from: 'src/targets/plex/confirm.ts, src/targets/plex/match.ts', why: 'file is a filter field; plexjs models filters as one free-form mediaQuery object' },
  { method: 'GET', template: '/library/metadata/{key}', query: ['includeGuids'], from: 'src/targets/plex/match.ts', why: 'includeGuids (the tvdb/tmdb/imdb ids of an item) is not in plexjs’s list of this route’s flags' },
  { method: 'GET', template: '/library/metadata/{key}/children', query: [], from: 'src/targets/plex/after-scan.ts', why: 'a season’s or show’s children; plexjs does not list the route' },
  { method: 'GET', template: '/library/metadata/{key}/matches', query: ['manual', 'title', 'agent', 'language'], from: 'src/targets/plex/match.ts', why: 'plexjs says PUT; Plex answers GET, which is what its web app sends for the Match dialog' },
];

describe('Jellyfin requests are operations of @jellyfin/sdk', () => {
  const ops = jellyfinOperations();

  it('reads the SDK’s operations', () => {
    expect(ops.length).toBeGreaterThan(300);
    expect(mismatch({ method: 'POST', template: '/Items/{x}/Refresh', query: ['metadataRefreshMode'], from: '' }, ops, true)).toBeUndefined();
    expect(mismatch({ method: 'GET', template: '/Items', query: ['IsFolder'], from: '' }, ops, true)).toMatch(/takes no IsFolder/);
  });

  it.each(jellyfinSent.map((r) => [`${r.method} ${r.template} (${r.from})`, r] as const))('%s', (_, request) => {
    expect(mismatch(request, ops, true)).toBeUndefined();
  });

  it('lists as exceptions only requests the SDK really lacks, each with its reason', () => {
    expect(jellyfinExceptions.map((e) => e.template)).toEqual(['/Library/ScanPath', '/Library/ScanPaths']);
    for (const e of jellyfinExceptions) expect(mismatch(e, ops, true), e.template).toBeDefined();
  });

  let t: JellyfinService | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  it('holds for every request the real target sent the model server, by every SCAN_METHOD', async () => {
    const exceptions = jellyfinExceptions.map((e) => `${e.method} ${e.template}`);
    for (const method of SCAN_METHODS) {
      for (const plugin of [false, true]) {
        t = await jellyfinService({
          plugin,
          entry: { SCAN_METHOD: method, REFRESH_ITEMS: true },
          setup: (s) => {
            tvLibrary(s.model, '/tv', { series: 3, seasons: 1, episodes: 2 });
            movieLibrary(s.model, '/movies', 3);
            s.model.settle();
            s.model.writeFile(episodeFile('/tv', 1, 1, 3));
            s.model.writeFile(movieFile('/movies', 4));
          },
        });
        await t.webhook('sonarr', sonarrDownload(episodeFile('/tv', 1, 1, 3)));
        await t.webhook('radarr', radarrDownload(movieFile('/movies', 2), true));
        await t.webhook('radarr', radarrDownload(movieFile('/movies', 4)));
        await t.run(15_000);
        const sent = t.server.requests;
        expect(sent.length).toBeGreaterThan(2);
        for (const r of sent) {
          const template = r.path.replace(/^\/Items\/[^/]+\/Refresh$/, '/Items/{itemId}/Refresh');
          if (exceptions.includes(`${r.method} ${template}`)) continue;
          expect(mismatch({ method: r.method, template, query: Object.keys(r.query), from: 'sent' }, ops, true), `${method} ${r.method} ${r.path}`).toBeUndefined();
          expect(jellyfinSent.some((k) => k.method === r.method && mismatch({ ...k, query: Object.keys(r.query) }, [{ ...k, template: k.template.replace(/\{[^}]*\}/g, '{}'), source: 'ours' }], true) === undefined), `${r.method} ${template} is in the exported list`).toBe(true);
        }
        await t.close();
        t = undefined;
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
