// The holes an attacker on the LAN found, each closed: a webhook body sent to a public path, autoscan's segment
// in the secret's place, a cross-site form, and a flood of wrong Basic/bearer credentials filling the log.
import { afterEach, describe, expect, it } from 'vitest';
import { configSchema } from '../../src/config/schema.js';
import type { Config } from '../../src/config/schema.js';
import { SECRET, testService, type TestService } from '../support/service.js';

const USER = 'autoscan-user';
const PASSWORD = 'autoscan-pass-7c2e9d41';
const TOKEN = 'metrics-token-5b8f03aa91';
const autoscan = () => configSchema().parse({ AUTOSCAN: { ENABLED: true, USER, PASSWORD } }).AUTOSCAN as Config['AUTOSCAN'];
const sonarr = JSON.stringify({
  eventType: 'Download',
  series: { id: 1, title: 'Hole', path: '/data/media/TV/Hole' },
  episodeFile: { id: 2, relativePath: 'Season 01/Hole - S01E01.mkv', path: '/data/media/TV/Hole/Season 01/Hole - S01E01.mkv' },
});

let t: TestService;
afterEach(async () => t?.close());

describe('a public path never takes a webhook', () => {
  it.each([
    ['POST', '/health'],
    ['PUT', '/health'],
    ['POST', '/health/'],
    ['POST', '/%68ealth'],
    ['POST', '/metrics'],
    ['POST', '/favicon.ico'],
    ['POST', '/triggers'],
  ] as const)('%s %s with a Sonarr body is 401 and nothing reaches Plex', async (method, url) => {
    t = await testService({ config: { SERVER_SCAN_DELAY: 0 } });
    t.plex.sections.push({ key: '9', title: 'TV', locations: ['/data/media/TV'] });
    const res = await t.service.app.inject({ method, url, headers: { 'content-type': 'application/json', 'user-agent': 'Sonarr/4.0' }, payload: sonarr });
    expect(res.statusCode).toBe(401);
    expect(res.body).not.toContain('Hole');
    expect(t.service.queue.count()).toBe(0);
    await t.service.processor.drain();
    expect(t.plex.refreshes).toEqual([]);
  });
});

describe('a NUL in a path', () => {
  it.each([
    ['episodeFile.path', { episodeFile: { id: 2, relativePath: 'Season 01/Hole - S01E01.mkv', path: '/data/media/TV/Hole/Season 01/Hole\u0000.mkv' } }],
    ['series.path', { series: { id: 1, title: 'Hole', path: '/data/media/TV/Ho\u0000le' }, episodeFile: { id: 2, relativePath: 'Season 01/x.mkv' } }],
  ])('in %s of a Sonarr import is a 400 naming the rule, and nothing is queued', async (_field, over) => {
    t = await testService();
    const body = { ...JSON.parse(sonarr), ...over };
    const res = await t.service.app.inject({ method: 'POST', url: `/${SECRET}`, headers: { 'content-type': 'application/json', 'user-agent': 'Sonarr/4.0' }, payload: JSON.stringify(body) });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ rule: 'control-character' });
    expect(t.service.queue.count()).toBe(0);
  });
});

describe('bounded requests', () => {
  /** A Sonarr "On Import Complete" with `n` files, each in a season folder of its own. */
  const manyFiles = (n: number) =>
    JSON.stringify({
      eventType: 'Download',
      series: { id: 1, title: 'Long', path: '/data/media/TV/Long' },
      episodeFiles: Array.from({ length: n }, (_, i) => ({ id: i + 1, relativePath: `Season ${i + 1}/Long - S${i + 1}E01.mkv`, path: `/data/media/TV/Long/Season ${i + 1}/Long - S${i + 1}E01.mkv` })),
    });
  const post = (payload: string, url = `/${SECRET}`) =>
    t.service.app.inject({ method: 'POST', url, headers: { 'content-type': 'application/json', 'user-agent': 'Sonarr/4.0' }, payload });

  it('SERVER_MAX_REQUEST_PATHS: more paths than the limit is a 413 that says the limit; nothing is queued; at the limit all are', async () => {
    t = await testService({ config: { SERVER_MAX_REQUEST_PATHS: 50 } });
    t.plex.sections.push({ key: '9', title: 'TV', locations: ['/data/media/TV'] });
    const over = await post(manyFiles(51));
    expect(over.statusCode).toBe(413);
    expect(over.json().error).toMatch(/names 51 paths; at most 50 .*SERVER_MAX_REQUEST_PATHS/);
    expect(t.service.queue.count()).toBe(0);
    expect(t.logs.some((l) => /Refused a sonarr Download request .* names 51 paths/.test(l))).toBe(true);
    const at = await post(manyFiles(50));
    expect(at.statusCode).toBe(200);
    expect(t.service.queue.count()).toBe(50);
  });

  it('the default is 1,000 paths, on autoscan routes too (a bare 413 as autoscan answers)', async () => {
    t = await testService({ config: { AUTOSCAN: autoscan() } });
    expect((await post(manyFiles(1001))).statusCode).toBe(413);
    const authorization = `Basic ${Buffer.from(`${USER}:${PASSWORD}`).toString('base64')}`;
    const res = await t.service.app.inject({ method: 'POST', url: '/triggers/sonarr', headers: { authorization, 'content-type': 'application/json' }, payload: manyFiles(1001) });
    expect(res.statusCode).toBe(413);
    expect(res.body).toBe('');
    expect(t.service.queue.count()).toBe(0);
  });
});

describe("with AUTOSCAN on, 'triggers' is no secret", () => {
  it.each([
    ['GET', '/triggers/dashboard'],
    ['GET', '/triggers/doctor'],
    ['GET', '/triggers/events'],
    ['POST', '/triggers/dashboard/drop'],
    ['POST', '/triggers/dashboard/scan-now'],
    ['POST', '/triggers'],
    ['GET', '/api/triggers/queue'],
  ] as const)('%s %s without Basic auth is 401', async (method, url) => {
    t = await testService({ config: { AUTOSCAN: autoscan() } });
    const res = await t.service.app.inject({ method, url, headers: { 'content-type': 'application/json' }, payload: method === 'POST' ? sonarr : undefined });
    expect(res.statusCode).toBe(401);
    expect(t.service.queue.count()).toBe(0);
  });

  it('a cross-site GET /triggers/manual?dir= carrying the Basic auth a browser keeps is refused; the same from Bazarr or curl queues', async () => {
    t = await testService({ config: { AUTOSCAN: autoscan() } });
    t.plex.sections.push({ key: '9', title: 'TV', locations: ['/data/media/TV'] });
    const authorization = `Basic ${Buffer.from(`${USER}:${PASSWORD}`).toString('base64')}`;
    const url = '/triggers/manual?dir=/data/media/TV/Hole/Season%2001';
    const browser = await t.service.app.inject({ method: 'GET', url, headers: { authorization, 'sec-fetch-site': 'cross-site', origin: 'http://evil.example' } });
    expect(browser.statusCode).toBe(403);
    expect(t.service.queue.count()).toBe(0);
    const tool = await t.service.app.inject({ method: 'GET', url, headers: { authorization } });
    expect(tool.statusCode).toBe(200);
    expect(t.service.queue.count()).toBe(1);
  });
});

describe('every refused credential is limited in the log the same way', () => {
  const warnings = (t: TestService, what: RegExp) => t.logs.map((l) => JSON.parse(l)).filter((l) => l.level === 'warn' && what.test(l.msg));

  it('wrong Basic auth on /triggers/*: one WARN per client per minute, then a count', async () => {
    t = await testService({ config: { AUTOSCAN: autoscan() } });
    const wrong = `Basic ${Buffer.from(`${USER}:nope`).toString('base64')}`;
    for (let i = 0; i < 200; i++) {
      const res = await t.service.app.inject({ method: 'POST', url: '/triggers/sonarr', headers: { authorization: wrong }, payload: sonarr, remoteAddress: '192.0.2.7' });
      expect(res.statusCode).toBe(401);
      expect(res.headers['www-authenticate']).toBe('Basic realm="scanrelay"');
    }
    expect(warnings(t, /Basic auth/)).toHaveLength(1);
    t.clock.advance(60_000);
    await t.service.app.inject({ method: 'GET', url: '/triggers/manual', headers: { authorization: wrong }, remoteAddress: '192.0.2.7' });
    const lines = warnings(t, /Basic auth/);
    expect(lines).toHaveLength(2);
    expect(lines[1]).toMatchObject({ client: '192.0.2.7', suppressed: 199 });
    expect(t.logs.join('')).not.toContain('nope');
  });

  it('a wrong bearer on /metrics: one WARN per client per minute, then a count', async () => {
    t = await testService({ config: { SERVER_METRICS_TOKEN: TOKEN } });
    for (let i = 0; i < 200; i++) {
      const res = await t.service.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: 'Bearer guess' }, remoteAddress: '192.0.2.9' });
      expect(res.statusCode).toBe(401);
    }
    expect(warnings(t, /bearer token/)).toHaveLength(1);
    t.clock.advance(60_000);
    await t.service.app.inject({ method: 'GET', url: '/metrics', remoteAddress: '192.0.2.9' });
    expect(warnings(t, /bearer token/).at(-1)).toMatchObject({ client: '192.0.2.9', suppressed: 199 });
    const ok = await t.service.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } });
    expect(ok.statusCode).toBe(200);
  });
});
