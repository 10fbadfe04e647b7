// One call to a media server's (or another receiver's) HTTP API, the only way scanrelay calls one: the timeout
// on the injected clock, the auth headers, redirects that leave the server refused (src/http/fetch.ts), the answer
// read only up to the cap the call states (src/http/answer-caps.ts), a failure phrased with the server and the key to
// change, and every token, and the password a URL may hold, kept from what a person will read.
import { sizeText, type AnswerCap } from './answer-caps.js';
import { AnswerTooCostly, parseAnswer, parseInPieces, startsAsContainer, type Keep } from './json-cost.js';
import { systemClock, timeoutSignal, type Clock } from '../clock.js';
import { AnswerTooLarge, httpFetch, RedirectRefused, type Fetch } from './fetch.js';
import { silentLogger, type Logger } from '../log/logger.js';
import { ConditionLog } from '../log/condition.js';
import type { ItemRetry } from '../scan.js';
import { keepStart } from '../text-cut.js';
import { ownAuthorization, splitUserinfo, withBasicAuth } from './url-credentials.js';

/** How messages name a TARGETS entry's URL key ("set ... to https://..."). */
export function entryUrlKey(name: string): string {
  return `the URL of TARGETS entry "${name}"`;
}

/**
 * The status of a call whose answer passed its cap. The server answered, so it is not silence (0), and what it
 * answered is of no use to this call: a failure of the call, as a 500 is (the folder backs off, the server stays up).
 */
export const ANSWER_TOO_LARGE = 502;

/**
 * A call that did not succeed, phrased for the log. `status` is the HTTP status, 0 when the server gave no answer
 * (refused connection, timeout, DNS), the 3xx of a redirect that was not followed, or ANSWER_TOO_LARGE.
 */
export class ApiRefusal extends Error {
  constructor(
    message: string,
    readonly status: number,
    /** The Retry-After header of a 429 or 503, as sent: the processor holds the whole server until then. */
    readonly retryAfter?: string,
  ) {
    super(message);
  }

  /** Silence: the server, not this call, is the problem (the processor marks it down). */
  get targetDown(): boolean {
    return this.status === 0;
  }

  /** 401/403: the processor asks the server at once whether the token still works. */
  get tokenRefused(): boolean {
    return this.status === 401 || this.status === 403;
  }
}

export type Query = Record<string, string | string[]>;

export interface CallOptions {
  /** The most of the answer this call reads (src/http/answer-caps.ts); past it the call fails. */
  cap: AnswerCap;
  body?: unknown;
  query?: Query;
  /** false: without the auth headers (a public endpoint that says whether the server is there at all). */
  auth?: boolean;
  /**
   * Resolve with whatever status the server answered (a plugin that says in its body what a 404 or 500 means);
   * silence and refused redirects still reject.
   */
  anyStatus?: boolean;
}

export interface ApiCaller {
  /** The server's URL as it is shown: without a user and password written into it. */
  readonly base: string;
  /** Sends one request; resolves with the response only when it is 2xx, else rejects with an ApiRefusal. */
  call(method: string, path: string, opts: CallOptions): Promise<Response>;
  /** Like call, then the body as JSON (a body that is not JSON is a refusal, not a crash). */
  json<T = unknown>(method: string, path: string, opts: CallOptions): Promise<T>;
  /**
   * Like json, for an answer that holds a long list (a list, or an object with lists): read in pieces, the event loop
   * given back as it goes, of each entry only what `keep` returns held (src/http/json-cost.ts: parseInPieces).
   */
  list(method: string, path: string, opts: CallOptions & { keep?: Keep<unknown> }): Promise<unknown>;
  /** Any error of a scan as the queue's retry outcome, with secrets scrubbed. */
  retry(err: unknown): { status: 'retry'; error: string; targetDown: boolean; tokenRefused?: true; retryAfter?: string };
  /** The same for an item's lookup or refresh, which reports a refused token as the server's (it has no probe of its own). */
  itemRetry(err: unknown): ItemRetry;
  /** available() for a server that answers `path`. */
  answers(method: string, path: string, opts: CallOptions): Promise<{ ok: true } | { ok: false; error: string }>;
  scrub(text: string): string;
}

export interface ApiCallerOptions {
  /** e.g. "sonarr 'sonarr-4k'" or "Plex", for messages. */
  who: string;
  /** As configured: a `user:pass@` in it is sent as Basic auth and never shown (src/http/url-credentials.ts). */
  url: string;
  /** The config key holding `url`, named when the server is silent or redirects elsewhere. */
  urlKey: string;
  headers: Record<string, string>;
  /** Secrets that must never reach a message (tokens, passwords). */
  secrets: string[];
  /** Per request, counted on `clock` (the wall clock by default). */
  timeoutMs?: number;
  /** Ends every request in flight and every later one at once when it aborts (shutdown: aborts, never waits). */
  signal?: AbortSignal;
  fetch?: Fetch;
  clock?: Clock;
  /** Where an answer dropped for its size is said (once per kind of call, src/log/condition.ts). */
  logger?: Logger;
  /** What to check when the server refuses us (401/403); may depend on the path asked. */
  authHint: string | ((path: string, status: number) => string);
  /** Added to a 404's message. */
  notFoundHint?: string;
}

export function apiCaller(opts: ApiCallerOptions): ApiCaller {
  const written = splitUserinfo(opts.url);
  const base = written.url.replace(/\/+$/, '');
  const headers = withBasicAuth(opts.headers, written.authorization);
  const basicOnly = withBasicAuth({}, written.authorization);
  const send = opts.fetch ?? httpFetch;
  const timeoutMs = opts.timeoutMs ?? 30_000;
  const logger = opts.logger ?? silentLogger;
  const at = `${opts.who} at ${base}`;
  // Servers sometimes echo what they were sent; a token must not reach a log line through us.
  const secrets = [...opts.secrets, ...written.secrets].filter((s) => s.length >= 4);
  const scrub = (text: string): string => secrets.reduce((t, s) => t.split(s).join('***'), text);
  // A second Authorization cannot go with the call's own: say once that the URL's user and password are not sent.
  if (written.authorization && ownAuthorization(opts.headers)) {
    logger.warn(`The user and password in ${opts.urlKey} are not sent to ${opts.who}: its calls carry an Authorization header of their own, and a request has one.`);
  }
  // One line per kind of call whose answer was too large, not one per answer: a server that always answers so would fill the log.
  const tooLarge = new ConditionLog({ logger, clock: opts.clock ?? systemClock });

  async function call(method: string, path: string, o: CallOptions): Promise<Response> {
    const search = new URLSearchParams();
    for (const [k, v] of Object.entries(o.query ?? {})) for (const one of Array.isArray(v) ? v : [v]) search.append(k, one);
    let response: Response;
    try {
      response = await send(base + path + (search.size ? `?${search}` : ''), {
        method,
        headers: {
          Accept: 'application/json',
          ...(o.body === undefined ? {} : { 'Content-Type': 'application/json' }),
          // Without the server's own token, the URL's Basic auth still goes: a proxy in front asks for it on every call.
          ...(o.auth === false ? basicOnly : headers),
        },
        body: o.body === undefined ? undefined : JSON.stringify(o.body),
        signal: opts.signal ? AbortSignal.any([timeoutSignal(opts.clock, timeoutMs), opts.signal]) : timeoutSignal(opts.clock, timeoutMs),
        maxBytes: o.cap.bytes,
      });
    } catch (err) {
      if (err instanceof AnswerTooLarge) {
        const why = err.declared === undefined ? '' : ` (it announced ${err.declared} bytes)`;
        const message = scrub(`${at} answered ${method} ${path} with more than ${sizeText(o.cap.bytes)}${why}, the most ${o.cap.what} needs: the answer was dropped unread and the call failed`);
        tooLarge.holds(o.cap.what, message, { server: opts.who, path, maxBytes: o.cap.bytes });
        throw new ApiRefusal(message, ANSWER_TOO_LARGE);
      }
      if (err instanceof RedirectRefused) {
        // A redirect is an answer, not silence: the server is there but points elsewhere, so the token stayed here.
        const message = `${at} redirected ${method} ${path} to ${err.location} (${err.why}); scanrelay does not follow it, so the token was not sent there: set ${opts.urlKey} to ${err.suggestedBase(path)} if that is the server`;
        throw new ApiRefusal(scrub(message), 302);
      }
      throw new ApiRefusal(scrub(`${at} did not answer ${method} ${path} (${networkCause(err, timeoutMs)}): start it, or point ${opts.urlKey} at it`), 0);
    }
    if (response.ok || o.anyStatus) return response;
    const text = scrub(keepStart((await response.text().catch(() => '')).trim(), 200));
    // What the server said helps (an arr's validation message); an HTML error page only buries the status.
    const said = text && !text.startsWith('<') ? `: ${text}` : '';
    const status = response.status;
    if (status === 401 || status === 403) {
      const hint = typeof opts.authHint === 'function' ? opts.authHint(path, status) : opts.authHint;
      throw new ApiRefusal(scrub(`${at} refused the token (HTTP ${status} on ${method} ${path}): ${hint}`), status);
    }
    const hint = status === 404 ? ` (${opts.notFoundHint ?? `check ${opts.urlKey}`})` : '';
    const answer = response.statusText ? `${status} ${response.statusText}` : String(status);
    throw new ApiRefusal(scrub(`${at} answered ${answer} to ${method} ${path}${hint}${said}`), status, retryAfterOf(response));
  }

  async function json<T>(method: string, path: string, o: CallOptions): Promise<T> {
    return read(method, path, o, async (response) => (await response.json()) as T);
  }

  async function list(method: string, path: string, o: CallOptions & { keep?: Keep<unknown> }): Promise<unknown> {
    return read(method, path, o, async (response) => {
      const bytes = await response.bytes();
      // Neither a list nor an object: parsed whole (bounded the same way) for the caller to say what it is instead.
      return startsAsContainer(bytes) ? parseInPieces(bytes, o.keep, o.cap.heap) : parseAnswer(bytes, o.cap.heap);
    });
  }

  async function read<T>(method: string, path: string, o: CallOptions, parse: (response: Response) => Promise<T>): Promise<T> {
    const response = await call(method, path, o);
    try {
      return await parse(response);
    } catch (err) {
      if (err instanceof AnswerTooCostly) throw new ApiRefusal(scrub(`${at} sent an answer to ${method} ${path} that was not parsed: ${err.why}, more than ${o.cap.what} needs`), ANSWER_TOO_LARGE);
      throw new ApiRefusal(`${at} sent an answer to ${method} ${path} that is not JSON: check ${opts.urlKey}`, response.status);
    }
  }

  const retry: ApiCaller['retry'] = (err) => {
    if (err instanceof ApiRefusal) {
      const later = err.retryAfter === undefined ? {} : { retryAfter: err.retryAfter };
      return { status: 'retry', error: err.message, targetDown: err.targetDown, ...(err.tokenRefused ? { tokenRefused: true } : {}), ...later };
    }
    return { status: 'retry', error: scrub(`${opts.who}: ${(err as Error).message}`), targetDown: false };
  };

  return {
    base,
    call,
    json,
    list,
    retry,
    itemRetry(err) {
      const outcome = retry(err);
      return { status: 'retry', error: outcome.error, targetDown: outcome.targetDown || outcome.tokenRefused === true };
    },
    async answers(method, path, o) {
      try {
        await (await call(method, path, o)).body?.cancel();
        return { ok: true };
      } catch (err) {
        return { ok: false, error: scrub((err as Error).message) };
      }
    },
    scrub,
  };
}

/** A 429's or 503's Retry-After (RFC 9110 §10.2.3), the only answers whose wait scanrelay honours. */
export function retryAfterOf(response: Response): string | undefined {
  if (response.status !== 429 && response.status !== 503) return undefined;
  return response.headers.get('retry-after') ?? undefined;
}

function networkCause(err: unknown, timeoutMs: number): string {
  const e = err as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (e?.name === 'TimeoutError' || e?.name === 'AbortError') return `no answer within ${timeoutMs} ms`;
  return e?.cause?.code ?? e?.cause?.message ?? e?.message ?? String(err);
}
