// Limits: body size (a full-season Sonarr import fits, over 1 MiB is 413), header and idle timeouts (a slow client
// cannot hold the service; raw net sockets against a listening server), concurrent duplicates -> one folder.
import { connect, type Socket } from 'node:net';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ownFixture } from '../support/fixtures.js';
import { BODY_LIMIT, connectionLimits } from '../../src/server/app.js';
import { leakedSecrets } from '../support/log-audit.js';
import { SECRET, serviceLogs, testService, type TestService } from '../support/service.js';

let t: TestService;
let url = '';
beforeEach(async () => {
  t = await testService({ config: { SERVER_SCAN_DELAY: 3600 } as never });
  url = await t.service.listen(0, '127.0.0.1');
});
afterEach(async () => {
  await t.close();
});
afterAll(() => expect(leakedSecrets(serviceLogs())).toEqual([]));

const port = () => Number(new URL(url).port);
function rawSocket(): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const s = connect(port(), '127.0.0.1', () => resolve(s));
    s.on('error', reject);
  });
}
const closed = (s: Socket) => new Promise<number>((r) => { const t0 = Date.now(); s.on('close', () => r(Date.now() - t0)); });

describe('limits', () => {
  it('a Sonarr import of a full season (and a 10-season pack) is accepted; a body over 1 MiB is 413, not 5xx', async () => {
    const season = ownFixture<Record<string, unknown>>('arr/sonarr-importcomplete-24.json');
    const res = await fetch(`${url}/${SECRET}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(season) });
    expect(res.status).toBe(200);
    expect(JSON.stringify(season).length * 10).toBeLessThan(BODY_LIMIT);
    // A 10-season pack of 30 episodes each with long release names: over half a megabyte of JSON.
    const files = Array.from({ length: 300 }, (_, i) => ({
      id: i,
      path: `/mnt/unionfs/Media/tv/Big Show/Season ${Math.floor(i / 30) + 1}/Big Show - E${i} - ${'Long Title '.repeat(150)}.mkv`,
      sceneName: 'x'.repeat(500),
    }));
    const pack = { eventType: 'Download', series: { path: '/mnt/unionfs/Media/tv/Big Show' }, episodeFiles: files };
    const body = JSON.stringify(pack);
    expect(body.length).toBeGreaterThan(500_000);
    const before = t.service.queue.count();
    const big = await fetch(`${url}/${SECRET}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    expect(big.status).toBe(200);
    expect(t.service.queue.count()).toBe(before + 10);
    expect(BODY_LIMIT).toBe(1024 * 1024);
    const tooBig = await fetch(`${url}/${SECRET}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":"' + 'x'.repeat(BODY_LIMIT) + '"}' });
    expect(tooBig.status).toBe(413);
    expect(await tooBig.json()).toEqual({ error: 'request body too large' });
    expect(t.service.queue.count()).toBe(before + 10);
  });

  it('the production limits: request 30 s, headers 15 s, silence 30 s, keep-alive 125 s (test/fault/keep-alive.test.ts), checked every second', () => {
    const server = t.service.app.server;
    expect(server.requestTimeout).toBe(30_000);
    expect(server.headersTimeout).toBe(15_000);
    expect(server.timeout).toBe(30_000);
    expect(server.keepAliveTimeout).toBe(125_000);
    expect(connectionLimits.checkEveryMs).toBe(1_000);
  });

  describe('a slow client is cut off (limits shortened 100x so the test watches it happen)', () => {
    let fast: TestService;
    let fastPort = 0;
    const limits = { requestMs: 300, headersMs: 150, idleMs: 300, keepAliveMs: 100, checkEveryMs: 25 };
    beforeEach(async () => {
      fast = await testService({ config: { SERVER_SCAN_DELAY: 3600 } as never, limits });
      fastPort = Number(new URL(await fast.service.listen(0, '127.0.0.1')).port);
    });
    afterEach(async () => {
      await fast.close();
    });
    const open = () =>
      new Promise<Socket>((resolve, reject) => {
        const s = connect(fastPort, '127.0.0.1', () => resolve(s));
        s.on('error', reject);
      });
    const answer = (s: Socket) => {
      let text = '';
      s.on('data', (d) => (text += d.toString()));
      return () => text;
    };

    it('headers trickled one byte at a time: 408 and closed within the header limit', async () => {
      const s = await open();
      const got = answer(s);
      const gone = closed(s);
      const head = `POST /${SECRET} HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: `;
      s.write(head);
      const drip = setInterval(() => s.writable && s.write('a'), 20);
      const ms = await gone;
      clearInterval(drip);
      expect(ms).toBeLessThan(150 + 25 * 4 + 200);
      expect(got()).toMatch(/^HTTP\/1\.1 408/);
    });

    it('a body that never finishes: closed within the request limit, and nothing is queued', async () => {
      const s = await open();
      const got = answer(s);
      const gone = closed(s);
      s.write(`POST /${SECRET} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 5000\r\n\r\n{"eventType":"Download",`);
      const ms = await gone;
      expect(ms).toBeLessThan(300 + 25 * 4 + 200);
      // Node answers 408 when it can; once the body is being read it may just close the socket.
      expect(got() === '' || got().startsWith('HTTP/1.1 408 '), got()).toBe(true);
      expect(fast.service.queue.count()).toBe(0);
    });

    it('a connection that sends nothing gets 408 and is closed after the header limit', async () => {
      const s = await open();
      const got = answer(s);
      const ms = await closed(s);
      expect(ms).toBeGreaterThanOrEqual(100);
      expect(ms).toBeLessThan(150 + 25 * 4 + 200);
      expect(got()).toMatch(/^HTTP\/1\.1 408/);
    });

    it('a keep-alive socket left idle after its answer is closed (keep-alive limit, plus the second Node adds)', async () => {
      const s = await open();
      const got = answer(s);
      const gone = closed(s);
      s.write('GET /health HTTP/1.1\r\nHost: x\r\n\r\n');
      const ms = await gone;
      expect(got()).toMatch(/^HTTP\/1\.1 200/);
      expect(ms).toBeLessThan(100 + 1_000 + 400);
    });
  });

  it('hundreds of slow clients holding half-sent requests do not stop others being served', async () => {
    const slow: Socket[] = [];
    for (let i = 0; i < 200; i++) {
      const s = await rawSocket();
      s.on('error', () => undefined);
      s.write(`POST /${SECRET} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{"eventType":`);
      slow.push(s);
    }
    const other = await rawSocket();
    other.write('GET /health HTTP/1.1\r\nHost: x\r\n\r\nGET /health HTTP/1');
    other.on('error', () => undefined);
    try {
      const started = Date.now();
      const res = await fetch(`${url}/health`, { signal: AbortSignal.timeout(5_000) });
      expect(res.status).toBe(200);
      expect(Date.now() - started).toBeLessThan(2_000);
      const queued = await fetch(`${url}/${SECRET}`, { method: 'POST', body: 'eventType=Manual&filepath=/mnt/unionfs/Media/tv/Fast/Season 01/e.mkv', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
      expect(queued.status).toBe(200);
    } finally {
      for (const s of [...slow, other]) s.destroy();
    }
  });

  it('many concurrent duplicates of one request queue exactly one folder', async () => {
    const body = JSON.stringify({ eventType: 'Download', series: { path: '/mnt/unionfs/Media/tv/Dup' }, episodeFile: { path: '/mnt/unionfs/Media/tv/Dup/Season 01/Dup - S01E01.mkv' } });
    const results = await Promise.all(
      Array.from({ length: 300 }, () => fetch(`${url}/${SECRET}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body }).then((r) => r.status)),
    );
    expect(results.every((s) => s === 200)).toBe(true);
    expect(t.service.queue.count()).toBe(1);
    expect(t.service.queue.get('/data/media/tv/Dup/Season 01')!.requests).toBe(300);
  });
});
