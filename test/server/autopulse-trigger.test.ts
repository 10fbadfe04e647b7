// autopulse's manual trigger on /triggers/manual and /triggers/bazarr: the calls Bazarr's "Autopulse" integration
// and Tdarr/FileFlows flows make (GET, or POST with an empty body; path=, hash=), answered with autopulse's JSON.
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Config } from '../../src/config/schema.js';
import { diskPathState } from '../../src/paths/disk.js';
import { ManualClock } from '../../src/clock.js';
import { Queue } from '../../src/queue/store.js';
import { testService, type TestService } from '../support/service.js';

const USER = 'admin';
const PASSWORD = 'autopulse-pass-4b1d';
const authorization = `Basic ${Buffer.from(`${USER}:${PASSWORD}`).toString('base64')}`;
const autoscan = { ENABLED: true, USER, PASSWORD, TRIGGERS: [], MANUAL_REWRITE: { '/data/media/': ['/media/'] }, A_TRAIN_REWRITE: {}, A_TRAIN_DRIVES: {} } as unknown as Config['AUTOSCAN'];

let t: TestService;
afterEach(async () => t?.close());

const start = async (config: Partial<Config> = {}) => {
  t = await testService({ config: { AUTOSCAN: autoscan, ...config }, pathState: diskPathState });
  t.plex.sections.push({ key: '7', title: 'TV', locations: ['/data/media/tv'] });
  return t;
};
const call = (method: 'GET' | 'POST', url: string, payload?: string) =>
  t.service.app.inject({ method, url, headers: { authorization, ...(payload !== undefined ? { 'content-type': 'application/json' } : {}) }, ...(payload !== undefined ? { payload } : {}) });
const folders = () => t.service.queue.list().map((r) => r.folder).sort();
const sha = (text: string) => createHash('sha256').update(text).digest('hex');

describe("autopulse's manual trigger", () => {
  it("GET and empty-body POST /triggers/manual?path= queue the file's folder and answer autopulse's ScanEvent", async () => {
    await start();
    const got = await call('GET', `/triggers/manual?path=${encodeURIComponent('/media/tv/Show/Season 1/e01.mkv')}`);
    expect(got.statusCode).toBe(200);
    expect(got.headers['content-type']).toMatch(/^application\/json/);
    const event = got.json();
    expect(event).toMatchObject({
      event_source: 'manual',
      file_path: '/data/media/tv/Show/Season 1/e01.mkv',
      file_hash: null,
      process_status: 'pending',
      found_status: 'not_found',
      failed_times: 0,
      targets_hit: '',
    });
    expect(event.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(event.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}$/);
    // autopulse's own clients (Tdarr's web request, FileFlows) POST with an empty body.
    const posted = await call('POST', `/triggers/manual?path=${encodeURIComponent('/media/tv/Show/Season 2/e01.mkv')}`, '');
    expect(posted.statusCode).toBe(200);
    expect(folders()).toEqual(['/data/media/tv/Show/Season 1', '/data/media/tv/Show/Season 2']);
  });

  it("path= is repeatable (a list answered), a JSON body is autopulse's 400, dir= keeps autoscan's empty 200", async () => {
    await start();
    const two = await call('GET', '/triggers/manual?path=/media/tv/A/s1/a.mkv&path=/media/tv/B/s1/b.mkv');
    expect(two.json()).toHaveLength(2);
    const withBody = await call('POST', '/triggers/manual?path=/media/tv/C/s1/c.mkv', '{"path":"/x"}');
    expect(withBody.statusCode).toBe(400);
    const dir = await call('GET', '/triggers/manual?dir=/media/tv/D');
    expect([dir.statusCode, dir.body]).toEqual([200, '']);
    expect(folders()).toEqual(['/data/media/tv/A/s1', '/data/media/tv/B/s1', '/data/media/tv/D']);
    // Without the password: 401, nothing queued.
    expect((await t.service.app.inject({ url: '/triggers/manual?path=/media/tv/E/e.mkv' })).statusCode).toBe(401);
  });

  it("Bazarr's call: GET /triggers/bazarr?path=<the video's folder>, and its connection test GET /stats", async () => {
    await start();
    const res = await call('GET', `/triggers/bazarr?path=${encodeURIComponent('/media/tv/Show/Season 1')}`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ event_source: 'bazarr', file_path: '/data/media/tv/Show/Season 1' });
    expect(folders()).toEqual(['/data/media/tv/Show/Season 1']);
    const stats = await t.service.app.inject({ url: '/stats' });
    expect(stats.json()).toMatchObject({ stats: { total: 1, pending: 1 } });
  });

  it('a path the gate refuses is 400, an ignored one 204, a bad hash 400', async () => {
    await start();
    expect((await call('GET', '/triggers/manual?path=relative/x.mkv')).statusCode).toBe(400);
    expect((await call('GET', '/triggers/manual?path=/media/tv/.grab/x.mkv')).statusCode).toBe(204);
    expect((await call('GET', '/triggers/manual?path=/media/tv/x.mkv&hash=abc')).statusCode).toBe(400);
    expect(t.service.queue.count()).toBe(0);
  });
});

describe('hash=: the scan waits until the file has that SHA-256', () => {
  // The manual clock lets each wait between checks pass at once: `checks` bounds how long a hold lasts.
  const setup = async (checks: number) => {
    await start({ SERVER_MAX_FILE_CHECKS: checks, SERVER_FILE_CHECK_DELAY: 60 });
    const disk = join(t.dir, 'disk');
    mkdirSync(join(disk, 'tv/Show/Season 1'), { recursive: true });
    // Again, with the file-exist mapping pointing at the temporary disk.
    await t.close();
    await start({ SERVER_MAX_FILE_CHECKS: checks, SERVER_FILE_CHECK_DELAY: 60, SERVER_FILE_EXIST_PATH_MAPPINGS: { [`${disk}/`]: ['/data/media/'] } });
    return join(disk, 'tv/Show/Season 1/e01.mkv');
  };
  const until = async (what: () => boolean) => {
    const end = Date.now() + 5_000;
    while (!what() && Date.now() < end) await new Promise((r) => setTimeout(r, 5));
  };

  it('is queued once the file on disk has the hash it was sent with', async () => {
    const file = await setup(1_000_000);
    writeFileSync(file, 'half written');
    const res = await call('GET', `/triggers/manual?path=${encodeURIComponent('/media/tv/Show/Season 1/e01.mkv')}&hash=${sha('whole file').toUpperCase()}`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ file_hash: sha('whole file'), process_status: 'pending' });
    await until(() => t.service.hashHold.size === 1);
    expect(t.service.queue.count()).toBe(0);
    writeFileSync(file, 'whole file');
    await until(() => t.service.queue.count() === 1);
    expect(folders()).toEqual(['/data/media/tv/Show/Season 1']);
    expect(t.service.hashHold.size).toBe(0);
  });

  it('a held request is kept in the queue file: a restart resumes it with the checks it has left', async () => {
    const file = await setup(1_000_000);
    writeFileSync(file, 'half written');
    const disk = file.slice(0, file.indexOf('/tv/Show')) + '/';
    await call('GET', `/triggers/manual?path=${encodeURIComponent('/media/tv/Show/Season 1/e01.mkv')}&hash=${sha('whole file')}`);
    await until(() => (t.service.queue.held.all()[0]?.checks ?? 0) >= 3);
    const queuefile = t.queuefile;
    await t.close();
    const reopened = new Queue(queuefile, new ManualClock(), { delayMs: 0 });
    const [kept] = reopened.held.all();
    reopened.close();
    expect(kept).toMatchObject({ hash: sha('whole file'), request: { path: '/data/media/tv/Show/Season 1/e01.mkv' } });
    expect(kept.checks).toBeGreaterThanOrEqual(3);

    t = await testService({
      queuefile,
      config: { AUTOSCAN: autoscan, SERVER_MAX_FILE_CHECKS: 1_000_000, SERVER_FILE_CHECK_DELAY: 60, SERVER_FILE_EXIST_PATH_MAPPINGS: { [disk]: ['/data/media/'] } },
      pathState: diskPathState,
    });
    t.plex.sections.push({ key: '7', title: 'TV', locations: ['/data/media/tv'] });
    expect(t.service.hashHold.resume()).toBe(1);
    expect(t.service.queue.count()).toBe(0);
    writeFileSync(file, 'whole file');
    await until(() => t.service.queue.count() === 1);
    expect(folders()).toEqual(['/data/media/tv/Show/Season 1']);
    await until(() => t.service.hashHold.size === 0);
    expect(t.service.queue.held.all()).toEqual([]);
  });

  it('a hold whose budget ran out before the restart is recorded not-found at once after it', async () => {
    const file = await setup(3);
    const request = { path: '/data/media/tv/Show/Season 1/e01.mkv', kind: 'file', source: 'manual', event: 'Manual', deleted: false } as const;
    // Two of three checks were made by the run before the restart.
    const id = t.service.queue.held.add(request, sha('whole file'), '127.0.0.1', 0);
    t.service.queue.held.checked(id, 2);
    writeFileSync(file, 'another file');
    expect(t.service.hashHold.resume()).toBe(1);
    await until(() => t.service.queue.history().length === 1);
    expect(t.service.queue.history()[0].detail).toContain('checked 3 time(s)');
    expect(t.service.queue.held.all()).toEqual([]);
  });

  it('a hash that never matches is recorded not-found with the reason, and nothing is scanned', async () => {
    const file = await setup(3);
    writeFileSync(file, 'another file');
    const finished: string[] = [];
    t.service.activity.on('finished', (f) => finished.push(f.outcome));
    await call('POST', `/triggers/manual?path=${encodeURIComponent('/media/tv/Show/Season 1/e01.mkv')}&hash=${sha('whole file')}`, '');
    await until(() => t.service.queue.history().length === 1);
    const [line] = t.service.queue.history();
    expect(line).toMatchObject({ outcome: 'not-found', folder: '/data/media/tv/Show/Season 1' });
    // Only "does not match": the file's own SHA-256 is never written anywhere (src/hash/read.ts).
    expect(line.detail).toContain('on the last check it did not have the SHA-256 asked for');
    expect(line.detail).not.toContain(sha('another file'));
    expect(line.detail).toContain('checked 3 time(s)');
    expect(finished).toEqual(['not-found']);
    expect(t.service.queue.count()).toBe(0);
  });
});
