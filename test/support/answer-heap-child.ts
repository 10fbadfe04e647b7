// Run by test/http/answer-heap.test.ts under the production heap flags (HEAP_FLAGS): every answer cap of
// src/http/answer-caps.ts, an answer of exactly that size in each shape that costs the parser most, served from
// 127.0.0.1 and read as the relay reads it (apiCaller over httpFetch): whole (json), or in pieces (list) for the caps
// that say so, keeping every entry (the heaviest keep: an arr history page) and, for the library lists, only each
// entry's folder (the arr library's readers). One JSON line per answer: parsed, or refused with the reason. A cap
// whose answer runs the heap out ends this process, which the test sees.
import { createServer } from 'node:http';
import * as caps from '../../src/http/answer-caps.js';
import { apiCaller } from '../../src/http/api-call.js';
import { closeServer, listenLocal } from './net.js';

const PAGE = '{"page":1,"pageSize":500,"sortKey":"date","totalRecords":1,"records":';

/**
 * The shapes that cost V8 the most heap per byte (docs/performance.md), and a common answer, each filling `into`
 * (the answer's exact size) in place: spelled out as a string first, an answer of the largest cap cost more to make
 * than to read.
 */
export const SHAPES: Record<string, (into: Buffer) => void> = {
  objects: (b) => list('{}', b),
  'objects and numbers': (b) => list('{},0.5', b),
  lists: (b) => list('[]', b),
  nested: (b) => void b.fill('['),
  common: (b) => list('{"path":"/tv/Show 12345","title":"Show 12345","tvdbId":123456,"monitored":true,"ratings":{"votes":12,"value":7.5}}', b),
  // An arr app's history page ({page, …, records}) whose records are the costliest shape.
  'page of objects': (b) => {
    b.write(PAGE);
    list('{}', b.subarray(PAGE.length, b.length - 1));
    b.write('}', b.length - 1);
  },
};

export type Reader = 'whole' | 'pieces, all kept' | 'pieces, folder kept';
/** How the relay reads each cap's answers: the library lists keeping each entry's folder, a history page every record. */
const readersOf = (cap: caps.AnswerCap): Reader[] => (!cap.pieces ? ['whole'] : cap.heap ? ['pieces, all kept'] : ['pieces, folder kept', 'pieces, all kept']);
const folder = (e: unknown) => (typeof e === 'object' && e !== null && typeof (e as { path?: unknown }).path === 'string' ? (e as { path: string }).path : undefined);

/** `[entry,entry,…,entry]` padded with spaces to fill `into`. */
function list(entry: string, into: Buffer): void {
  const unit = Buffer.byteLength(entry) + 1;
  const count = Math.max(1, Math.floor((into.length - 2) / unit));
  const end = count * unit;
  into.write('[');
  // The entry and its comma repeated, the last comma left out.
  into.fill(`${entry},`, 1, end);
  into.fill(' ', end, into.length - 1);
  into.write(']', into.length - 1);
}

const all = Object.values(caps).filter((c): c is caps.AnswerCap => typeof c === 'object' && c !== null && 'bytes' in c);
// One buffer, as large as the largest answer so far, each answer made in its first bytes: the answers are asked in
// growing sizes, and a fresh buffer per answer would cost its pages again each time.
let room = Buffer.alloc(0);
let body: Buffer = room;
// Each answer on a connection of its own: a reading refused after the server's keep-alive ran out meets no reset.
const server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json', connection: 'close' }).end(body));
const base = await listenLocal(server);
const api = apiCaller({ who: 'the answer server', url: base, urlKey: 'its URL', headers: {}, secrets: [], authHint: '', timeoutMs: 600_000 });
// Each size once for the caps read whole; each cap read in pieces on its own (its heap and its readers are its own).
const whole = [...new Set(all.filter((c) => !c.pieces).map((c) => c.bytes))].map((bytes) => all.find((c) => !c.pieces && c.bytes === bytes)!);
for (const cap of [...whole, ...all.filter((c) => c.pieces)].sort((a, b) => a.bytes - b.bytes)) {
  const size = cap.bytes;
  for (const [shape, make] of Object.entries(SHAPES)) {
    // A page's shape is asked only of the caps that are pages (their heap is their own); elsewhere it is `objects`.
    if (shape === 'page of objects' && !cap.heap) continue;
    // Read in pieces, `[{},0.5,…]` is the costliest of the three flat shapes both in time and in what is kept
    // (docs/performance.md's table): the other two add 128 MiB reads that find nothing it does not.
    if (cap.pieces && !cap.heap && (shape === 'objects' || shape === 'lists')) continue;
    if (room.length < size) room = Buffer.allocUnsafeSlow(size);
    body = room.subarray(0, size);
    make(body);
    // A nesting too deep is refused by the walk before any entry is kept: one reader shows it for every reader.
    for (const reader of shape === 'nested' ? readersOf(cap).slice(0, 1) : readersOf(cap)) {
      const started = performance.now();
      const read = reader === 'whole' ? api.json('GET', '/', { cap }) : api.list('GET', '/', { cap, keep: reader === 'pieces, folder kept' ? folder : undefined });
      // The heap measured while what was parsed is still held.
      let heapMb = 0;
      const outcome = await read.then(
        () => ((heapMb = Math.round(process.memoryUsage().heapUsed / 1048576)), 'parsed'),
        (err: Error) => ((heapMb = Math.round(process.memoryUsage().heapUsed / 1048576)), `refused: ${err.message}`),
      );
      const ms = Math.round(performance.now() - started);
      process.stdout.write(JSON.stringify({ bytes: size, cap: cap.what, reader, shape, outcome, heapMb, ms }) + '\n');
    }
  }
}
await closeServer(server);
