// Run by test/http/answer-heap.test.ts under the production heap flags (HEAP_FLAGS): every answer cap of
// src/answer-caps.ts, an answer of exactly that size in each shape that costs the parser most, served from
// 127.0.0.1 and read as the relay reads it (apiCaller.json over httpFetch). One JSON line per answer: parsed, or
// refused with the reason. A cap whose answer runs the heap out ends this process, which the test sees.
import { createServer } from 'node:http';
import * as caps from '../../src/http/answer-caps.js';
import { apiCaller } from '../../src/http/api-call.js';
import { closeServer, listenLocal } from './net.js';

/** The shapes that cost V8 the most heap per byte (docs/performance.md), and a common answer, each filled to `bytes`. */
export const SHAPES: Record<string, (bytes: number) => Buffer> = {
  objects: (n) => list('{}', n),
  'objects and numbers': (n) => list('{},0.5', n),
  lists: (n) => list('[]', n),
  nested: (n) => Buffer.alloc(n, '['),
  common: (n) => list('{"path":"/tv/Show 12345","title":"Show 12345","tvdbId":123456,"monitored":true,"ratings":{"votes":12,"value":7.5}}', n),
};

function list(entry: string, bytes: number): Buffer {
  const unit = Buffer.byteLength(entry) + 1;
  const count = Math.max(1, Math.floor((bytes - 2) / unit));
  const body = '[' + `${entry},`.repeat(count - 1) + entry;
  return Buffer.from(body.padEnd(bytes - 1, ' ') + ']');
}

const all = Object.values(caps).filter((c): c is caps.AnswerCap => typeof c === 'object' && c !== null && 'bytes' in c);
let body: Buffer = Buffer.alloc(0);
const server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(body));
const base = await listenLocal(server);
const api = apiCaller({ who: 'the answer server', url: base, urlKey: 'its URL', headers: {}, secrets: [], authHint: '', timeoutMs: 600_000 });
for (const size of [...new Set(all.map((c) => c.bytes))].sort((a, b) => a - b)) {
  const cap = all.find((c) => c.bytes === size)!;
  // The arr apps' lists are read entry by entry (api.list), every other answer whole (api.json).
  const readers = size === caps.ARR_HISTORY.bytes ? (['json', 'list'] as const) : (['json'] as const);
  for (const reader of readers) {
    for (const [shape, make] of Object.entries(SHAPES)) {
      body = make(size);
      const outcome = await api[reader]('GET', '/', { cap }).then(
        () => 'parsed',
        (err: Error) => `refused: ${err.message}`,
      );
      body = Buffer.alloc(0);
      process.stdout.write(JSON.stringify({ bytes: size, cap: cap.what, reader, shape, outcome, heapMb: Math.round(process.memoryUsage().heapUsed / 1048576) }) + '\n');
    }
  }
}
await closeServer(server);
