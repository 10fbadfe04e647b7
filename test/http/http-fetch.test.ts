// src/http/fetch.ts against a real server on 127.0.0.1: what scanrelay's callers read from fetch (status, text,
// JSON, headers, body cancel), what they send (JSON strings, forms), redirects, and fetch's error shapes, which
// the targets turn into "unreachable" and "no answer within" messages.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpFetch, RedirectRefused, staysHome } from '../../src/http/fetch.js';
import { closeServer, freePort, listenLocal } from '../support/net.js';

let server: Server;
let base: string;
const seen: { method: string; url: string; headers: IncomingMessage['headers']; body: string }[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (d: string) => (body += d));
    req.on('end', () => {
      seen.push({ method: req.method!, url: req.url!, headers: req.headers, body });
      const url = new URL(req.url!, 'http://x');
      if (url.pathname === '/json') return res.writeHead(200, { 'content-type': 'application/json', 'x-plex': 'a' }).end('{"MediaContainer":{"size":1}}');
      if (url.pathname === '/refused') return res.writeHead(401, 'Unauthorized').end('token refused');
      if (url.pathname === '/empty') return res.writeHead(204).end();
      if (url.pathname === '/moved') return res.writeHead(302, { location: '/json?from=moved' }).end();
      if (url.pathname === '/see-other') return res.writeHead(303, { location: '/echo' }).end();
      if (url.pathname === '/slow') return setTimeout(() => res.end('late'), 2_000);
      if (url.pathname === '/big') return res.end('x'.repeat(1_000_000));
      if (url.pathname === '/trickle') {
        res.writeHead(200).write('part');
        return setTimeout(() => res.end('rest'), 2_000);
      }
      res.writeHead(200, { 'content-type': 'text/plain' }).end(`${req.method} ${body}`);
    });
  });
  base = await listenLocal(server);
});
afterAll(() => closeServer(server));

describe('httpFetch', () => {
  it('reads status, headers and a JSON body', async () => {
    const res = await httpFetch(`${base}/json`, { headers: { 'X-Plex-Token': 'tok', Accept: 'application/json' } });
    expect([res.ok, res.status]).toEqual([true, 200]);
    expect(res.headers.get('x-plex')).toBe('a');
    expect(await res.json()).toEqual({ MediaContainer: { size: 1 } });
    const sent = seen.at(-1)!;
    expect([sent.method, sent.headers['x-plex-token'], sent.headers.accept]).toEqual(['GET', 'tok', 'application/json']);
  });

  it('sends a JSON string and a form with their lengths and types', async () => {
    const json = await httpFetch(`${base}/echo`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ path: '/tv/Show — S01' }) });
    expect(await json.text()).toBe('POST {"path":"/tv/Show — S01"}');
    expect(seen.at(-1)!.headers['content-length']).toBe(String(Buffer.byteLength('{"path":"/tv/Show — S01"}')));
    const form = await httpFetch(`${base}/echo`, { method: 'POST', body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: 'r t' }) });
    expect(await form.text()).toBe('POST grant_type=refresh_token&refresh_token=r+t');
    expect(seen.at(-1)!.headers['content-type']).toBe('application/x-www-form-urlencoded;charset=UTF-8');
  });

  it('a refusal is a response, not an error; 204 has no body', async () => {
    const res = await httpFetch(`${base}/refused`);
    expect([res.ok, res.status, res.statusText, await res.text()]).toEqual([false, 401, 'Unauthorized', 'token refused']);
    const empty = await httpFetch(`${base}/empty`, { method: 'PUT' });
    expect([empty.status, empty.body]).toEqual([204, null]);
  });

  it('follows redirects like fetch: 302 keeps GET, 303 turns a POST into a GET without its body', async () => {
    const moved = await httpFetch(`${base}/moved`);
    expect(await moved.json()).toEqual({ MediaContainer: { size: 1 } });
    expect(seen.at(-1)!.url).toBe('/json?from=moved');
    const other = await httpFetch(`${base}/see-other`, { method: 'POST', body: 'payload' });
    expect(await other.text()).toBe('GET ');
  });

  it('a body left unread can be cancelled, and the next call still works', async () => {
    const res = await httpFetch(`${base}/big`);
    await res.body?.cancel();
    expect((await httpFetch(`${base}/json`)).status).toBe(200);
  });

  it('a refused connection rejects as fetch does: TypeError "fetch failed" with the socket error as cause', async () => {
    const port = await freePort();
    const err = await httpFetch(`http://127.0.0.1:${port}/`).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TypeError);
    expect((err as Error).message).toBe('fetch failed');
    expect((err as { cause: { code: string } }).cause.code).toBe('ECONNREFUSED');
  });

  it('a timeout rejects with the signal reason (TimeoutError), an abort with AbortError', async () => {
    const timedOut = await httpFetch(`${base}/slow`, { signal: AbortSignal.timeout(100) }).catch((e: unknown) => e);
    expect((timedOut as Error).name).toBe('TimeoutError');
    // The signal fires while the body is still on its way: the body's read rejects with the reason too.
    const trickle = await httpFetch(`${base}/trickle`, { signal: AbortSignal.timeout(150) }).catch((e: unknown) => e);
    expect((trickle as Error).name).toBe('TimeoutError');
    const controller = new AbortController();
    controller.abort();
    const aborted = await httpFetch(`${base}/json`, { signal: controller.signal }).catch((e: unknown) => e);
    expect((aborted as Error).name).toBe('AbortError');
  });
});

describe('httpFetch redirects: tokens stay home', () => {
  let other: Server;
  let otherBase: string;
  const reached: IncomingMessage['headers'][] = [];
  beforeAll(async () => {
    other = createServer((req, res) => {
      reached.push(req.headers);
      res.end('elsewhere');
    });
    otherBase = await listenLocal(other);
  });
  afterAll(() => closeServer(other));

  it('a redirect to another port is not followed: RedirectRefused names the Location, the other server sees nothing', async () => {
    const hop = createServer((req, res) => res.writeHead(302, { location: `${otherBase}/library/sections/1/refresh?path=/tv&X-Plex-Token=echo` }).end());
    const hopBase = await listenLocal(hop);
    try {
      const err = await httpFetch(`${hopBase}/library/sections/1/refresh`, { headers: { 'X-Plex-Token': 'tok', authorization: 'Bearer b' } }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(RedirectRefused);
      const refused = err as RedirectRefused;
      expect(refused.location).toBe(`${otherBase}/library/sections/1/refresh`); // its query (an echo) left out
      expect(refused.why).toBe('another server');
      expect(refused.suggestedBase('/library/sections/1/refresh')).toBe(otherBase);
      expect(reached).toEqual([]);
    } finally {
      await closeServer(hop);
    }
  });

  it('a same-origin redirect is followed once with the token; a second one is refused', async () => {
    const before = seen.length;
    const moved = await httpFetch(`${base}/moved`, { headers: { 'X-Plex-Token': 'tok' } });
    expect(moved.status).toBe(200);
    expect(seen.slice(before).map((s) => [s.url, s.headers['x-plex-token']])).toEqual([
      ['/moved', 'tok'],
      ['/json?from=moved', 'tok'],
    ]);
    const loop = createServer((req, res) => res.writeHead(307, { location: req.url === '/a' ? '/b' : '/c' }).end());
    const loopBase = await listenLocal(loop);
    try {
      const err = await httpFetch(`${loopBase}/a`).catch((e: unknown) => e);
      expect((err as RedirectRefused).why).toBe('a second redirect');
    } finally {
      await closeServer(loop);
    }
  });

  it('home is the same origin, or http -> https on the same host and port; never a downgrade or another host', () => {
    const home = (a: string, b: string) => staysHome(new URL(a), new URL(b));
    expect(home('http://plex:32400/a', 'http://plex:32400/b')).toBe(true);
    expect(home('http://plex:32400/a', 'https://plex:32400/a')).toBe(true);
    expect(home('http://plex/a', 'https://plex/a')).toBe(true);
    expect(home('https://plex:32400/a', 'http://plex:32400/a')).toBe(false);
    expect(home('http://plex:32400/a', 'http://plex:32401/a')).toBe(false);
    expect(home('http://plex:32400/a', 'https://plex.direct:32400/a')).toBe(false);
    expect(home('http://plex/a', 'https://plex:8443/a')).toBe(false);
  });
});
