// A request whose folder is a library's own, end to end through the service: a webhook's is refused (history says
// why and what to do, /metrics counts it, Plex gets nothing); the manual page's box and the API's libraryRoot ask for
// the whole-library scan, and that ask survives the queue, a merge with a webhook included.
import { afterEach, describe, expect, it } from 'vitest';
import { SECRET, testService, type TestService } from '../support/service.js';

let t: TestService;
afterEach(async () => t.close());

const post = (payload: unknown, headers: Record<string, string> = {}) => t.service.app.inject({ method: 'POST', url: `/${SECRET}`, payload: payload as string, headers });
const form = (fields: string) => post(fields, { 'content-type': 'application/x-www-form-urlencoded' });
/** Sonarr's SeriesDelete of a path cut short to the library's own folder. */
const seriesDelete = { eventType: 'SeriesDelete', series: { id: 1, title: 'Show', path: '/mnt/unionfs/Media/tv' }, instanceName: 'Sonarr' };

async function deliver(): Promise<void> {
  t.clock.advance(200_000);
  await t.service.processor.drain();
}

describe('the library-root guard through the service', () => {
  it('a webhook for a library root is refused with advice, counted in /metrics, and nothing reaches Plex', async () => {
    t = await testService();
    expect((await post(seriesDelete, { 'user-agent': 'Sonarr/4.0.17.2952' })).statusCode).toBe(200);
    await deliver();
    expect(t.plex.refreshes).toEqual([]);
    const [line] = t.service.queue.history(1);
    expect(line).toMatchObject({ folder: '/data/media/tv', target: 'plex', outcome: 'refused', source: 'sonarr', event: 'SeriesDelete' });
    expect(line.detail).toContain("'/data/media/tv' is the root of library 'TV Shows (section 2)' on plex");
    expect(line.detail).toContain('a whole-library scan is only done when asked for from the manual page, the API or `npx scanrelay scan --library-root`');
    expect(line.detail).toContain("Try: npx scanrelay explain '/mnt/unionfs/Media/tv'.");
    expect(t.logs.filter((l) => l.includes("Refused to scan '/data/media/tv' on plex"))).toHaveLength(1);

    const metrics = (await t.service.app.inject({ url: '/metrics' })).body.split('\n');
    const refused = metrics.filter((l) => l.startsWith('scanrelay_scans_total{') && l.includes('outcome="refused"'));
    expect(refused).toHaveLength(1);
    expect(refused[0]).toContain('target="plex"');
    expect(refused[0]).toMatch(/ 1$/);

    const history = (await t.service.app.inject({ url: `/api/${SECRET}/history` })).json().history;
    expect(history[0]).toMatchObject({ outcome: 'refused', target: 'plex' });
    const page = (await t.service.app.inject({ url: `/${SECRET}/dashboard` })).body;
    expect(page).toMatch(/<span class="badge b-warn" title="a library&#39;s own folder[^"]*">refused<\/span>/);
  });

  it("the manual page's box asks for the whole library; without it the page's request is refused like a webhook's", async () => {
    t = await testService();
    const page = (await t.service.app.inject({ url: `/${SECRET}` })).body;
    expect(page).toContain('<input type="checkbox" name="libraryRoot" value="true">');
    await form(`eventType=Manual&filepath=${encodeURIComponent('/mnt/unionfs/Media/tv/')}`);
    await deliver();
    expect(t.service.queue.history(1)[0]).toMatchObject({ outcome: 'refused' });
    expect(t.plex.refreshes).toEqual([]);

    expect((await form(`eventType=Manual&libraryRoot=true&filepath=${encodeURIComponent('/mnt/unionfs/Media/tv/')}`)).statusCode).toBe(200);
    await deliver();
    expect(t.service.queue.history(1)[0]).toMatchObject({ outcome: 'scanned' });
    expect(t.plex.refreshes).toEqual([{ section: '2', path: '/data/media/tv' }]);
    expect((await form('eventType=Manual&libraryRoot=maybe&filepath=/mnt/unionfs/Media/tv')).json().error).toMatch(/libraryRoot must be true or false/);
  });

  it('the API takes "libraryRoot": true; the ask is kept when a webhook for the same folder merges into it', async () => {
    t = await testService();
    const api = (body: unknown) => t.service.app.inject({ method: 'POST', url: `/api/${SECRET}/scan`, payload: body as string });
    expect((await api({ path: '/mnt/unionfs/Media/tv', libraryRoot: true })).statusCode).toBe(200);
    expect(t.service.queue.get('/data/media/tv')).toMatchObject({ libraryRoot: true });
    await post(seriesDelete);
    expect(t.service.queue.get('/data/media/tv')).toMatchObject({ libraryRoot: true, requests: 2 });
    await deliver();
    expect(t.plex.refreshes).toEqual([{ section: '2', path: '/data/media/tv' }]);

    await api({ path: '/mnt/unionfs/Media/tv' });
    expect(t.service.queue.get('/data/media/tv')!.libraryRoot).toBeUndefined();
    await deliver();
    expect(t.service.queue.history(1)[0]).toMatchObject({ outcome: 'refused' });
    expect((await api({ path: '/x', libraryRoot: 'yes' })).statusCode).toBe(400);
    const doc = (await t.service.app.inject({ url: `/api/${SECRET}/openapi.json` })).json();
    const body = doc.paths['/api/{secret}/scan'].post.requestBody.content['application/json'].schema;
    expect(body.properties.libraryRoot).toMatchObject({ type: 'boolean' });
  });
});
