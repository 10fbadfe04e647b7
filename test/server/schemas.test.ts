// The zod types of src/server/schemas.ts are the routes' one source: the schema a route is served with is
// generated from them, and what the route answers and accepts is exactly what they describe.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { actionResult, historyReply, jsonSchema, queuedFolder, queueReply, receivedReply, scanBody, scanReply, targetsReply } from '../../src/server/schemas.js';
import { historyView, queueView } from '../../src/server/views.js';
import { SECRET, testService, type TestService } from '../support/service.js';

let t: TestService;
beforeEach(async () => {
  t = await testService();
});
afterEach(async () => t.close());

const api = (path: string) => `/api/${SECRET}${path}`;
const post = (path: string, body: unknown) =>
  t.service.app.inject({ method: 'POST', url: api(path), headers: { 'content-type': 'application/json' }, payload: JSON.stringify(body) });
const get = async (path: string) => (await t.service.app.inject({ url: api(path) })).json();

describe('control API schemas generated from zod', () => {
  it('the OpenAPI document describes POST /scan with exactly the schema generated from scanBody', async () => {
    const doc = await get('/openapi.json');
    expect(doc.paths['/api/{secret}/scan'].post.requestBody.content['application/json'].schema).toEqual(jsonSchema(scanBody(), 'input'));
    const queue = doc.paths['/api/{secret}/queue'].get.responses['200'].content['application/json'].schema;
    expect(Object.keys(queue.properties.folders.items.properties).sort()).toEqual(Object.keys(queuedFolder().shape).sort());
  });

  it('GET queue answers every field of the view, nothing dropped or added by the serializer, as queueReply describes', async () => {
    // A failing refresh leaves the folder queued with a delivery that carries an error: every field is filled.
    t.plex.failRoute('GET', /\/refresh/, 500, 1);
    await post('/scan', { path: '/mnt/unionfs/Media/movies/Heat (1995)/Heat.mkv' });
    await post('/queue/scan-now', { folder: '/data/media/movies/Heat (1995)' });
    await t.service.processor.drain();
    const body = await get('/queue');
    expect(body.folders[0].deliveries).toHaveLength(1);
    expect(body.folders[0].deliveries[0].lastError).toEqual(expect.any(String));
    expect(body).toEqual({ count: 1, folders: JSON.parse(JSON.stringify(queueView({ queue: t.service.queue, clock: t.clock }))) });
    // zod drops unknown keys while parsing: equal after parsing means the answer holds no field the type lacks.
    expect(queueReply().parse(body)).toEqual(body);
  });

  it('GET history and GET targets answer what historyReply and targetsReply describe', async () => {
    await post('/scan', { path: '/mnt/unionfs/Media/movies/Heat (1995)/Heat.mkv' });
    await post('/queue/scan-now', { folder: '/data/media/movies/Heat (1995)' });
    await t.service.processor.drain();
    const history = await get('/history');
    expect(history.history).toHaveLength(1);
    expect(history).toEqual({ history: historyView({ queue: t.service.queue }) });
    expect(historyReply().parse(history)).toEqual(history);
    const targets = await get('/targets');
    expect(targetsReply().parse(targets)).toEqual(targets);
  });

  it('POST /scan accepts and refuses what scanBody accepts and refuses, and answers a scanReply', async () => {
    const bodies: unknown[] = [
      { path: '/mnt/unionfs/Media/tv/Show/Season 01/e1.mkv' },
      { path: '/mnt/unionfs/Media/tv/Show/Season 01/e2.mkv', refresh: 'item' },
      { path: '/mnt/unionfs/Media/tv/Show/Season 01/e3.mkv', extra: 'kept out of the way, as before' },
      { path: '' },
      { path: '/mnt/unionfs/Media/tv/Show/Season 01/e4.mkv', refresh: 'all' },
      { refresh: 'item' },
      { path: 42 },
    ];
    for (const body of bodies) {
      const res = await post('/scan', body);
      expect({ body, status: res.statusCode }).toEqual({ body, status: scanBody().safeParse(body).success ? 200 : 400 });
      if (res.statusCode === 200) expect(scanReply().parse(res.json())).toEqual(res.json());
    }
  });

  it('Scan now, Retry and Drop answer either branch of actionResult whole: 200 with what was done, 404 with why not', async () => {
    await post('/scan', { path: '/mnt/unionfs/Media/movies/Heat (1995)/Heat.mkv' });
    const done = await post('/queue/scan-now', { folder: '/data/media/movies/Heat (1995)' });
    expect(done.json()).toEqual({ ok: true, folder: '/data/media/movies/Heat (1995)', done: 'Scanning now' });
    const missing = await post('/queue/drop', { folder: '/nope' });
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toEqual({ ok: false, folder: '/nope', error: "'/nope' is not in the queue" });
    for (const res of [done, missing]) expect(actionResult().parse(res.json())).toEqual(res.json());
  });

  it('a webhook or manual request is answered with what receivedReply describes, nothing dropped', async () => {
    const res = await t.service.app.inject({
      method: 'POST',
      url: `/${SECRET}`,
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ eventType: 'Manual', filepath: '/mnt/unionfs/Media/tv/Show/Season 01/e1.mkv' }),
    });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toEqual({
      ok: true,
      queued: [{ path: '/mnt/unionfs/Media/tv/Show/Season 01/e1.mkv', mapped: '/data/media/tv/Show/Season 01/e1.mkv', folder: '/data/media/tv/Show/Season 01', merged: false }],
    });
    expect(receivedReply().parse(body)).toEqual(body);
  });
});
