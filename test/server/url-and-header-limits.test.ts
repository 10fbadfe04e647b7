// The findings: a SERVER_PASS over 100 characters was accepted, and then every secret route answered 414 (the
// router's limit on one URL segment); 414 and 431 answers, written by Fastify and Node themselves, lacked the
// security headers. Replayed with real sockets: the pass is refused when the config is loaded (naming the limit and
// the command that writes a new one), one at the limit works, and every answer the server writes itself (414, 431,
// 400 for a URL or a request it cannot read, 503 while closing) carries the headers.
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { configSchema } from '../../src/config/schema.js';
import { MAX_PASS_IN_URL } from '../../src/value-rules.js';
import { createLogger } from '../../src/log/logger.js';
import { buildApp } from '../../src/server/app.js';
import { SECRET, testService, type TestService } from '../support/service.js';

let t: TestService | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

/** What the server writes back to `request` on a fresh socket, read until it closes the socket or 2 s pass. */
function exchange(port: number, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(request));
    let text = '';
    socket.on('data', (d) => {
      text += d.toString('latin1');
    });
    socket.on('error', (err) => (text ? resolve(text) : reject(err)));
    socket.on('close', () => resolve(text));
    setTimeout(() => socket.destroy(), 2_000);
  });
}

const headersOf = (answer: string) =>
  Object.fromEntries(answer.split('\r\n\r\n')[0].split('\r\n').slice(1).map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));

const SECURITY = {
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
};

describe('answers the server writes itself carry the security headers', () => {
  it.each([
    ['414: a path segment over the router limit', () => `GET /${'a'.repeat(MAX_PASS_IN_URL + 1)}/dashboard HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`, 414],
    ['414 on the webhook route, with a body', () => `POST /${'b'.repeat(500)} HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}`, 414],
    ['431: headers over what Node reads', () => `GET /health HTTP/1.1\r\nHost: x\r\nX-Big: ${'c'.repeat(20_000)}\r\n\r\n`, 431],
    ['400: a URL that cannot be decoded', () => `GET /%E0%A4%A/dashboard HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`, 400],
    ['400: a request that is not HTTP', () => `GARBAGE\r\n\r\n`, 400],
  ])('%s', async (_what, request, status) => {
    t = await testService();
    const port = Number(new URL(await t.service.listen(0, '127.0.0.1')).port);
    const answer = await exchange(port, request());
    expect(answer.slice(0, 12), answer.slice(0, 300)).toBe(`HTTP/1.1 ${status}`);
    expect(headersOf(answer), answer.slice(0, 300)).toMatchObject(SECURITY);
    // Nothing of the refused URL or header is echoed back whole.
    expect(answer.length).toBeLessThan(1_000);
  });
});

describe('the 503 Fastify writes while the server closes', () => {
  it('carries the security headers too', async () => {
    t = await testService({ config: { SERVER_SCAN_DELAY: 3600 } });
    const port = Number(new URL(await t.service.listen(0, '127.0.0.1')).port);
    const socket = connect(port, '127.0.0.1');
    let text = '';
    socket.on('data', (d) => (text += d.toString()));
    await new Promise((r) => socket.on('connect', r));
    // A request under way keeps its connection through the shutdown; the one pipelined after it meets the closing server.
    socket.write(`POST /${SECRET} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n`);
    await new Promise((r) => setTimeout(r, 100));
    const closing = t.service.app.close();
    await new Promise((r) => setTimeout(r, 50));
    socket.write('{}GET /health HTTP/1.1\r\nHost: x\r\n\r\n');
    await closing;
    await new Promise((r) => (socket.closed ? r(undefined) : socket.on('close', r)));
    const answer = text.slice(text.indexOf('HTTP/1.1 503'));
    expect(answer.slice(0, 12), text).toBe('HTTP/1.1 503');
    expect(headersOf(answer)).toMatchObject(SECURITY);
  });
});

describe('SERVER_PASS fits the URL segment it is sent in', () => {
  const refusal = (pass: string) => configSchema().safeParse({ SERVER_PASS: pass }).error?.issues.map((i) => i.message).join(' ');

  it(`over ${MAX_PASS_IN_URL} characters as a URL spells them is refused by the config, naming the limit and the command`, () => {
    expect(refusal('p'.repeat(MAX_PASS_IN_URL + 1))).toMatch(/at most 100 characters as written in a URL.*scanrelay update-config --new-pass/);
    // Percent-encoding counts: 40 characters of "é" are 240 in the URL.
    expect(refusal('é'.repeat(40))).toMatch(/at most 100 characters/);
    expect(refusal('p'.repeat(MAX_PASS_IN_URL))).toBeUndefined();
  });

  it('a service built in code with such a pass does not start', async () => {
    const logger = createLogger({ level: 'error', console: null });
    await expect(buildApp({ secret: 'q'.repeat(MAX_PASS_IN_URL + 1), logger } as never)).rejects.toThrow(/SERVER_PASS cannot be used: it is 101 characters long in a URL, and at most 100 fit.*update-config --new-pass/);
  });

  it(`a pass of exactly ${MAX_PASS_IN_URL} characters reaches the webhook route and the dashboard`, async () => {
    const pass = `${'0123456789'.repeat(MAX_PASS_IN_URL / 10)}`;
    t = await testService({ config: { SERVER_PASS: pass, SERVER_SCAN_DELAY: 3600 } });
    const base = await t.service.listen(0, '127.0.0.1');
    const hook = await fetch(`${base}/${pass}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'eventType=Manual&filepath=/mnt/unionfs/Media/tv/S/e.mkv' });
    expect(hook.status).toBe(200);
    expect((await fetch(`${base}/${pass}/dashboard`)).status).toBe(200);
  });
});
