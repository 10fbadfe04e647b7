// The HTTP client every media server, Google and rclone call goes through: fetch's signature and errors, on
// node:http. Node's own fetch (undici) parses responses with a WebAssembly module whose first compile keeps more
// memory than the rest of an idle server's own data (docs/performance.md, "Idle memory").
// node:http and node:https come from process.getBuiltinModule when a request goes out, not from an ES import:
// an ES import of node:http builds its whole namespace, whose WebSocket export loads undici on Node 22 and 24, and
// node:https sets up TLS that a relay calling only http:// servers never uses (measured: docs/performance.md, "Built-ins").
// Every answer is read up to the cap its call states (src/http/answer-caps.ts) and no further.
import type { ClientRequest, IncomingMessage, RequestOptions } from 'node:http';
import { sizeText, UNSTATED_BYTES } from './answer-caps.js';
import { answerOf, HeaderFields } from './answer.js';
import { splitUserinfo } from './url-credentials.js';

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
/** Statuses whose response has no body by definition (a Response refuses one). */
const NO_BODY = new Set([101, 103, 204, 205, 304]);

type Init = NonNullable<Parameters<typeof fetch>[1]>;

/** fetch's options, and the most bytes of the answer to read (`maxBytes`, a cap of src/http/answer-caps.ts). */
export type FetchInit = Init & { maxBytes?: number };
/** fetch's signature with `maxBytes`: what every module that calls a server takes (Node's own fetch fits it too). */
export type Fetch = (input: Parameters<typeof fetch>[0], init?: FetchInit) => Promise<Response>;

/**
 * fetch(url, init) for what scanrelay sends: a method, headers, a string, URLSearchParams or bytes as the body,
 * and a signal. A redirect is followed once, and only when it stays home (see `staysHome`): every caller sends a
 * token (X-Plex-Token, X-Emby-Token, a Bearer) that must never reach another server, and a header list cannot
 * say which of them are secret. Any other redirect rejects with RedirectRefused. A network failure rejects with
 * TypeError('fetch failed') whose cause is the socket's error (code ECONNREFUSED, ENOTFOUND…); an aborted or
 * timed-out signal rejects with the signal's reason (a TimeoutError or AbortError), as fetch does.
 *
 * An answer longer than `maxBytes` (UNSTATED_BYTES when the call states none) rejects with AnswerTooLarge: at
 * once when its Content-Length says so, else as soon as the bytes read pass it; either way the connection is
 * dropped, so the rest is never read. A user and password in the URL are sent as Basic auth (unless the call
 * sends an Authorization of its own) to the URL without them, which is also the answer's `url`.
 */
export const httpFetch: Fetch = async (input, init = {}) => {
  const written = splitUserinfo(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
  let url = new URL(written.url);
  let method = (init.method ?? 'GET').toUpperCase();
  const headers = new HeaderFields(init.headers);
  if (written.authorization && !headers.has('authorization')) headers.set('authorization', written.authorization);
  let body = bodyBytes(init.body, headers);
  const maxBytes = init.maxBytes ?? UNSTATED_BYTES;
  for (let hop = 0; ; hop++) {
    const res = await send(url, method, headers, body, init.signal ?? undefined);
    const location = res.headers.location;
    if (!REDIRECTS.has(res.statusCode ?? 0) || location === undefined || init.redirect === 'manual') return await responseOf(res, { method, signal: init.signal ?? undefined, url, maxBytes });
    res.resume();
    if (init.redirect === 'error') throw new TypeError('fetch failed', { cause: new Error(`redirect to ${location} not followed`) });
    const next = new URL(location, url);
    if (!staysHome(url, next)) throw new RedirectRefused(url, next, 'another server');
    if (hop >= 1) throw new RedirectRefused(url, next, 'a second redirect');
    // A 303, or a 301/302 answering a POST, is followed with a GET and no body (fetch's rule).
    if (res.statusCode === 303 || ((res.statusCode === 301 || res.statusCode === 302) && method === 'POST')) {
      method = method === 'HEAD' ? 'HEAD' : 'GET';
      body = undefined;
      headers.delete('content-type');
      headers.delete('content-length');
    }
    url = next;
  }
};

/**
 * A redirect the client did not follow, so the request's credentials stayed with the server they were meant for.
 * Callers phrase it with the config key to change (`suggestedBase`).
 */
export class RedirectRefused extends TypeError {
  /** Where the server pointed, without its query (which may echo what we sent). */
  readonly location: string;
  constructor(
    readonly from: URL,
    to: URL,
    readonly why: 'another server' | 'a second redirect',
  ) {
    const location = to.origin + to.pathname;
    super(`redirected to ${location} (${why}); not followed, so the credentials stayed with ${from.origin}`);
    this.name = 'RedirectRefused';
    this.location = location;
  }

  /** The base URL that would have reached the same place: the Location minus the `path` asked for. */
  suggestedBase(path: string): string {
    const to = new URL(this.location);
    const asked = path.split('?')[0];
    return asked && asked !== '/' && to.pathname.endsWith(asked) ? to.origin + to.pathname.slice(0, -asked.length) : to.origin;
  }
}

/**
 * An answer longer than its call's cap: dropped unread past the cap (or before any of it was read, when its
 * Content-Length said so). The call failed; callers phrase it with what the cap is for.
 */
export class AnswerTooLarge extends TypeError {
  constructor(
    readonly url: URL,
    readonly method: string,
    readonly maxBytes: number,
    /** The Content-Length the server announced, when that alone was over the cap. */
    readonly declared?: number,
  ) {
    const said = declared === undefined ? 'cut off there' : `it announced ${declared} bytes`;
    super(`the answer to ${method} ${url.origin}${url.pathname} is larger than ${sizeText(maxBytes)} (${said}); the connection was dropped`);
    this.name = 'AnswerTooLarge';
  }
}

/**
 * Same scheme, host and port; or the same host moving from http to https (its own port, or 80 to 443). A move
 * to https on the same host is the one redirect servers commonly send that still ends at the server configured.
 */
export function staysHome(from: URL, to: URL): boolean {
  if (to.origin === from.origin) return true;
  if (to.hostname !== from.hostname || from.protocol !== 'http:' || to.protocol !== 'https:') return false;
  return to.port === from.port || (from.port === '' && to.port === '');
}

function bodyBytes(body: Init['body'], headers: HeaderFields): Buffer | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string') {
    if (!headers.has('content-type')) headers.set('content-type', 'text/plain;charset=UTF-8');
    return Buffer.from(body, 'utf8');
  }
  if (body instanceof URLSearchParams) {
    if (!headers.has('content-type')) headers.set('content-type', 'application/x-www-form-urlencoded;charset=UTF-8');
    return Buffer.from(body.toString(), 'utf8');
  }
  if (body instanceof ArrayBuffer) return Buffer.from(body);
  if (ArrayBuffer.isView(body)) return Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  throw new TypeError(`httpFetch: a ${Object.prototype.toString.call(body)} body is not supported; send a string, URLSearchParams or bytes`);
}

function send(url: URL, method: string, headers: HeaderFields, body: Buffer | undefined, signal: AbortSignal | undefined): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const outgoing: Record<string, string> = { ...Object.fromEntries(headers), ...(body ? { 'content-length': String(body.length) } : {}) };
    if (!('accept' in outgoing)) outgoing.accept = '*/*';
    const req = process.getBuiltinModule(url.protocol === 'https:' ? 'node:https' : 'node:http').request(url, { method, headers: outgoing });
    let settled = false;
    const onAbort = () => {
      req.destroy();
      if (!settled) {
        settled = true;
        reject(signal!.reason);
      }
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    req.on('response', (res) => {
      settled = true;
      // While the body is read, an abort ends it with the signal's reason; once it is read, nothing holds on.
      const onAbortBody = () => res.destroy(signal!.reason);
      signal?.addEventListener('abort', onAbortBody, { once: true });
      res.once('close', () => {
        signal?.removeEventListener('abort', onAbort);
        signal?.removeEventListener('abort', onAbortBody);
      });
      resolve(res);
    });
    req.on('error', (err) => {
      if (settled) return;
      settled = true;
      signal?.removeEventListener('abort', onAbort);
      reject(new TypeError('fetch failed', { cause: err }));
    });
    req.end(body);
  });
}

/**
 * The answer with its body read in full, up to `maxBytes`: the bodies scanrelay asks for are small JSON, and a
 * buffered body costs a third less than a stream adapter per call (a drain makes thousands of calls).
 */
function responseOf(res: IncomingMessage, ask: { method: string; signal: AbortSignal | undefined; url: URL; maxBytes: number }): Promise<Response> {
  const { method, signal, url, maxBytes } = ask;
  const status = res.statusCode ?? 0;
  const headers = new HeaderFields();
  for (const [name, value] of Object.entries(res.headers)) {
    if (value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value]) headers.append(name, one);
  }
  const statusText = res.statusMessage ?? '';
  const init = { status, statusText, headers, url: url.href };
  if (method === 'HEAD' || NO_BODY.has(status)) {
    res.resume();
    return Promise.resolve(answerOf(null, init));
  }
  const declared = Number(res.headers['content-length']);
  // Refused before a byte is read: destroying the answer closes its connection, so the server stops sending.
  if (declared > maxBytes) {
    const refused = Promise.reject(new AnswerTooLarge(url, method, maxBytes, declared));
    res.destroy();
    return refused;
  }
  return new Promise((resolve, reject) => {
    // The bytes copied in as they arrive, into room for what the server declared (else grown by doubling): a 100 MB
    // answer is never copied whole in one step, which would hold the event loop.
    let body: Buffer | undefined = Buffer.allocUnsafeSlow(Number.isInteger(declared) ? declared : Math.min(maxBytes, 64 * 1024));
    let read = 0;
    res.on('data', (c: Buffer) => {
      if (!body) return;
      if (read + c.length > maxBytes) {
        // Past the cap: what was kept is let go and the connection closed, so no more arrives. Rejected first: the
        // destroy says 'aborted' at once, which would otherwise settle it as a network failure.
        body = undefined;
        reject(new AnswerTooLarge(url, method, maxBytes));
        return void res.destroy();
      }
      if (read + c.length > body.length) {
        const grown = Buffer.allocUnsafeSlow(Math.min(maxBytes, Math.max(read + c.length, body.length * 2)));
        body.copy(grown, 0, 0, read);
        body = grown;
      }
      read += c.copy(body, read);
    });
    res.on('end', () => {
      if (!body) return;
      // Node hands the bytes over in an ArrayBuffer of its own (never a shared one).
      resolve(answerOf(new Uint8Array(body.buffer, body.byteOffset, read), init));
    });
    // A body cut off is the signal's reason when the signal fired, else fetch's network error.
    const cut = (cause: Error) => reject(signal?.aborted ? signal.reason : new TypeError('fetch failed', { cause }));
    res.on('error', cut);
    res.on('aborted', () => cut(new Error('the connection closed before the whole answer arrived')));
  });
}
