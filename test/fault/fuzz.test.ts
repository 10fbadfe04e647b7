// Property-based fuzzing of the webhook, manual and API routes through app.inject: random JSON shapes, deep
// nesting, huge strings, wrong content types, invalid UTF-8, missing fields. Never a 5xx, never a crash, and the
// queue holds only well-formed, mapped paths. Then 10,000 webhook bodies and paths against the path gate: nothing
// queued outside a mapped prefix, no metric label outside the closed sets.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isInside } from '../../src/paths/folder.js';
import { MAX_PATH_BYTES } from '../../src/paths/gate.js';
import { eventsBySource } from '../../src/triggers/events.js';
import { leakedSecrets } from '../support/log-audit.js';
import { SECRET, serviceLogs, testService, type TestService } from '../support/service.js';

let t: TestService;
beforeAll(async () => {
  t = await testService({ config: { SERVER_SCAN_DELAY: 3600 } as never });
});
afterAll(async () => {
  await t.close();
  expect(leakedSecrets(serviceLogs())).toEqual([]);
});

const RUNS = 120;
// Sources of SERVER_PATH_MAPPINGS in testService: a queued folder must never still start with one.
const UNMAPPED = ['/mnt/unionfs/Media/', 'My Drive/Media/', 'D:\\Media\\'];

function queueIsWellFormed(): void {
  for (const row of t.service.queue.list(100_000)) {
    expect(typeof row.folder).toBe('string');
    expect(row.folder.trim()).not.toBe('');
    for (const source of UNMAPPED) expect(row.folder.startsWith(source)).toBe(false);
    if (row.folder.length > 1) expect(/[\\/]$/.test(row.folder), JSON.stringify(row.folder)).toBe(false);
    expect(row.folder.includes('\0')).toBe(false);
  }
}

async function send(opts: { method?: 'POST' | 'PUT' | 'GET'; url?: string; contentType?: string; payload?: string | Buffer }) {
  const headers: Record<string, string> = {};
  if (opts.contentType !== undefined) headers['content-type'] = opts.contentType;
  const res = await t.service.app.inject({ method: opts.method ?? 'POST', url: opts.url ?? `/${SECRET}`, headers, payload: opts.payload });
  expect(res.statusCode, `${res.statusCode} ${res.body.slice(0, 200)}`).toBeLessThan(500);
  return res;
}

const pathLike = fc.oneof(
  fc.string({ maxLength: 60 }),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.constantFrom('/mnt/unionfs/Media/tv/Show/Season 01/e.mkv', 'D:\\Media\\Movies\\Heat (1995)\\Heat.mkv', 'My Drive/Media/Music/A/B.flac', '/', '//', '\\', '.', '..', '/../../etc', '   ', '\0', '/x\0y/z.mkv'),
  fc.array(fc.constantFrom('a', 'Season 01', '..', '', ' ', 'é', '\u0000', '\\', 'e.mkv'), { maxLength: 8 }).map((parts) => '/mnt/unionfs/Media/' + parts.join('/')),
);

const arrish = fc.record(
  {
    eventType: fc.oneof(fc.constantFrom('Download', 'Rename', 'EpisodeFileDelete', 'SeriesDelete', 'MovieFileDelete', 'Test', 'Manual', 'Grab', ''), fc.string(), fc.integer(), fc.constant(null)),
    series: fc.oneof(fc.record({ path: pathLike }, { requiredKeys: [] }), fc.jsonValue({ maxDepth: 2 })),
    movie: fc.oneof(fc.record({ folderPath: pathLike, path: pathLike }, { requiredKeys: [] }), fc.jsonValue({ maxDepth: 2 })),
    artist: fc.record({ path: pathLike }, { requiredKeys: [] }),
    episodeFile: fc.oneof(fc.record({ path: pathLike, relativePath: pathLike }, { requiredKeys: [] }), fc.jsonValue({ maxDepth: 2 })),
    episodeFiles: fc.array(fc.record({ path: pathLike, relativePath: pathLike }, { requiredKeys: [] }), { maxLength: 5 }),
    movieFile: fc.record({ path: pathLike, relativePath: pathLike }, { requiredKeys: [] }),
    renamedEpisodeFiles: fc.array(fc.record({ path: pathLike, previousPath: pathLike }, { requiredKeys: [] }), { maxLength: 4 }),
    deletedFiles: fc.oneof(fc.array(fc.record({ path: pathLike }, { requiredKeys: [] }), { maxLength: 3 }), fc.jsonValue({ maxDepth: 1 })),
    isUpgrade: fc.oneof(fc.boolean(), fc.string()),
    destinationPath: pathLike,
    filepath: fc.oneof(pathLike, fc.array(pathLike, { maxLength: 3 })),
    EventType: fc.constantFrom('Test', 'Download'),
  },
  { requiredKeys: [] },
);

describe('fuzzing the routes (never a 5xx, never a crash, only well-formed mapped folders)', () => {
  it('arr-shaped JSON with random, missing and mistyped fields', async () => {
    await fc.assert(
      fc.asyncProperty(arrish, fc.constantFrom('POST', 'PUT') as fc.Arbitrary<'POST' | 'PUT'>, async (body, method) => {
        await send({ method, contentType: 'application/json', payload: JSON.stringify(body) });
      }),
      { numRuns: RUNS },
    );
    queueIsWellFormed();
  });

  it('any JSON value at all', async () => {
    await fc.assert(
      fc.asyncProperty(fc.jsonValue({ maxDepth: 6 }), async (body) => {
        await send({ contentType: 'application/json', payload: JSON.stringify(body) });
      }),
      { numRuns: RUNS },
    );
    queueIsWellFormed();
  });

  it('manual requests as form fields and JSON, with any path', async () => {
    await fc.assert(
      fc.asyncProperty(pathLike, fc.boolean(), async (filepath, form) => {
        const payload = form
          ? 'eventType=Manual&filepath=' + encodeURIComponent(filepath)
          : JSON.stringify({ eventType: 'Manual', filepath });
        await send({ contentType: form ? 'application/x-www-form-urlencoded' : 'application/json', payload });
      }),
      { numRuns: RUNS },
    );
    queueIsWellFormed();
  });

  it('raw bytes (invalid UTF-8 included) under any content type, or none', async () => {
    const contentType = fc.option(
      fc.oneof(
        fc.constantFrom('application/json', 'application/json; charset=latin1', 'application/x-www-form-urlencoded', 'text/plain', 'text/html', 'multipart/form-data; boundary=x', 'application/octet-stream', 'application/vnd.sonarr+json', 'image/png', '*/*', ';;;', 'application/json; charset=utf-16'),
        fc.string({ maxLength: 40 }).filter((s) => !/[\r\n\0]/.test(s) && /^[\x20-\x7e]*$/.test(s)),
      ),
      { nil: undefined },
    );
    const body = fc.oneof(
      fc.uint8Array({ maxLength: 300 }).map((b) => Buffer.from(b)),
      fc.constantFrom(Buffer.from([0xc3, 0x28]), Buffer.from([0xff, 0xfe, 0x7b]), Buffer.from('{"eventType":"Manual","filepath":"\xff\xfe"}', 'latin1'), Buffer.from('{"eventType":"Download","series":{"path":"/tv/\x80"}}', 'latin1')),
      fc.string({ maxLength: 200 }).map((s) => Buffer.from(s)),
    );
    await fc.assert(
      fc.asyncProperty(contentType, body, async (ct, payload) => {
        await send({ contentType: ct, payload });
      }),
      { numRuns: RUNS },
    );
    queueIsWellFormed();
  });

  it('deep nesting and huge strings', async () => {
    for (const depth of [100, 10_000, 100_000]) {
      await send({ contentType: 'application/json', payload: '['.repeat(depth) + ']'.repeat(depth) });
      await send({ contentType: 'application/json', payload: '{"a":'.repeat(depth) + '1' + '}'.repeat(depth) });
      await send({ contentType: 'application/json', payload: '{"eventType":"Download","series":' + '{"path":'.repeat(depth) + '"x"' + '}'.repeat(depth) + '}' });
      await send({ contentType: 'application/x-www-form-urlencoded', payload: 'a[b]'.repeat(depth) + '=1' });
      await send({ contentType: 'text/plain', payload: '['.repeat(depth) });
    }
    const huge = 'x'.repeat(4 * 1024 * 1024);
    await send({ contentType: 'application/json', payload: JSON.stringify({ eventType: huge }) });
    await send({ contentType: 'application/json', payload: JSON.stringify({ eventType: 'Manual', filepath: '/mnt/unionfs/Media/tv/' + 'y'.repeat(1024 * 1024) + '/e.mkv' }) });
    await send({ contentType: 'application/json', payload: JSON.stringify({ eventType: 'Download', series: { path: '/mnt/unionfs/Media/tv/S' }, episodeFiles: Array.from({ length: 20_000 }, (_, i) => ({ path: `/mnt/unionfs/Media/tv/S/Season ${i % 40}/e${i}.mkv` })) }) });
    await send({ contentType: 'application/x-www-form-urlencoded', payload: 'eventType=Manual&' + Array.from({ length: 5000 }, (_, i) => `filepath=/x${i}`).join('&') });
    queueIsWellFormed();
    expect((await t.service.app.inject({ url: '/health' })).statusCode).toBe(200);
  });

  it('the API route with any query or body', async () => {
    const query = fc.dictionary(fc.oneof(fc.constantFrom('cmd', 'CMD', 'cmd[]'), fc.string({ maxLength: 8 })), fc.string({ maxLength: 30 }), { maxKeys: 4 });
    await fc.assert(
      fc.asyncProperty(query, fc.boolean(), fc.jsonValue({ maxDepth: 3 }), async (q, post, body) => {
        const qs = new URLSearchParams(q as Record<string, string>).toString();
        const res = post
          ? await send({ url: `/api/${SECRET}?${qs}`, contentType: 'application/json', payload: JSON.stringify(body) })
          : await send({ method: 'GET', url: `/api/${SECRET}?${qs}` });
        expect(res.statusCode).toBeLessThan(500);
      }),
      { numRuns: RUNS },
    );
    const ok = await send({ method: 'GET', url: `/api/${SECRET}?cmd=queue_count` });
    expect(ok.json()).toEqual({ queue_count: t.service.queue.count() });
  });

  it('random URLs and methods never reach a 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(fc.webPath(), fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS') as fc.Arbitrary<'GET'>, async (path, method) => {
        const res = await t.service.app.inject({ method, url: path || '/' });
        expect(res.statusCode).toBeLessThan(500);
      }),
      { numRuns: RUNS },
    );
  });
});

describe('10,000 webhook bodies and paths against the path gate', () => {
  // Every form a path can take is mapped (the catch-alls included), so "inside a mapped prefix" is exact: a
  // queued folder outside every key could only come from ".." or a file named as its own prefix.
  const drives = [...'ABCDEFGHIJKLMNOPQRSTUVWXYZ'].flatMap((l) => [`${l}:\\`, `${l}:/`, `${l.toLowerCase()}:/`]);
  const mappings = {
    '/data/media/': ['/mnt/unionfs/Media/', 'My Drive/Media/', 'D:\\Media\\', '\\\\nas\\media\\'],
    '/srv/rest/': ['/'],
    '/srv/win/': drives,
  };
  const keys = Object.keys(mappings);
  let g: TestService;
  beforeAll(async () => {
    g = await testService({ config: { SERVER_SCAN_DELAY: 3600, SERVER_PATH_MAPPINGS: mappings, SERVER_IGNORE_LIST: [] } as never });
    // Every mapped prefix is a library, so what passes the gate is queued (not recorded unmatched) and checked below.
    g.plex.sections = keys.map((k, i) => ({ key: String(10 + i), title: `Library ${i}`, locations: [k] }));
  });
  afterAll(async () => g.close());

  const segment = fc.oneof(
    fc.constantFrom('a', 'Season 01', '..', '.', '', ' ', '...', '.. ', 'é', '🎬', '\u0000', '\n', '\u0085', '\ud800', '\\', 'e.mkv', 'C:', '%2e%2e'),
    fc.string({ unit: 'binary', maxLength: 6 }),
  );
  const path = fc.oneof(
    fc.tuple(fc.constantFrom('/mnt/unionfs/Media/', 'My Drive/Media/', 'D:\\Media\\', '\\\\nas\\media\\', '/', 'C:\\', 'z:/', '//', '\\\\evil\\', ''), fc.array(segment, { maxLength: 8 }), fc.constantFrom('/', '\\'))
      .map(([prefix, parts, sep]) => prefix + parts.join(sep)),
    fc.string({ unit: 'binary', maxLength: 40 }),
    fc.constantFrom('/mnt/unionfs/Media/tv/../../../etc', '/../../root', 'C:\\..\\Windows', '/mnt/unionfs/Media/' + 'x'.repeat(MAX_PATH_BYTES), '/mnt/unionfs/Media/'),
  );
  const event = fc.oneof(fc.constantFrom('Download', 'Rename', 'EpisodeFileDelete', 'SeriesDelete', 'MovieFileDelete', 'MovieDelete', 'Retag', 'AlbumDelete', 'BookFileDelete', 'Manual', 'Test', 'Grab'), fc.string({ maxLength: 30 }));
  const body = fc.oneof(
    fc.record({ eventType: event, series: fc.record({ path }), episodeFile: fc.record({ path, relativePath: path }, { requiredKeys: [] }), episodeFiles: fc.array(fc.record({ path }), { maxLength: 3 }), isUpgrade: fc.boolean(), deletedFiles: fc.array(fc.record({ path }), { maxLength: 2 }) }, { requiredKeys: ['eventType'] }),
    fc.record({ eventType: event, movie: fc.record({ folderPath: path }), movieFile: fc.record({ path, relativePath: path }, { requiredKeys: [] }), renamedMovieFiles: fc.array(fc.record({ path, previousPath: path }), { maxLength: 2 }) }, { requiredKeys: ['eventType'] }),
    fc.record({ eventType: event, artist: fc.record({ path }), trackFiles: fc.array(fc.record({ path }), { maxLength: 3 }), trackFile: fc.record({ path }) }, { requiredKeys: ['eventType'] }),
    fc.record({ eventType: event, author: fc.record({ path }), bookFiles: fc.array(fc.record({ path }), { maxLength: 3 }), bookFile: fc.record({ path }) }, { requiredKeys: ['eventType'] }),
    fc.record({ eventType: fc.constant('Manual'), filepath: path }),
  );
  const userAgent = fc.constantFrom(undefined, 'Sonarr/4.0.17.2952 (ubuntu 24.04)', 'Radarr/5.2.6', 'Lidarr/2.0', 'Readarr/0.3', 'Whisparr/2.0', 'curl/8.5.0', 'x'.repeat(300));
  const route = fc.constantFrom('webhook', 'form', 'api');

  it('no 5xx, nothing queued outside a mapped prefix, no metric label outside the closed set', async () => {
    await fc.assert(
      fc.asyncProperty(body, userAgent, route, async (b, ua, via) => {
        const headers: Record<string, string> = ua ? { 'user-agent': ua } : {};
        let res;
        if (via === 'api') {
          res = await g.service.app.inject({ method: 'POST', url: `/api/${SECRET}/scan`, headers, payload: { path: 'filepath' in b ? b.filepath : (b as { series?: { path: string } }).series?.path ?? '/' } });
        } else if (via === 'form' && 'filepath' in b) {
          headers['content-type'] = 'application/x-www-form-urlencoded';
          res = await g.service.app.inject({ method: 'POST', url: `/${SECRET}`, headers, payload: `eventType=Manual&filepath=${encodeURIComponent(b.filepath.replace(/[\ud800-\udfff]/g, ''))}` });
        } else {
          headers['content-type'] = 'application/json';
          res = await g.service.app.inject({ method: 'POST', url: `/${SECRET}`, headers, payload: JSON.stringify(b) });
        }
        expect(res.statusCode, res.body.slice(0, 300)).toBeLessThan(500);
        if (res.statusCode === 400) expect(res.body.length).toBeLessThan(1_000);
      }),
      { numRuns: 10_000 },
    );

    const folders = g.service.queue.list(1_000_000).map((r) => r.folder);
    expect(folders.length).toBeGreaterThan(100);
    for (const folder of folders) {
      expect(keys.some((k) => isInside(folder, k)), JSON.stringify(folder)).toBe(true);
      expect(folder.split(/[\\/]/).some((p) => p === '..' || p === '.'), JSON.stringify(folder)).toBe(false);
      expect(/[\u0000-\u001f\u007f-\u009f]/.test(folder), JSON.stringify(folder)).toBe(false);
      expect(Buffer.byteLength(folder)).toBeLessThanOrEqual(MAX_PATH_BYTES + 16);
    }

    const text = await g.service.metrics.registry.getSingleMetricAsString('scanrelay_requests_total');
    const series = text.split('\n').filter((l) => l.startsWith('scanrelay_requests_total{'));
    expect(series.length).toBeGreaterThan(5);
    for (const line of series) {
      const labels = Object.fromEntries([...line.matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
      expect([...Object.keys(eventsBySource), 'other'], line).toContain(labels.source);
      expect([...(eventsBySource[labels.source] ?? []), 'other'], line).toContain(labels.event);
      expect(['queued', 'ignored', 'rejected', 'test', 'other'], line).toContain(labels.outcome);
    }
  }, 600_000);
});
