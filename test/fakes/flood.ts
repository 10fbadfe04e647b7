// An answer far larger than any call needs, sent as a real server sends one: streamed at the pace the reader takes
// it (backpressure), chunked or under a Content-Length that may not be the truth. What was handed to the socket
// before the reader hung up says how much of it the reader took.
import type { ServerResponse } from 'node:http';

export interface Flood {
  /** Bytes to send at most. */
  bytes: number;
  /** The Content-Length to announce; unset: chunked, no length said. */
  contentLength?: number;
  /** Wait this long after the headers before the first byte of the body. */
  holdBodyMs?: number;
}

export interface FloodResult {
  /** Body bytes handed to the socket before it closed (or all of them). */
  sent: number;
  /** The reader hung up before the whole flood was sent. */
  cutOff: boolean;
}

/** One buffer written again and again: the sender itself holds no more than 64 KiB, however much it sends. */
const CHUNK = Buffer.alloc(64 * 1024, 'a');

export async function flood(res: ServerResponse, f: Flood): Promise<FloodResult> {
  let closed = false;
  res.on('close', () => (closed = true));
  res.writeHead(200, { 'content-type': 'application/json', ...(f.contentLength === undefined ? {} : { 'content-length': String(f.contentLength) }) });
  res.flushHeaders();
  if (f.holdBodyMs) await new Promise((r) => setTimeout(r, f.holdBodyMs));
  let sent = 0;
  while (!closed && !res.destroyed && sent < f.bytes) {
    const part = CHUNK.subarray(0, Math.min(CHUNK.length, f.bytes - sent));
    const more = res.write(part);
    sent += part.length;
    // Whichever comes first takes the other listener with it: a flood waits thousands of times on one answer.
    if (!more) {
      await new Promise<void>((resume) => {
        const done = () => (res.off('drain', done), res.off('close', done), resume());
        res.on('drain', done).on('close', done);
      });
    }
  }
  const cutOff = closed || res.destroyed || sent < f.bytes;
  // A body shorter than the Content-Length it announced is cut off here too, as the server would.
  if (!cutOff) {
    if (f.contentLength !== undefined && f.contentLength > sent) res.destroy();
    else res.end();
  }
  return { sent, cutOff };
}
