// Issue 52, finding 4: clients of /<SERVER_PASS>/events that never read, on a real socket on 127.0.0.1, while the
// feed is busy: each is dropped once what waits for it passes the bound, one WARN for all of them, and a client
// that reads keeps its stream.
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_UNSENT_BYTES } from '../../src/server/live.js';
import { SECRET, testService, type TestService } from '../support/service.js';
import { until } from '../support/until.js';

let t: TestService | undefined;
const sockets: Socket[] = [];
afterEach(async () => {
  sockets.forEach((s) => s.destroy());
  await t?.close();
  t = undefined;
});

/** A client that asks for the stream; it reads nothing unless `reads`, and says when the relay closed it. */
function client(base: string, reads: boolean): { socket: Socket; closed: () => boolean; bytes: () => number } {
  const url = new URL(base);
  let closed = false;
  let bytes = 0;
  const socket = connect(Number(url.port), '127.0.0.1', () => socket.write(`GET /${SECRET}/events HTTP/1.1\r\nHost: ${url.host}\r\n\r\n`));
  sockets.push(socket);
  if (reads) socket.on('data', (c) => (bytes += c.length));
  else socket.pause();
  socket.on('close', () => (closed = true));
  socket.on('error', () => (closed = true));
  return { socket, closed: () => closed, bytes: () => bytes };
}

describe('a live stream whose client does not read', () => {
  it('is dropped past its bound, one WARN for all; a client that reads keeps its stream', async () => {
    t = await testService();
    const base = await t.service.listen(0, '127.0.0.1');
    const stalled = Array.from({ length: 4 }, () => client(base, false));
    const reader = client(base, true);
    await until(() => reader.bytes() > 0);
    const server = t.service;
    await until(() => server.activity.listenerCount('queued') >= 5);
    const listening = server.activity.listenerCount('queued');
    const folder = `/data/media/tv/${'x'.repeat(16 * 1024)}`;
    // What each stalled client would otherwise hold: 32 MB each, far past what the kernel buffers for it. One event
    // a turn, as webhooks come: the client that reads keeps up.
    for (let i = 0; i < 2000; i++) {
      server.activity.emit('queued', { folder, merged: false, source: 'sonarr', event: 'Download' });
      await new Promise((r) => setImmediate(r));
    }
    const warns = () => t!.logs.flatMap((l) => l.split('\n').filter(Boolean)).map((l) => JSON.parse(l) as { level: string; msg: string }).filter((l) => l.level === 'warn' && l.msg.includes('/events'));
    await until(() => warns().length > 0 && server.activity.listenerCount('queued') === listening - 4);
    expect(warns()).toHaveLength(1);
    expect(warns()[0].msg).toMatch(new RegExp(`^Dropped a live stream of the dashboard \\(/events\\) whose client did not read it: ${MAX_UNSENT_BYTES} bytes`));
    expect(reader.closed()).toBe(false);
    await until(() => reader.bytes() > 2000 * 16 * 1024);
  });
});
