// Generated from the route table (src/server/access.ts): every registered route × every method × {no
// credential, wrong credential, cross-site form post} is refused unless the route is `public`, nothing is
// queued and no media server is called; and each route with its right credential gets past the gate. Run with
// AUTOSCAN on and off, manual scans on and off, and /metrics with and without its token.
import Fastify from 'fastify';
import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { recordRoutes, type RouteEntry } from '../../src/server/access.js';
import type { Config } from '../../src/config/schema.js';
import { configSchema } from '../../src/config/schema.js';
import { SECRET, testService, type TestService } from '../support/service.js';

const USER = 'autoscan-user';
const PASSWORD = 'autoscan-pass-7c2e9d41';
const METRICS_TOKEN = 'metrics-token-5b8f03aa91';
const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH'] as const;

/** A Sonarr import whose folder is in the fake Plex's TV library: queued at once if the gate let it through. */
const FOLDER = '/data/media/TV/Gate Test/Season 01';
const sonarr = JSON.stringify({
  eventType: 'Download',
  series: { id: 1, title: 'Gate Test', path: '/data/media/TV/Gate Test' },
  episodeFile: { id: 2, relativePath: 'Season 01/Gate Test - S01E01.mkv', path: `${FOLDER}/Gate Test - S01E01.mkv` },
});

let t: TestService | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

type Attempt = 'none' | 'wrong' | 'cross-site';

/** The URL, headers and body one attempt sends to a route. */
function attempt(route: RouteEntry, method: string, kind: Attempt): { url: string; headers: Record<string, string>; payload?: string } {
  // Without the secret, the `:secret` slot holds a public name (the /health hole) or a guess.
  const secret = kind === 'none' ? 'health' : kind === 'wrong' ? 'not-the-secret-0000000000' : SECRET;
  const url = route.url.replace(':secret', encodeURIComponent(secret)).replace(':drive', 'drive0').replace(':name', 'sonarr').replace('*', 'x');
  const headers: Record<string, string> = {};
  if (kind === 'wrong') headers.authorization = route.access === 'bearer' ? 'Bearer wrong-token' : basic(USER, 'wrong');
  if (kind === 'cross-site') {
    // A form on another site, sent by a browser that holds the right credentials (Basic auth is cached).
    if (route.access === 'basic') headers.authorization = basic(USER, PASSWORD);
    if (route.access === 'bearer') headers.authorization = `Bearer ${METRICS_TOKEN}`;
    headers.origin = 'http://evil.example';
    headers['sec-fetch-site'] = 'cross-site';
    headers['content-type'] = 'application/x-www-form-urlencoded';
    const hasBody = method !== 'GET' && method !== 'HEAD';
    return { url: `${url}${url.includes('?') ? '&' : '?'}dir=${encodeURIComponent(FOLDER)}`, headers, payload: hasBody ? `path=${encodeURIComponent(FOLDER)}&folder=${encodeURIComponent(FOLDER)}` : undefined };
  }
  const hasBody = method !== 'GET' && method !== 'HEAD';
  if (hasBody) headers['content-type'] = 'application/json';
  return { url: `${url}?dir=${encodeURIComponent(FOLDER)}&cmd=queue_count`, headers, payload: hasBody ? sonarr : undefined };
}

/** The right credential for a route, sent as an arr app or a script would (no browser headers). */
function rightful(route: RouteEntry): { url: string; headers: Record<string, string> } {
  const url = route.url.replace(':secret', SECRET).replace(':drive', 'drive0').replace(':name', 'sonarr');
  const headers: Record<string, string> = {};
  if (route.access === 'basic') headers.authorization = basic(USER, PASSWORD);
  if (route.access === 'bearer') headers.authorization = `Bearer ${METRICS_TOKEN}`;
  return { url, headers };
}

const autoscanOn = (): Config['AUTOSCAN'] => configSchema().parse({ AUTOSCAN: { ENABLED: true, USER, PASSWORD } }).AUTOSCAN as Config['AUTOSCAN'];

/** Where the routes live: every request goes through inject, but a stream (the live feed) over a real socket. */
interface Sent {
  statusCode: number;
  body: string;
}
async function send(t: TestService, base: string, method: string, url: string, headers: Record<string, string>, payload?: string): Promise<Sent> {
  if (!url.includes('/events')) return t.service.app.inject({ method: method as 'GET', url, headers, payload });
  // The feed never ends: its status line is the answer; the socket is closed after it.
  return new Promise((resolve, reject) => {
    const req = request(`${base}${url}`, { method, headers }, (res) => {
      resolve({ statusCode: res.statusCode ?? 0, body: '' });
      res.destroy();
    });
    req.on('error', reject);
    req.end(payload);
  });
}

const CASES: { name: string; config: Partial<Config> }[] = [
  { name: 'AUTOSCAN off, manual scan on', config: { SERVER_ALLOW_MANUAL_SCAN: true } },
  { name: 'AUTOSCAN off, manual scan off', config: { SERVER_ALLOW_MANUAL_SCAN: false } },
  {
    name: 'AUTOSCAN on, manual scan on, /metrics with a token',
    config: { SERVER_ALLOW_MANUAL_SCAN: true, SERVER_METRICS_TOKEN: METRICS_TOKEN, AUTOSCAN: autoscanOn() },
  },
  {
    name: 'AUTOSCAN on, manual scan off',
    config: { SERVER_ALLOW_MANUAL_SCAN: false, AUTOSCAN: autoscanOn() },
  },
];

describe.each(CASES)('the route table, $name', ({ config }) => {
  it('nothing but a public route answers 2xx/3xx without its credential, or to a cross-site form; nothing is queued or sent', async () => {
    t = await testService({ config: { ...config, SERVER_SCAN_DELAY: 0 } });
    t.plex.sections.push({ key: '9', title: 'TV', locations: ['/data/media/TV'] });
    const base = await t.service.listen(0, '127.0.0.1');
    const table = t.service.app.routeTable;
    // The table is what the app serves: the webhook route and (with AUTOSCAN) the Basic-auth ones are in it.
    expect(table.some((r) => r.url === '/:secret' && r.method === 'POST')).toBe(true);
    expect(table.some((r) => r.access === 'basic')).toBe(config.AUTOSCAN !== undefined);
    expect(table.find((r) => r.url === '/metrics')?.access).toBe(config.SERVER_METRICS_TOKEN ? 'bearer' : 'public');
    const before = t.plex.requests.length;
    let tried = 0;
    for (const route of table) {
      for (const method of METHODS) {
        for (const kind of ['none', 'wrong', 'cross-site'] as const) {
          const a = attempt(route, method, kind);
          const res = await send(t, base, method, a.url, a.headers, a.payload);
          tried++;
          const what = `${method} ${a.url} (${route.access} route ${route.method} ${route.url}, ${kind})`;
          const read = method === 'GET' || method === 'HEAD';
          // A cross-site read that carries the right credential is no threat (the browser keeps the answer from
          // the other site); a cross-site write is, and so is any cross-site request to autoscan's routes, whose
          // GET /triggers/manual?dir= queues a scan with the Basic auth a browser keeps.
          // ('health' in the secret's slot of GET /:secret is GET /health itself: the public route answers.)
          const path = a.url.split('?')[0];
          const publicOne = table.some((r) => r.access === 'public' && r.method === method && r.url === path);
          const allowed = route.access === 'public' || publicOne ? read : kind === 'cross-site' && read && route.access !== 'basic';
          if (!allowed) expect(res.statusCode, what).toBeGreaterThanOrEqual(400);
          expect(res.body, what).not.toContain('Gate Test');
        }
      }
    }
    expect(tried).toBe(table.length * METHODS.length * 3);
    // Nothing was queued, and the processor, given every chance, calls nobody.
    expect(t.service.queue.count()).toBe(0);
    await t.service.processor.drain();
    expect(t.plex.requests.slice(before).filter((r) => r.method !== 'GET' || r.path.includes('refresh'))).toEqual([]);
    expect(t.plex.refreshes).toEqual([]);
  });

  it('each route with its right credential gets past the gate', async () => {
    t = await testService({ config });
    const base = await t.service.listen(0, '127.0.0.1');
    for (const route of t.service.app.routeTable) {
      const r = rightful(route);
      const body = route.method === 'GET' || route.method === 'HEAD' ? undefined : '{}';
      const res = await send(t, base, route.method, r.url, { ...r.headers, ...(body ? { 'content-type': 'application/json' } : {}) }, body);
      const what = `${route.method} ${route.url} (${route.access})`;
      expect(res.statusCode, what).not.toBe(401);
      expect(res.body, what).not.toMatch(/cross-site request refused|unauthorized/);
      // The routes that serve without a body or query answer 2xx outright.
      if (route.method === 'GET' && ['/health', '/favicon.ico', '/', '/metrics', '/:secret/dashboard', '/api/:secret/queue'].includes(route.url)) {
        expect(res.statusCode, what).toBeLessThan(300);
      }
    }
  });
});

describe('a route cannot be added without an access rule', () => {
  it('registering one without config.access stops the start, naming the route', async () => {
    const app = Fastify();
    recordRoutes(app);
    app.get('/health', { config: { access: 'public' } }, async () => 'ok');
    expect(() => app.get('/surprise', async () => 'open')).toThrow(/GET \/surprise has no access rule/);
    await app.close();
  });

  it("a 'secret' route needs a :secret segment to compare", async () => {
    const app = Fastify();
    recordRoutes(app);
    expect(() => app.post('/webhook', { config: { access: 'secret' } }, async () => 'x')).toThrow(/no :secret segment/);
    await app.close();
  });
});

describe('SERVER_PASS cannot be the name of a public route', () => {
  it.each(['health', 'metrics', 'triggers', 'api', 'favicon.ico', 'Health'])('"%s" is refused by the config, with how to get a new one', (pass) => {
    const result = configSchema().safeParse({ SERVER_PASS: pass });
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((i) => i.message).join(' ')).toMatch(/routes of their own.*update-config --new-pass/);
  });
});
