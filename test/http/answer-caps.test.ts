// src/http/fetch.ts's answer caps against a real server on 127.0.0.1 sending far more than a call needs: 50 MB
// chunked, and a Content-Length of 1.5 GB (the /library/metadata answer that once took the relay to 3.1 GB). The
// read stops at the cap and drops the connection, so the server cannot hand over more than the socket buffers hold,
// and the relay's memory never holds the flood. The notification sockets' frames have their cap too.
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocketServer } from 'ws';
import { NOTIFICATION_FRAME, sizeText, UNSTATED_BYTES } from '../../src/http/answer-caps.js';
import { AnswerTooLarge, httpFetch } from '../../src/http/fetch.js';
import { defaultDial } from '../../src/http/media-socket.js';
import { flood, type FloodResult } from '../fakes/flood.js';
import { peakArrayBuffers } from '../support/memory-peak.js';
import { closeServer, listenLocal } from '../support/net.js';
import { until } from '../support/until.js';

const MiB = 1024 * 1024;
const FLOOD = 50 * 1000 * 1000;
/** What loopback socket buffers may hold beyond the cap when the reader hangs up: the kernel's, not the relay's. */
const SOCKET_SLACK = 16 * MiB;

let server: Server;
let base: string;
const floods: FloodResult[] = [];
const listenersLeft: number[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    const url = new URL(req.url!, 'http://x');
    const size = Number(url.searchParams.get('bytes') ?? FLOOD);
    if (url.pathname === '/flood') return void flood(res, { bytes: size }).then((r) => floods.push(r));
    if (url.pathname === '/listeners') {
      const before = res.listenerCount('close');
      return void flood(res, { bytes: size }).then(() => listenersLeft.push(res.listenerCount('close') - before));
    }
    // 1.5 GB announced, the body held back a moment: a reader that trusts the length would start reading it.
    if (url.pathname === '/announced') return void flood(res, { bytes: FLOOD, contentLength: 1_500_000_000, holdBodyMs: 200 }).then((r) => floods.push(r));
    if (url.pathname === '/exact') return void res.writeHead(200, { 'content-length': String(size) }).end(Buffer.alloc(size, 'b'));
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
  });
  base = await listenLocal(server);
});
afterAll(() => closeServer(server));

describe('the flood itself', () => {
  it('waits on the reader again and again without a listener left behind on the answer (no MaxListenersExceededWarning)', async () => {
    const warnings: Error[] = [];
    const onWarning = (w: Error) => void warnings.push(w);
    process.on('warning', onWarning);
    try {
      const res = await httpFetch(`${base}/listeners?bytes=${20 * MiB}`, { maxBytes: 32 * MiB });
      expect((await res.arrayBuffer()).byteLength).toBe(20 * MiB);
      await until(() => listenersLeft.length === 1);
      // The flood's own "closed" listener, and nothing per wait.
      expect(listenersLeft[0]).toBeLessThanOrEqual(1);
      expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning')).toEqual([]);
    } finally {
      process.off('warning', onWarning);
    }
  });
});

describe('an answer past its cap', () => {
  it('50 MB chunked to a 4 MiB call: rejected near the cap, the connection dropped, the flood never held', async () => {
    floods.length = 0;
    const began = Date.now();
    const { result, peak } = await peakArrayBuffers(() => httpFetch(`${base}/flood`, { maxBytes: 4 * MiB }));
    expect(result.status).toBe('rejected');
    const err = (result as PromiseRejectedResult).reason as AnswerTooLarge;
    expect(err).toBeInstanceOf(AnswerTooLarge);
    expect(err.message).toBe(`the answer to GET ${base}/flood is larger than 4 MiB (cut off there); the connection was dropped`);
    expect(err.declared).toBeUndefined();
    await until(() => floods.length === 1, { what: 'the server to see the reader hang up' });
    // The reader hung up: the server handed over the cap and what the socket buffers took, not 50 MB.
    expect(floods[0].cutOff).toBe(true);
    expect(floods[0].sent).toBeLessThan(4 * MiB + SOCKET_SLACK);
    // Without the cap the chunks (50 MB) and their copy were held at once.
    expect(peak).toBeLessThan(4 * MiB + SOCKET_SLACK);
    expect(Date.now() - began).toBeLessThan(5_000);
  });

  it('a Content-Length over the cap is refused before a byte of the body is read', async () => {
    floods.length = 0;
    const err = (await httpFetch(`${base}/announced`, { maxBytes: 4 * MiB }).catch((e: unknown) => e)) as AnswerTooLarge;
    expect(err).toBeInstanceOf(AnswerTooLarge);
    expect(err.declared).toBe(1_500_000_000);
    expect(err.message).toContain('it announced 1500000000 bytes');
    await until(() => floods.length === 1);
    // The body was held back 200 ms; the reader had hung up before the first byte went.
    expect(floods[0]).toEqual({ sent: 0, cutOff: true });
  });

  it('an answer of exactly the cap is read whole; one byte more is not', async () => {
    const cap = 256 * 1024;
    const whole = await httpFetch(`${base}/exact?bytes=${cap}`, { maxBytes: cap });
    expect((await whole.arrayBuffer()).byteLength).toBe(cap);
    await expect(httpFetch(`${base}/exact?bytes=${cap + 1}`, { maxBytes: cap })).rejects.toBeInstanceOf(AnswerTooLarge);
    floods.length = 0;
    await expect(httpFetch(`${base}/flood?bytes=${cap + 1}`, { maxBytes: cap })).rejects.toThrow(`larger than ${sizeText(cap)}`);
  });

  it('a call that states no cap reads at most UNSTATED_BYTES (1 MiB)', async () => {
    expect((await httpFetch(`${base}/exact?bytes=${UNSTATED_BYTES}`)).status).toBe(200);
    await expect(httpFetch(`${base}/flood?bytes=${UNSTATED_BYTES + 1}`)).rejects.toThrow('larger than 1 MiB');
  });

  it('after a dropped answer the next call to the same server is answered as usual', async () => {
    await expect(httpFetch(`${base}/flood`, { maxBytes: MiB })).rejects.toBeInstanceOf(AnswerTooLarge);
    const res = await httpFetch(`${base}/json`);
    expect(await res.json()).toEqual({ ok: true });
  });
});

describe('a notification frame past its cap', () => {
  it('closes the socket (it is dialled again after its backoff); the frames before it arrive', async () => {
    const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    await new Promise((r) => wss.once('listening', r));
    wss.on('connection', (ws) => {
      ws.send('{"NotificationContainer":{"type":"activity"}}');
      ws.send(Buffer.alloc(NOTIFICATION_FRAME.bytes + 1, 'a').toString());
    });
    try {
      const socket = (await defaultDial())(`ws://127.0.0.1:${(wss.address() as { port: number }).port}/`, {});
      const texts: string[] = [];
      socket.on('text', (text) => texts.push(text));
      const why = await new Promise<string>((r) => socket.on('close', r));
      expect(texts).toEqual(['{"NotificationContainer":{"type":"activity"}}']);
      expect(why).toMatch(/Max payload size exceeded/);
    } finally {
      await new Promise((r) => wss.close(r));
    }
  });
});
