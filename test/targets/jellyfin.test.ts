// Jellyfin target against a fake Jellyfin on loopback: what it sends, how it decides a folder is in a
// library, and how each failure maps to the queue's retry rules.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { jellyfinTarget } from '../../src/targets/jellyfin.js';
import type { ScanContext } from '../../src/scan.js';
import type { Capabilities } from '../../src/targets/kind.js';
import { startFakeJellyfin, type FakeMediaBrowser } from '../fakes/jellyfin.js';
import { ownFixture } from '../support/fixtures.js';

const TOKEN = 'jellyfin-token-1234';
const ctx: ScanContext = { event: 'Download', source: 'sonarr', deleted: false };

let server: FakeMediaBrowser;
let clock: ManualClock;
let target: Capabilities;

beforeEach(async () => {
  server = await startFakeJellyfin({ token: TOKEN });
  clock = new ManualClock();
  target = jellyfinTarget({ scanMethod: 'media-updated', name: 'jellyfin', url: server.url + '/', token: TOKEN, clock, timeoutMs: 2_000 });
});
afterEach(() => server.close());

const posts = () => server.requests.filter((r) => r.method === 'POST');
const libraryLoads = () => server.requests.filter((r) => r.path === '/Library/VirtualFolders').length;

describe('jellyfin target', () => {
  it('posts the folder to /Library/Media/Updated with the MediaBrowser Authorization header', async () => {
    const outcome = await target.scan('/data/media/tv/The Expanse (2015)/Season 01/', ctx);
    expect(outcome).toEqual({ status: 'scanned', detail: 'Shows', sections: ['8d2f6a4c1e7b49d3a5c0e9f2b6d1a8c4'] });
    expect(posts()).toHaveLength(1);
    const [post] = posts();
    expect(post.path).toBe('/Library/Media/Updated');
    expect(post.body).toEqual({ Updates: [{ Path: '/data/media/tv/The Expanse (2015)/Season 01', UpdateType: 'Modified' }] });
    expect(post.headers.authorization).toBe(`MediaBrowser Token="${TOKEN}"`);
    expect(post.headers['x-emby-token']).toBeUndefined();
    expect(post.headers['content-type']).toBe('application/json');
  });

  it('sends Deleted for a deleted path and matches a library second location', async () => {
    await target.scan('/mnt/archive/tv/Firefly', { ...ctx, deleted: true });
    expect(server.updates()).toEqual([{ Path: '/mnt/archive/tv/Firefly', UpdateType: 'Deleted' }]);
  });

  it('is unmatched, listing the known locations, when no library holds the folder (path boundary)', async () => {
    const outcome = await target.scan('/data/media/movies4k/Dune', ctx);
    expect(outcome.status).toBe('unmatched');
    expect(outcome.status === 'unmatched' && outcome.detail).toBe(
      "'/data/media/movies4k/Dune' is in no library of jellyfin 'jellyfin' (known locations: /data/media/movies, /data/media/tv, /mnt/archive/tv)",
    );
    expect(posts()).toHaveLength(0);
  });

  it('caches the libraries, refreshes after five minutes, and on a miss (at most every 30 s)', async () => {
    await target.scan('/data/media/movies/A', ctx);
    await target.scan('/data/media/movies/B', ctx);
    expect(libraryLoads()).toBe(1);

    // A library added on the server: the first miss within 30 s of loading does not refetch...
    const libs = ownFixture<{ Name: string; Locations: string[] }[]>('jellyfin/library-virtualfolders.json');
    server.setLibraries([...libs, { Name: 'Music', Locations: ['/data/media/music'] }]);
    expect((await target.scan('/data/media/music/Abba', ctx)).status).toBe('unmatched');
    expect(libraryLoads()).toBe(1);
    // ...a miss after that does, and finds it.
    clock.advance(61_000);
    expect(await target.scan('/data/media/music/Abba', ctx)).toMatchObject({ status: 'scanned', detail: 'Music' });
    expect(libraryLoads()).toBe(2);

    clock.advance(10 * 60_000);
    await target.scan('/data/media/movies/C', ctx);
    expect(libraryLoads()).toBe(3);
  });

  it('retries with the token refused (the processor probes) and "check TOKEN" on 401, never showing the token', async () => {
    const wrong = jellyfinTarget({ scanMethod: 'media-updated', name: 'jf-4k', url: server.url, token: 'wrong-token-9999', clock });
    const outcome = await wrong.scan('/data/media/movies/A', ctx);
    expect(outcome).toMatchObject({ status: 'retry', targetDown: false, tokenRefused: true });
    const error = outcome.status === 'retry' ? outcome.error : '';
    expect(error).toContain("jellyfin 'jf-4k'");
    expect(error).toContain('HTTP 401');
    expect(error).toContain('check TOKEN');
    expect(error).not.toContain('wrong-token-9999');
  });

  it('hints at the Base URL on a 404, never at Emby\'s /emby prefix', async () => {
    const wrongBase = jellyfinTarget({ scanMethod: 'media-updated', name: 'jellyfin', url: server.url + '/nothing-here', token: TOKEN, clock });
    const outcome = await wrongBase.scan('/data/media/movies/A', ctx);
    expect(outcome).toMatchObject({ status: 'retry', targetDown: false });
    const error = outcome.status === 'retry' ? outcome.error : '';
    expect(error).toContain('404');
    expect(error).toContain('Base URL');
    expect(error).not.toContain('Emby');
  });

  it('explains a 403 on the library list (needs an admin key)', async () => {
    server.fail(403, { path: '/Library/VirtualFolders' });
    const outcome = await target.scan('/data/media/movies/A', ctx);
    expect(outcome).toMatchObject({ status: 'retry', targetDown: false, tokenRefused: true });
    expect(outcome.status === 'retry' && outcome.error).toMatch(/HTTP 403 .*check TOKEN \(listing libraries needs an admin API key\)/);
  });

  it.each([
    // Only silence takes a server down; an answer, even a 5xx, concerns the one folder.
    [500, false],
    [503, false],
    [404, false],
    [400, false],
  ])('maps HTTP %i on the scan to retry with targetDown=%s', async (status, down) => {
    await target.scan('/data/media/movies/A', ctx); // libraries cached
    server.fail(status, { path: '/Library/Media/Updated' });
    const outcome = await target.scan('/data/media/movies/B', ctx);
    expect(outcome).toMatchObject({ status: 'retry', targetDown: down });
    expect(outcome.status === 'retry' && outcome.error).toContain(`answered ${status} `);
  });

  it('is down when the connection drops or the server is too slow', async () => {
    server.fail('down');
    const dropped = await target.scan('/data/media/movies/A', ctx);
    expect(dropped).toMatchObject({ status: 'retry', targetDown: true });
    expect(dropped.status === 'retry' && dropped.error).toMatch(/^jellyfin 'jellyfin' at http:\/\/127\.0\.0\.1:\d+ did not answer /);

    const impatient = jellyfinTarget({ scanMethod: 'media-updated', name: 'jellyfin', url: server.url, token: TOKEN, timeoutMs: 100 });
    server.fail('slow');
    const slow = await impatient.scan('/data/media/movies/A', ctx);
    expect(slow).toMatchObject({ status: 'retry', targetDown: true });
    expect(slow.status === 'retry' && slow.error).toContain('no answer within 100 ms');
  });

  it('is unreachable when nothing listens', async () => {
    const url = server.url;
    await server.close();
    server = await startFakeJellyfin(); // afterEach closes this one
    const gone = jellyfinTarget({ scanMethod: 'media-updated', name: 'jellyfin', url, token: TOKEN });
    expect(await gone.scan('/data/media/movies/A', ctx)).toMatchObject({ status: 'retry', targetDown: true });
    expect(await gone.available()).toMatchObject({ ok: false, error: expect.stringContaining('ECONNREFUSED') });
  });

  it('probes /System/Info/Public without the token, then the library list with it, for available()', async () => {
    const before = server.requests.length;
    expect(await target.available()).toEqual({ ok: true });
    const [probe, libraries] = server.requests.slice(before);
    expect(probe.path).toBe('/System/Info/Public');
    expect(probe.headers.authorization).toBeUndefined();
    expect(libraries.path).toBe('/Library/VirtualFolders');
    expect(libraries.headers.authorization).toBeDefined();
    // A wrong key is found by the probe, not only by the next scan.
    const wrong = jellyfinTarget({ scanMethod: 'media-updated', name: 'jf', url: server.url, token: 'not-the-key', clock: new ManualClock() });
    expect(await wrong.available()).toMatchObject({ ok: false, error: expect.stringMatching(/refused the token \(HTTP 401/) });
    server.fail(502);
    expect(await target.available()).toMatchObject({ ok: false, error: expect.stringContaining('answered 502') });
  });

});
