// The finding: the server closed an idle keep-alive connection after 10 s, while the arr apps keep one in their
// pool for 60 s (.NET's SocketsHttpHandler; Sonarr sets no PooledConnectionIdleTimeout). A webhook sent on a
// pooled connection as the server closed it was reset, and the apps never retry a webhook. Replayed on real
// sockets: with the production limits, an answered connection's idle timer is past every client's pool; with the
// same limits scaled down 100-fold, a request on a pooled connection at the old boundary is answered, and an idle
// connection is still closed in the end.
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { connectionLimits } from '../../src/server/app.js';
import type { ConnectionLimits } from '../../src/server/deps.js';
import { SECRET, testService, type TestService } from '../support/service.js';

/** Node keeps an answered socket this much past keepAliveTimeout (lib/_http_server.js), and does not scale it. */
const NODE_BUFFER_MS = 1_000;
/** The longest a client keeps an idle connection: Go's default transport (.NET 6+: 60 s; .NET Core and 5: 120 s). */
const GO_POOL_MS = 90_000;
const OLD_KEEP_ALIVE_MS = 10_000;

let t: TestService | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

/** A client's pooled connection: requests written one after another on one socket, answers read as they come. */
function pooled(port: number): Promise<{ socket: Socket; send: (request: string) => Promise<string>; closedAt: () => number | undefined }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => resolve({ socket, send, closedAt: () => closed }));
    let closed: number | undefined;
    let text = '';
    let waiting: ((answer: string) => void) | undefined;
    socket.on('data', (d) => {
      text += d.toString();
      const end = text.indexOf('\r\n\r\n');
      const length = Number(/content-length: (\d+)/i.exec(text)?.[1] ?? 0);
      if (end >= 0 && text.length >= end + 4 + length) {
        const answer = text.slice(0, end + 4 + length);
        text = text.slice(answer.length);
        waiting?.(answer);
      }
    });
    socket.on('close', () => {
      closed = Date.now();
      waiting?.('');
    });
    socket.on('error', reject);
    const send = (request: string) =>
      new Promise<string>((answered) => {
        waiting = answered;
        if (closed !== undefined || socket.destroyed) return answered('');
        socket.write(request);
      });
  });
}

const webhook = (i: number) => {
  const body = `eventType=Manual&filepath=/mnt/unionfs/Media/tv/Pooled/Season 01/e${i}.mkv`;
  return `POST /${SECRET} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('a pooled keep-alive connection', () => {
  it('production limits: the server keeps an answered connection past every client pool (Go 90 s, .NET 60 s)', async () => {
    t = await testService({ config: { SERVER_SCAN_DELAY: 3600 } as never });
    const server = t.service.app.server;
    expect(server.keepAliveTimeout).toBe(connectionLimits.keepAliveMs);
    expect(server.keepAliveTimeout).toBeGreaterThan(GO_POOL_MS);
    // Silence inside a request is still cut at 30 s, headers at 15 s, a whole request at 30 s.
    expect([server.timeout, server.headersTimeout, server.requestTimeout]).toEqual([30_000, 15_000, 30_000]);
    // The socket's own idle timer once answered: the keep-alive one replaces server.timeout, so 30 s of idle
    // socket does not cut it earlier.
    const accepted: Socket[] = [];
    server.on('connection', (s: Socket) => accepted.push(s));
    const port = Number(new URL(await t.service.listen(0, '127.0.0.1')).port);
    const client = await pooled(port);
    expect(await client.send(webhook(1))).toMatch(/^HTTP\/1\.1 200 .*[\s\S]*keep-alive: timeout=125/i);
    expect(accepted).toHaveLength(1);
    expect(accepted[0].timeout).toBe(server.keepAliveTimeout + NODE_BUFFER_MS);
    expect(accepted[0].timeout).toBeGreaterThan(GO_POOL_MS);
    // A shutdown does not wait for it: idle connections are closed at once (SIGTERM ends within 10 s).
    const started = Date.now();
    await t.close();
    t = undefined;
    expect(Date.now() - started).toBeLessThan(5_000);
    while (client.closedAt() === undefined && Date.now() - started < 5_000) await sleep(10);
    expect(client.closedAt()).toBeDefined();
  });

  it('production limits scaled down 100-fold: a webhook at the old 10 s boundary is answered on the same connection; idle ones still close', async () => {
    const scale = 100;
    const limits = Object.fromEntries(Object.entries(connectionLimits).map(([k, v]) => [k, v / scale])) as unknown as ConnectionLimits;
    t = await testService({ config: { SERVER_SCAN_DELAY: 3600 } as never, limits });
    const port = Number(new URL(await t.service.listen(0, '127.0.0.1')).port);
    const client = await pooled(port);
    expect(await client.send(webhook(1))).toMatch(/^HTTP\/1\.1 200 /);
    // Where the old limit closed it (10 s scaled, plus Node's second), and past the scaled idle (300 ms) and
    // header (150 ms) limits: the connection is still open, and the webhook on it is answered.
    const oldBoundary = OLD_KEEP_ALIVE_MS / scale + NODE_BUFFER_MS;
    await sleep(oldBoundary + 150);
    expect(client.closedAt()).toBeUndefined();
    // The server's idle timer starts between the request going out and its answer arriving: from the first the
    // idle time is at least the limit, from the second at most the limit (and the timer's slack), however busy the machine.
    const sentAt = Date.now();
    expect(await client.send(webhook(2))).toMatch(/^HTTP\/1\.1 200 /);
    expect(t.service.queue.count()).toBe(1);
    expect(t.service.queue.get('/data/media/tv/Pooled/Season 01')!.requests).toBe(2);
    // Left idle, it is closed at the (scaled) keep-alive limit: no socket is held for ever.
    const idleFrom = Date.now();
    while (client.closedAt() === undefined && Date.now() - idleFrom < 5_000) await sleep(20);
    expect(client.closedAt()! - sentAt).toBeGreaterThanOrEqual(limits.keepAliveMs + NODE_BUFFER_MS - 5);
    expect(client.closedAt()! - idleFrom).toBeLessThan(limits.keepAliveMs + NODE_BUFFER_MS + 500);
  });
});
