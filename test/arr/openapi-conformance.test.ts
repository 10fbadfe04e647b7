// Every request scanrelay sends an arr app is an operation of that app's own OpenAPI document (Sonarr's
// src/Sonarr.Api.V3/openapi.json and the same in Radarr, Lidarr, Readarr, Whisparr v2 and v3; trimmed copies in
// test/fixtures/arr-api with their commits): the list the client exports, and every request a catch-up and a
// `connect` really sent the fake app. The names it relies on are the document's too: the history event enum, the
// record's fields, the Connect entry's event flags, and the key in the X-Api-Key header.
import { afterEach, describe, expect, it } from 'vitest';
import { eventsRead, arrApp } from '../../src/arr/apps.js';
import { arrClient, arrRequests } from '../../src/arr/client.js';
import { connectWebhook } from '../../src/arr/webhook-entry.js';
import { ManualClock } from '../../src/clock.js';
import { ARR_DOCUMENTS, arrDocument, arrOperations, asOperation } from '../support/arr-operations.js';
import { mismatch } from '../support/sdk-operations.js';
import { arrHarness, type ArrHarness } from './harness.js';

const TYPES = ARR_DOCUMENTS;

let h: ArrHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe.each(TYPES)('%s', (doc, type, version) => {
  const arr = arrApp(type, version);
  const ops = arrOperations(doc);
  const schemas = arrDocument(doc).components.schemas;
  // The series or movie lookup and the library list are the app's own; the other kinds' routes are not called.
  const lists = ['/series', '/movie', '/artist', '/author'];
  const sent = arrRequests.filter(
    (r) => (!['/series/{id}', '/movie/{id}'].includes(r.template) || r.template === `${arr.ownerPath}/{id}`) && (!lists.includes(r.template) || r.template === arr.library),
  );

  it.each(sent.map((r) => [`${r.method} ${r.template}`, r] as const))('%s is an operation of its document', (_, r) => {
    expect(mismatch({ method: r.method, template: arr.api + r.template, query: [...r.query], from: 'src/arr/client.ts' }, ops, true)).toBeUndefined();
  });

  it('the check refuses a route, method or query name the document lacks', () => {
    expect(mismatch({ method: 'GET', template: `${arr.api}/history/since`, query: ['pageSize'], from: '' }, ops, true)).toMatch(/takes no pageSize/);
    expect(mismatch({ method: 'DELETE', template: `${arr.api}/rootfolder`, query: [], from: '' }, ops, true)).toMatch(/not DELETE/);
    expect(mismatch({ method: 'GET', template: '/api/v2/history/since', query: [], from: '' }, ops, true)).toMatch(/no operation/);
  });

  it('the history events read, the record fields read and the Connect flags set are names of its document', () => {
    const enumName = Object.keys(schemas).find((k) => k.endsWith('HistoryEventType'))!;
    expect(schemas[enumName].enum).toEqual(expect.arrayContaining(eventsRead(arr)));
    const record = Object.keys(schemas.HistoryResource.properties!);
    expect(record).toEqual(expect.arrayContaining(['id', 'date', 'eventType', 'sourceTitle', 'downloadId', 'data', arr.item, arr.owner]));
    const entry = Object.keys(schemas.NotificationResource.properties!);
    const supports = arr.connect.map((f) => `supports${f[0].toUpperCase()}${f.slice(1)}`);
    expect(entry).toEqual(expect.arrayContaining([...arr.connect, ...supports, 'name', 'implementation', 'fields']));
    expect(Object.keys(schemas.SystemResource.properties!)).toEqual(expect.arrayContaining(['appName', 'version']));
    expect(Object.keys(schemas.RootFolderResource.properties!)).toContain('path');
    // The library list's items carry their folder in `path` (SeriesResource, MovieResource, ArtistResource, AuthorResource).
    const resource = { '/series': 'SeriesResource', '/movie': 'MovieResource', '/artist': 'ArtistResource', '/author': 'AuthorResource' }[arr.library];
    expect(Object.keys(schemas[resource].properties!)).toContain('path');
    expect(arrDocument(doc).components.securitySchemes?.['X-Api-Key']).toEqual(expect.objectContaining({ name: 'X-Api-Key', in: 'header' }));
  });

  it('every request a catch-up and a connect sent the app is an operation of its document, with the key in X-Api-Key', async () => {
    h = await arrHarness([doc]);
    const [app] = h.apps;
    app.rootFolders = ['/tv', '/movies'];
    await h.arr.catchUp();
    const withOwner = { seriesId: 5, movieId: 5, artistId: 5, authorId: 5, episodeId: 6, trackId: 6, bookId: 6, sourceTitle: 'x' };
    app.owners.set(5, { id: 5, title: 'Owner', tvdbId: 1, tmdbId: 2, imdbId: 'tt3' });
    app.write({ ...withOwner, eventType: arr.imports[0], downloadId: 'd1', data: { importedPath: '/tv/Owner/Season 01/a.mkv' }, id: 1 }, h.clock.now());
    h.clock.advance(1_000);
    await h.arr.catchUp();
    expect(h.service.queue.count()).toBe(1);
    const client = arrClient({ NAME: doc, TYPE: type, URL: app.url, API_KEY: app.apiKey, CATCH_UP_INTERVAL: 300, RECONCILE_INTERVAL: 0 }, { clock: new ManualClock() });
    await connectWebhook(client, arr, 'http://relay.example:3468', 'http://relay.example:3468/pass', false);
    await h.arr.roots(async (path) => ({ folder: path, verdict: 'unknown', summary: '', wouldScan: [], suggestion: null }) as never);
    const seen = new Set(app.requests.map((r) => `${r.method} ${r.path.replace(/\/\d+$/, '/{id}')}`));
    expect(seen).toEqual(new Set([...sent.map((r) => `${r.method} ${arr.api}${r.template}`)].filter((s) => !s.startsWith('PUT'))));
    for (const r of app.requests) {
      expect(mismatch(asOperation(r, 'sent'), ops, true), `${r.method} ${r.path}`).toBeUndefined();
      expect(r.headers['x-api-key']).toBe(app.apiKey);
    }
  });
});
