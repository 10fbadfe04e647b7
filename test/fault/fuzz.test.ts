// Property-based fuzzing of the webhook, manual and API routes through app.inject: random JSON shapes, deep
// nesting, huge strings, wrong content types, invalid UTF-8, missing fields. Never a 5xx, never a crash, and the
// queue holds only well-formed, mapped paths.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SECRET, testService, type TestService } from '../support/service.js';

let t: TestService;
beforeAll(async () => {
  t = await testService({ config: { SERVER_SCAN_DELAY: 3600 } as never });
});
afterAll(async () => {
  await t.close();
  const text = t.logs.join('');
  expect(text).not.toContain(SECRET);
  expect(text).not.toContain(t.plex.token);
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
