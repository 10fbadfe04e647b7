// autoscan's /triggers/ routes: each autoscan request shape queues the folders autoscan would scan.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Config } from '../../src/config/schema.js';
import { configFiles } from '../support/config-file.js';
import { repoRoot } from '../support/fixtures.js';
import { testService, type TestService } from '../support/service.js';

const USER = 'hello there';
const PASSWORD = 'autoscan-pass-9f3c1e';
const auth = (user = USER, password = PASSWORD) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
const fixture = (name: string) => readFileSync(join(repoRoot, 'test/fixtures/autoscan', name), 'utf8');

const autoscan = {
  ENABLED: true,
  USER,
  PASSWORD,
  TRIGGERS: [
    { NAME: 'sonarr-docker', TYPE: 'sonarr', REWRITE: { '/data/media/tv/': ['/tv/'] } },
    { NAME: 'radarr', TYPE: 'radarr', REWRITE: { '/data/media/movies/': ['/movies/'] } },
    { NAME: 'lidarr', TYPE: 'lidarr', REWRITE: { '/data/media/music/': ['/music/'] } },
    { NAME: 'readarr', TYPE: 'readarr', REWRITE: { '/data/media/books/': ['/books/'] } },
  ],
  MANUAL_REWRITE: { '/data/media/': ['/Media/'] },
  A_TRAIN_REWRITE: { '/data/media/movies/': ['/Movies/'] },
  A_TRAIN_DRIVES: { '0AdriveTV': { '/data/media/tv/': ['/TV/'] } },
} as unknown as Config['AUTOSCAN'];

let t: TestService;
afterEach(async () => t?.close());
const start = async (config: Partial<Config> = { AUTOSCAN: autoscan }) => {
  t = await testService({ config });
  // Libraries for every folder the fixtures name: what autoscan would scan is then queued, not recorded unmatched.
  t.plex.sections.push({ key: '4', title: 'Books', locations: ['/data/media/books'] }, { key: '5', title: 'TV (unmapped)', locations: ['/tv'] });
  return t;
};
const post = (url: string, payload: string, authorization = auth()) =>
  t.service.app.inject({ method: 'POST', url, headers: { authorization, 'content-type': 'application/json' }, payload });
const queued = () => t.service.queue.list().map((r) => ({ folder: r.folder, deleted: r.allDeleted })).sort((a, b) => a.folder.localeCompare(b.folder));

describe('autoscan-compatible routes', () => {
  it.each([
    ['sonarr-docker', 'sonarr-download.json', [{ folder: '/data/media/tv/Severance/Season 2', deleted: false }]],
    [
      'sonarr-docker',
      'sonarr-rename.json',
      [
        { folder: '/data/media/tv/Severance/Season 01', deleted: false },
        { folder: '/data/media/tv/Severance/Season 1', deleted: true },
      ],
    ],
    ['sonarr-docker', 'sonarr-episode-delete.json', [{ folder: '/data/media/tv/Severance/Season 1', deleted: true }]],
    ['sonarr-docker', 'sonarr-series-delete.json', [{ folder: '/data/media/tv/Andor', deleted: true }]],
    ['radarr', 'radarr-download.json', [{ folder: '/data/media/movies/Arrival (2016)', deleted: false }]],
    ['radarr', 'radarr-movie-file-delete.json', [{ folder: '/data/media/movies/Dune (2021)', deleted: true }]],
    ['radarr', 'radarr-movie-delete.json', [{ folder: '/data/media/movies/Tenet (2020)', deleted: true }]],
    [
      'lidarr',
      'lidarr-download.json',
      [
        { folder: '/data/media/music/Khruangbin/Mordechai (2020)', deleted: false },
        { folder: '/data/media/music/Khruangbin/Mordechai (2020)/CD2', deleted: false },
      ],
    ],
    ['readarr', 'readarr-download.json', [{ folder: '/data/media/books/Ursula K. Le Guin/The Dispossessed (1974)', deleted: false }]],
  ])('POST /triggers/%s with %s answers 200 with an empty body and queues what autoscan would scan', async (name, file, expected) => {
    await start();
    const res = await post(`/triggers/${name}`, fixture(file));
    expect(res.statusCode).toBe(200);
    expect(res.body).toBe('');
    expect(queued()).toEqual(expected);
  });

  it('a Test event answers 200 and queues nothing; a body that is not JSON answers 400 with an empty body', async () => {
    await start();
    expect((await post('/triggers/sonarr-docker', fixture('test.json'))).statusCode).toBe(200);
    const bad = await post('/triggers/radarr', fixture('invalid.txt'));
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toBe('');
    expect(t.service.queue.count()).toBe(0);
    expect(t.logs.join('')).toContain('Answered 400');
  });

  it('a route name that is not configured is 404; the default names are used when TRIGGERS is empty', async () => {
    await start();
    expect((await post('/triggers/sonarr', fixture('sonarr-download.json'))).statusCode).toBe(404);
    await t.close();
    await start({ AUTOSCAN: { ...autoscan, TRIGGERS: [] } });
    expect((await post('/triggers/sonarr', fixture('sonarr-download.json'))).statusCode).toBe(200);
    expect(queued()).toEqual([{ folder: '/tv/Severance/Season 2', deleted: false }]);
  });

  it('POST /triggers/a-train/{drive}: created and deleted folders, the drive\'s rewrite before the global one', async () => {
    await start();
    const res = await post('/triggers/a-train/0AdriveTV', fixture('a-train.json'));
    expect(res.statusCode).toBe(200);
    expect(res.body).toBe('');
    expect(queued()).toEqual([
      { folder: '/data/media/movies/Arrival (2016)', deleted: false },
      { folder: '/data/media/movies/Tenet (2020)', deleted: true },
      { folder: '/data/media/tv/Severance/Season 2', deleted: false },
    ]);
    expect((await post('/triggers/a-train/0AdriveTV', '{"created": "not a list"}')).statusCode).toBe(400);
    expect((await post('/triggers/a-train/x', '{nope')).statusCode).toBe(400);
  });

  it('/triggers/manual: several dir on POST and GET, cleaned like autoscan does; no dir is 400 on POST and the form on GET', async () => {
    await start();
    const dirs = '?dir=' + encodeURIComponent('/Media/tv/Andor//Season 1/') + '&dir=' + encodeURIComponent('/Media/movies/Heat (1995)');
    const res = await t.service.app.inject({ method: 'POST', url: `/triggers/manual${dirs}`, headers: { authorization: auth() } });
    expect(res.statusCode).toBe(200);
    expect(res.body).toBe('');
    expect(queued()).toEqual([
      { folder: '/data/media/movies/Heat (1995)', deleted: false },
      { folder: '/data/media/tv/Andor/Season 1', deleted: false },
    ]);
    const get = await t.service.app.inject({ method: 'GET', url: `/triggers/manual?dir=${encodeURIComponent('/Media/music/X')}`, headers: { authorization: auth() } });
    expect(get.statusCode).toBe(200);
    expect(t.service.queue.get('/data/media/music/X')).toBeDefined();
    const form = await t.service.app.inject({ method: 'GET', url: '/triggers/manual', headers: { authorization: auth() } });
    expect(form.headers['content-type']).toContain('text/html');
    expect(form.body).toContain('name="dir"');
    expect((await t.service.app.inject({ method: 'POST', url: '/triggers/manual', headers: { authorization: auth() } })).statusCode).toBe(400);
    expect((await t.service.app.inject({ method: 'HEAD', url: '/triggers/manual', headers: { authorization: auth() } })).statusCode).toBe(200);
  });

  it('Basic auth is checked before the body is read: no or wrong credentials get 401 even with a broken body', async () => {
    await start();
    for (const authorization of ['', auth(USER, 'wrong'), auth('someone', PASSWORD), 'Bearer x']) {
      const res = await post('/triggers/sonarr-docker', fixture('invalid.txt'), authorization);
      expect(res.statusCode).toBe(401);
      expect(res.headers['www-authenticate']).toBe('Basic realm="scanrelay"');
    }
    expect(t.service.queue.count()).toBe(0);
    expect(t.logs.join('')).not.toContain(PASSWORD);
  });

  it('the routes do not exist while AUTOSCAN is off: /triggers/ is then one more URL without the secret (401)', async () => {
    await start({});
    expect((await post('/triggers/radarr', fixture('radarr-download.json'))).statusCode).toBe(401);
  });

  it('AUTOSCAN cannot be enabled without its own user and password', () => {
    const files = configFiles();
    try {
      expect(files.problem({ AUTOSCAN: { ENABLED: true, USER: 'u' } })).toContain('AUTOSCAN.PASSWORD');
      expect(files.problem({ AUTOSCAN: { ENABLED: true, PASSWORD: 'p' } })).toContain('AUTOSCAN.USER');
      expect(files.load({ AUTOSCAN: { ENABLED: true, USER: 'u', PASSWORD: 'p' } }).AUTOSCAN.ENABLED).toBe(true);
    } finally {
      files.cleanup();
    }
  });
});
