// A held hash= request over its life: a read has a time budget and ends at once on stop (SIGTERM), a hold an older
// run stored for /dev/zero is resumed but never read, identical requests share one hold and one read per check, the
// holds are capped with a 503 for hash= alone (webhooks keep being taken), and they show on the dashboard, in the
// API and on /metrics.
import { truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { Queue } from '../../src/queue/store.js';
import { hashLibrary, sha256, type HashLibrary } from '../support/hash-library.js';
import { SECRET } from '../support/service.js';
import { until } from '../support/until.js';

let lib: HashLibrary;
afterEach(async () => lib?.t.close());

const GIB = 1024 ** 3;
const WRONG = sha256('not this file');

/** A sparse file of `bytes` in the library: reading it takes seconds, storing it nothing. */
const sparse = (name: string, bytes: number) => {
  const file = join(lib.library, 'Show/Season 1', name);
  writeFileSync(file, '');
  truncateSync(file, bytes);
  return `/media/tv/Show/Season 1/${name}`;
};

describe('reading a file for hash=', () => {
  it('SIGTERM while a large file is being read: stop ends the read at once, and the hold stays for the next start', async () => {
    lib = await hashLibrary({ config: { SERVER_MAX_FILE_CHECKS: 5 } });
    const path = sparse('big.mkv', 8 * GIB);
    expect((await lib.ask(path, WRONG)).statusCode).toBe(200);
    await until(() => lib.t.service.hashHold.list()[0]?.reading === true);
    const started = Date.now();
    await lib.t.close();
    expect(Date.now() - started).toBeLessThan(1_500);
    const reopened = new Queue(lib.t.queuefile, new ManualClock(), { delayMs: 0 });
    expect(reopened.held.all()).toMatchObject([{ request: { path: '/data/media/tv/Show/Season 1/big.mkv' }, hash: WRONG }]);
    reopened.close();
  });

  it('a read past its time budget ends and counts as a failed check', async () => {
    lib = await hashLibrary({ config: { SERVER_MAX_FILE_CHECKS: 1 }, hashLimits: { readBudgetMs: 100 } });
    const path = sparse('slow.mkv', GIB);
    expect((await lib.ask(path, WRONG)).statusCode).toBe(200);
    await until(() => lib.t.service.queue.history().length === 1);
    expect(lib.t.service.queue.history()[0]).toMatchObject({ outcome: 'not-found' });
    expect(lib.t.service.queue.history()[0].detail).toContain('on the last check it could not be read within 0.1 s');
  });

  it('a hold an older run stored for /dev/zero is resumed but never read: recorded not-found, and stop is prompt', async () => {
    lib = await hashLibrary({ config: { SERVER_MAX_FILE_CHECKS: 2 } });
    lib.t.service.queue.held.add({ path: '/dev/zero', kind: 'file', source: 'manual', event: 'Manual' }, WRONG, '192.0.2.7', 0);
    expect(lib.t.service.hashHold.resume()).toBe(1);
    await until(() => lib.t.service.queue.history().length === 1);
    const [line] = lib.t.service.queue.history();
    expect(line).toMatchObject({ outcome: 'not-found' });
    expect(line.detail).toContain("was not read: '/dev/zero' is in no library folder of any media server");
    expect(lib.t.service.queue.held.all()).toEqual([]);
    const started = Date.now();
    await lib.t.close();
    expect(Date.now() - started).toBeLessThan(1_500);
  });
});

describe('identical holds, the cap, and where holds are seen', () => {
  it('the same file and hash, sent in two forms and two cases, is one hold with one read per check', async () => {
    lib = await hashLibrary({ config: { SERVER_MAX_FILE_CHECKS: 1_000_000 } });
    writeFileSync(join(lib.library, 'Show/Season 1/e01.mkv'), 'half written');
    expect((await lib.ask('/media/tv/Show/Season 1/e01.mkv', sha256('whole'))).statusCode).toBe(200);
    expect((await lib.ask('/data/media/tv/Show/Season 1/e01.mkv', sha256('whole').toUpperCase())).statusCode).toBe(200);
    expect(lib.t.service.hashHold.size).toBe(1);
    expect(lib.t.service.queue.held.all()).toHaveLength(1);
    expect(lib.t.service.hashHold.list()[0]).toMatchObject({ requests: 2 });
    const checksOf = (n: number) => lib.t.logs.filter((l) => l.includes(`on check ${n} of `)).length;
    await until(() => checksOf(3) > 0);
    expect([checksOf(1), checksOf(2), checksOf(3)]).toEqual([1, 1, 1]);
    writeFileSync(join(lib.library, 'Show/Season 1/e01.mkv'), 'whole');
    await until(() => lib.t.service.queue.count() === 1);
    expect(lib.t.service.hashHold.size).toBe(0);
  });

  it('holds are capped: one more is a 503 with Retry-After, while webhooks, plain triggers and merges are still taken', async () => {
    lib = await hashLibrary({ config: { SERVER_MAX_FILE_CHECKS: 1_000_000 }, hashLimits: { holds: 2 } });
    for (const n of [1, 2]) expect((await lib.ask(`/media/tv/Show/Season 1/e0${n}.mkv`, WRONG)).statusCode).toBe(200);
    const full = await lib.ask('/media/tv/Show/Season 1/e03.mkv', WRONG);
    expect(full.statusCode).toBe(503);
    expect(full.headers['retry-after']).toBe('60');
    expect(full.json()).toContain("2 requests already wait for their file's SHA-256");
    // Only hash= is refused: the same request as an identical hold merges, and everything else goes on.
    expect((await lib.ask('/media/tv/Show/Season 1/e01.mkv', WRONG)).statusCode).toBe(200);
    expect((await lib.ask('/media/tv/Show/Season 1/e03.mkv')).statusCode).toBe(200);
    const webhook = await lib.t.service.app.inject({
      method: 'POST',
      url: `/${SECRET}`,
      payload: { eventType: 'Download', series: { path: '/mnt/unionfs/Media/tv/Other' }, episodeFile: { path: '/mnt/unionfs/Media/tv/Other/S01/e.mkv' } },
    });
    expect(webhook.statusCode).toBe(200);
    expect(lib.t.service.queue.list().map((r) => r.folder).sort()).toEqual(['/data/media/tv/Other/S01', '/data/media/tv/Show/Season 1']);
    expect(lib.t.service.hashHold.size).toBe(2);
  });

  it('the dashboard, GET /api/<SERVER_PASS>/held and /metrics show the holds', async () => {
    lib = await hashLibrary({ config: { SERVER_MAX_FILE_CHECKS: 1_000_000 } });
    for (const n of [1, 2]) await lib.ask(`/media/tv/Show/Season 1/e0${n}.mkv`, WRONG);
    const api = await lib.t.service.app.inject({ url: `/api/${SECRET}/held` });
    expect(api.statusCode).toBe(200);
    expect(api.json()).toMatchObject({
      count: 2,
      limit: 1000,
      held: [
        { path: '/data/media/tv/Show/Season 1/e01.mkv', hash: WRONG, requests: 1, reading: false },
        { path: '/data/media/tv/Show/Season 1/e02.mkv', hash: WRONG },
      ],
    });
    expect(api.json().held[0].local).toBe(join(lib.library, 'Show/Season 1/e01.mkv'));
    const metrics = await lib.t.service.app.inject({ url: '/metrics' });
    expect(metrics.body).toMatch(/^scanrelay_hash_holds 2$/m);
    const page = await lib.t.service.app.inject({ url: `/${SECRET}/dashboard` });
    expect(page.body).toContain("Waiting for a file's SHA-256 <span class=\"muted\">(2 of at most 1000; hash=)</span>");
    expect(page.body).toContain('<code>/data/media/tv/Show/Season 1/e02.mkv</code>');
  });
});
