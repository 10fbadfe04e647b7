// The JSON API under /api/<SERVER_PASS>/: reading the queue, history, targets and drive; scan, retry, drop; OpenAPI.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SECRET, testService, type TestService } from '../support/service.js';

let t: TestService;
beforeEach(async () => {
  t = await testService();
});
afterEach(async () => t.close());

const api = (path: string) => `/api/${SECRET}${path}`;
const post = (path: string, body: unknown) =>
  t.service.app.inject({ method: 'POST', url: api(path), headers: { 'content-type': 'application/json' }, payload: JSON.stringify(body) });

describe('control API', () => {
  it('POST scan queues a path through the mappings and GET queue shows it with its details', async () => {
    const res = await post('/scan', { path: '/mnt/unionfs/Media/tv/Show/Season 01/e1.mkv' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ ok: true, mapped: '/data/media/tv/Show/Season 01/e1.mkv', folder: '/data/media/tv/Show/Season 01' });
    await post('/scan', { path: '/mnt/unionfs/Media/tv/Show/Season 01/e2.mkv' });

    const queue = (await t.service.app.inject({ url: api('/queue') })).json();
    expect(queue.count).toBe(1);
    expect(queue.folders[0]).toMatchObject({
      folder: '/data/media/tv/Show/Season 01',
      requests: 2,
      source: 'api',
      event: 'Manual',
      priority: 1, // SERVER_SCAN_PRIORITIES' default puts /TV/ at 1
      state: 'waiting',
      dueInMs: 180_000,
      deliveries: [],
    });
  });

  it('an ignored path is reported, not queued', async () => {
    const res = await post('/scan', { path: '/mnt/unionfs/Media/.grab/x.mkv' });
    expect(res.json()).toMatchObject({ ok: true, folder: null, ignoredBy: '/.grab/' });
    expect(t.service.queue.count()).toBe(0);
  });

  it('scan-now makes a folder go to Plex at once; history then shows asked -> scanned', async () => {
    await post('/scan', { path: '/mnt/unionfs/Media/movies/Heat (1995)/Heat.mkv' });
    const res = await post('/queue/scan-now', { folder: '/data/media/movies/Heat (1995)' });
    expect(res.json()).toMatchObject({ ok: true, done: 'Scanning now' });
    await t.service.processor.drain();
    expect(t.plex.refreshes).toEqual([{ section: '1', path: '/data/media/movies/Heat (1995)' }]);
    const history = (await t.service.app.inject({ url: api('/history') })).json().history;
    expect(history[0]).toMatchObject({ folder: '/data/media/movies/Heat (1995)', target: 'plex', outcome: 'scanned', source: 'api' });
    expect(typeof history[0].askedAt).toBe('number');
  });

  it('drop removes a folder (recorded in history); retry queues it again', async () => {
    await post('/scan', { path: '/mnt/unionfs/Media/movies/Heat (1995)/Heat.mkv' });
    const folder = '/data/media/movies/Heat (1995)';
    expect((await post('/queue/drop', { folder })).json()).toMatchObject({ ok: true, done: 'Dropped' });
    expect(t.service.queue.count()).toBe(0);
    const history = (await t.service.app.inject({ url: api('/history') })).json().history;
    expect(history[0]).toMatchObject({ folder, outcome: 'dropped', detail: 'dropped by the API' });

    expect((await post('/queue/retry', { folder })).json()).toMatchObject({ ok: true, done: 'Queued again' });
    expect(t.service.queue.get(folder)).toMatchObject({ event: 'Retry' });
    await t.service.processor.drain();
    expect(t.plex.refreshes).toHaveLength(1);
  });

  it('actions on an unknown folder answer 404; a missing body field answers 400', async () => {
    expect((await post('/queue/drop', { folder: '/nope' })).statusCode).toBe(404);
    expect((await post('/queue/retry', { folder: '/nope' })).statusCode).toBe(404);
    expect((await post('/queue/scan-now', {})).statusCode).toBe(400);
  });

  it('targets shows each media server with its health; drive shows the monitor\'s status block', async () => {
    const targets = (await t.service.app.inject({ url: api('/targets') })).json();
    expect(targets).toMatchObject({ held: null, targets: [{ name: 'plex', kind: 'plex', up: true, scanned: 0 }] });
    const status = (await t.service.app.inject({ url: '/health' })).json();
    expect((await t.service.app.inject({ url: api('/drive') })).json()).toEqual({ drive: status.drive ?? null });
  });

  it('explain answers through the path doctor', async () => {
    const res = await t.service.app.inject({ url: api('/explain?path=' + encodeURIComponent('/mnt/unionfs/Media/tv/Show/S01/e.mkv')) });
    expect(res.json()).toMatchObject({ verdict: 'scan', folder: '/data/media/tv/Show/S01', wouldScan: [{ target: 'plex', path: '/data/media/tv/Show/S01' }] });
  });

  it('a wrong secret gets 401 on every route, and the secret is never logged', async () => {
    for (const url of ['/api/wrong/queue', '/api/wrong/history', '/api/wrong/held', '/api/wrong/targets', '/api/wrong/drive', '/api/wrong/openapi.json']) {
      expect((await t.service.app.inject({ url })).statusCode).toBe(401);
    }
    expect((await t.service.app.inject({ method: 'POST', url: '/api/wrong/queue/drop', payload: { folder: '/x' } })).statusCode).toBe(401);
    await t.service.app.inject({ url: api('/queue') });
    expect(t.logs.join('')).not.toContain(SECRET);
  });

  it("plex_autoscan's cmd=queue_count still answers exactly as before", async () => {
    await post('/scan', { path: '/mnt/unionfs/Media/tv/Show/Season 01/e1.mkv' });
    const get = await t.service.app.inject({ url: api('?cmd=queue_count') });
    expect(get.json()).toEqual({ queue_count: 1 });
    const viaPost = await t.service.app.inject({ method: 'POST', url: api(''), headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: 'cmd=queue_count' });
    expect(viaPost.json()).toEqual({ queue_count: 1 });
    expect((await t.service.app.inject({ url: api('') })).json()).toEqual({ error: 'No cmd parameter was supplied' });
  });

  it('serves an OpenAPI document for the API, without the secret in it', async () => {
    const res = await t.service.app.inject({ url: api('/openapi.json') });
    expect(res.statusCode).toBe(200);
    const doc = res.json();
    expect(doc.openapi).toMatch(/^3\./);
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining([
        '/api/{secret}/queue',
        '/api/{secret}/history',
        '/api/{secret}/held',
        '/api/{secret}/targets',
        '/api/{secret}/drive',
        '/api/{secret}/scan',
        '/api/{secret}/queue/scan-now',
        '/api/{secret}/queue/retry',
        '/api/{secret}/queue/drop',
        '/api/{secret}/explain',
      ]),
    );
    expect(doc.paths['/api/{secret}/queue/drop'].post.requestBody.content['application/json'].schema.required).toEqual(['folder']);
    expect(res.body).not.toContain(SECRET);
    // Webhooks and pages are not part of this document.
    expect(Object.keys(doc.paths).every((p) => p.startsWith('/api/{secret}/'))).toBe(true);
  });
});

describe('drive status', () => {
  it('shows what the status dep returns under drive', async () => {
    const { buildApp } = await import('../../src/server/app.js');
    const app = await buildApp({
      secret: SECRET,
      allowManualScan: true,
      queue: t.service.queue,
      intake: t.service.intake,
      logger: (await import('../../src/log/logger.js')).silentLogger,
      status: () => ({ drive: { state: 'polling', lastPollAt: 1 } }),
    });
    expect((await app.inject({ url: api('/drive') })).json()).toEqual({ drive: { state: 'polling', lastPollAt: 1 } });
    await app.close();
  });
});
