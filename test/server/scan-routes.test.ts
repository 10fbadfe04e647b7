import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SECRET, testService, type TestService } from '../support/service.js';
import { LONE_SURROGATE } from '../support/surrogates.js';

let t: TestService;
beforeEach(async () => {
  t = await testService();
});
afterEach(async () => t.close());

const sonarrDownload = (path: string) => ({
  series: { id: 1, title: 'Show', path: '/mnt/unionfs/Media/tv/Show' },
  episodes: [{ id: 1, episodeNumber: 1, seasonNumber: 1 }],
  episodeFile: { id: 1, relativePath: 'Season 01/e1.mkv', path },
  isUpgrade: false,
  eventType: 'Download',
  instanceName: 'Sonarr',
  applicationUrl: '',
});

describe('POST /<SERVER_PASS>: webhooks and manual requests', () => {
  it('a form-encoded Manual request is mapped and queued', async () => {
    const res = await t.service.app.inject({
      method: 'POST',
      url: `/${SECRET}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'eventType=Manual&filepath=' + encodeURIComponent('/mnt/unionfs/Media/movies/Heat (1995)/Heat.mkv'),
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().queued[0]).toMatchObject({ mapped: '/data/media/movies/Heat (1995)/Heat.mkv', folder: '/data/media/movies/Heat (1995)' });
    expect(t.service.queue.get('/data/media/movies/Heat (1995)')).toBeDefined();
  });

  it('accepts JSON with a charset, and PUT', async () => {
    const res = await t.service.app.inject({
      method: 'PUT',
      url: `/${SECRET}`,
      headers: { 'content-type': 'application/json; charset=utf-8', 'user-agent': 'Sonarr/4.0.17.2952 (ubuntu 24.04)' },
      payload: JSON.stringify(sonarrDownload('/mnt/unionfs/Media/tv/Show/Season 01/e1.mkv')),
    });
    expect(res.statusCode).toBe(200);
    expect(t.service.queue.get('/data/media/tv/Show/Season 01')).toMatchObject({ source: 'sonarr', event: 'Download' });
  });

  it('a manual folder that exists is scanned itself; a media file through its parent; missing filepath is 400', async () => {
    const inject = (filepath?: string) =>
      t.service.app.inject({ method: 'POST', url: `/${SECRET}`, payload: { eventType: 'Manual', ...(filepath !== undefined ? { filepath } : {}) } });
    await inject('/mnt/unionfs/Media/tv/Show/Season 02');
    expect(t.service.queue.get('/data/media/tv/Show/Season 02')).toBeDefined();
    await inject('/mnt/unionfs/Media/tv/Show/Season 03/e.mkv');
    expect(t.service.queue.get('/data/media/tv/Show/Season 03')).toBeDefined();
    expect((await inject('')).statusCode).toBe(400);
    expect((await inject()).statusCode).toBe(400);
  });

  it('Test events answer 200 and queue nothing; unknown events answer 200 and queue nothing', async () => {
    for (const eventType of ['Test', 'Grab', 'Health', 'SomethingNew']) {
      const res = await t.service.app.inject({ method: 'POST', url: `/${SECRET}`, payload: { eventType, series: { path: '/x' } } });
      expect(res.statusCode).toBe(200);
    }
    expect(t.service.queue.count()).toBe(0);
  });

  it('an echo of a long event name is cut to 200 characters on a character, in the answer and the log line', async () => {
    const res = await t.service.app.inject({ method: 'POST', url: `/${SECRET}`, payload: { eventType: `${'Q'.repeat(199)}${'😀'.repeat(30)}` } });
    expect(res.statusCode).toBe(200);
    const ignored = res.json<{ ignored: string }>().ignored;
    expect(ignored).not.toMatch(LONE_SURROGATE);
    expect(ignored).toMatch(/^Q{199}… \(\d+ characters\)$/);
    const line = JSON.parse(t.logs.find((l) => l.includes('Nothing to scan for'))!) as { event: string; msg: string };
    expect(`${line.event} ${line.msg}`).not.toMatch(LONE_SURROGATE);
    expect(line.event).toBe(`${'Q'.repeat(199)}… (259 characters)`);
  });

  it('malformed JSON is 400 with the reason, and nothing is queued', async () => {
    const res = await t.service.app.inject({
      method: 'POST',
      url: `/${SECRET}`,
      headers: { 'content-type': 'application/json' },
      payload: '{"eventType": "Download", ',
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toMatch(/malformed JSON/);
    expect(t.service.queue.count()).toBe(0);
  });

  it('a wrong secret is 401 and the URL is not logged', async () => {
    const near = SECRET.slice(0, 30) + 'zz';
    const res = await t.service.app.inject({ method: 'POST', url: `/${near}`, payload: { eventType: 'Test' } });
    expect(res.statusCode).toBe(401);
    expect(t.logs.join('')).not.toContain(near);
    expect(t.logs.join('')).toContain('wrong secret');
  });

  it('SERVER_IGNORE_LIST applies: nothing queued, the answer says why', async () => {
    const res = await t.service.app.inject({ method: 'POST', url: `/${SECRET}`, payload: { eventType: 'Manual', filepath: '/mnt/unionfs/Media/tv/.grab/x.mkv' } });
    expect(res.statusCode).toBe(200);
    expect(res.json().ignoredPaths[0].ignoredBy).toBe('/.grab/');
    expect(res.json().queued).toEqual([]);
    expect(t.service.queue.count()).toBe(0);
  });

  it('each request is logged with client, source, event, path as received and as mapped', async () => {
    await t.service.app.inject({ method: 'POST', url: `/${SECRET}`, payload: { eventType: 'Manual', filepath: '/mnt/unionfs/Media/tv/S/e.mkv' } });
    const line = t.logs.map((l) => JSON.parse(l)).find((l) => l.folder === '/data/media/tv/S');
    expect(line).toMatchObject({ client: '127.0.0.1', source: 'manual', event: 'Manual', path: '/mnt/unionfs/Media/tv/S/e.mkv', mapped: '/data/media/tv/S/e.mkv' });
  });
});

describe('GET /<SERVER_PASS>: the manual scan page', () => {
  it('serves a page with one path input that posts a Manual request', async () => {
    const res = await t.service.app.inject({ method: 'GET', url: `/${SECRET}` });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('text/html');
    expect(res.body).toContain('name="filepath"');
    expect(res.body).toContain('name="eventType" value="Manual"');
    expect(res.body).toContain('method="post"');
  });

  it('the form POST shows the outcome: the path as mapped', async () => {
    const res = await t.service.app.inject({
      method: 'POST',
      url: `/${SECRET}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html' },
      payload: 'eventType=Manual&filepath=' + encodeURIComponent('/mnt/unionfs/Media/movies/A <b>/a.mkv'),
    });
    expect(res.body).toContain('Mapped to: /data/media/movies/A &lt;b&gt;/a.mkv');
  });

  it('with SERVER_ALLOW_MANUAL_SCAN false: the page is 403 and manual POSTs are refused', async () => {
    await t.close();
    t = await testService({ config: { SERVER_ALLOW_MANUAL_SCAN: false } });
    expect((await t.service.app.inject({ method: 'GET', url: `/${SECRET}` })).statusCode).toBe(403);
    const post = await t.service.app.inject({ method: 'POST', url: `/${SECRET}`, payload: { eventType: 'Manual', filepath: '/x/y.mkv' } });
    expect(post.statusCode).toBe(403);
    expect(t.service.queue.count()).toBe(0);
  });
});

describe('/api/<SERVER_PASS>?cmd=queue_count (as plex_autoscan answered it) and /health', () => {
  it('cmd=queue_count by GET query, POST form and POST JSON', async () => {
    await t.service.app.inject({ method: 'POST', url: `/${SECRET}`, payload: { eventType: 'Manual', filepath: '/data/media/tv/a/b.mkv' } });
    expect((await t.service.app.inject({ method: 'GET', url: `/api/${SECRET}?cmd=queue_count` })).json()).toEqual({ queue_count: 1 });
    expect((await t.service.app.inject({ method: 'POST', url: `/api/${SECRET}`, payload: { cmd: 'QUEUE_COUNT' } })).json()).toEqual({ queue_count: 1 });
    const form = await t.service.app.inject({ method: 'POST', url: `/api/${SECRET}`, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: 'cmd=queue_count' });
    expect(form.json()).toEqual({ queue_count: 1 });
    expect((await t.service.app.inject({ method: 'GET', url: `/api/${SECRET}` })).json()).toEqual({ error: 'No cmd parameter was supplied' });
    expect((await t.service.app.inject({ method: 'GET', url: `/api/${SECRET}?cmd=nope` })).json()).toEqual({ error: 'Unknown cmd: nope' });
    expect((await t.service.app.inject({ method: 'GET', url: `/api/wrong?cmd=queue_count` })).statusCode).toBe(401);
  });

  it('/health needs no secret and reports the queue and each target', async () => {
    const res = await t.service.app.inject({ method: 'GET', url: '/health' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ status: 'ok', queue: { folders: 0 }, targets: [{ name: 'plex', up: true }] });
  });
});
