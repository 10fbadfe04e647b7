// One HTTP call to a target's API, with its failure phrased for the log and sorted for the retry rules.
import type { ScanOutcome } from '../scan.js';
import { timeoutSignal, type Clock } from '../clock.js';
import { httpFetch, RedirectRefused } from '../http-fetch.js';

/** How messages name a TARGETS entry's URL key ("set ... to https://..."). */
export function entryUrlKey(name: string): string {
  return `the URL of TARGETS entry "${name}"`;
}

/**
 * A call that did not succeed. `targetDown`: the server gave no answer (the processor marks it down).
 * `tokenRefused`: 401/403 (the processor probes it). Neither: the answer concerns this one call.
 */
export class ApiRefusal extends Error {
  constructor(
    message: string,
    readonly targetDown: boolean,
    readonly tokenRefused = false,
  ) {
    super(message);
  }
}

export interface ApiCaller {
  /** Sends one request; resolves with the response only when it is 2xx. */
  call(method: string, path: string, opts?: { body?: unknown; query?: Record<string, string | string[]> }): Promise<Response>;
  /** Like call, then the body as JSON (a body that is not JSON is a refusal, not a crash). */
  json<T = unknown>(method: string, path: string, opts?: { body?: unknown; query?: Record<string, string | string[]> }): Promise<T>;
  /** Turns any error of a scan into the queue's retry outcome, with secrets scrubbed. */
  retry(err: unknown): ScanOutcome;
  scrub(text: string): string;
}

export interface ApiCallerOptions {
  /** e.g. "sonarr 'sonarr-4k'", for messages. */
  who: string;
  url: string;
  headers: Record<string, string>;
  /** Secrets that must never reach a message (tokens, passwords). */
  secrets: string[];
  timeoutMs?: number;
  fetch?: typeof fetch;
  /** Whose time the per-request timeout counts (the wall clock by default). */
  clock?: Clock;
  /** The config key holding `url`, named when the server redirects elsewhere (default: the entry's URL). */
  urlKey?: string;
  /** What to check when the server refuses us (401/403). */
  authHint: string;
}

export function apiCaller(opts: ApiCallerOptions): ApiCaller {
  const base = opts.url.replace(/\/+$/, '');
  const send = opts.fetch ?? httpFetch;
  const timeoutMs = opts.timeoutMs ?? 30_000;
  const secrets = opts.secrets.filter((s) => s.length >= 4);
  const scrub = (text: string): string => secrets.reduce((t, s) => t.split(s).join('***'), text);

  async function call(method: string, path: string, o: { body?: unknown; query?: Record<string, string | string[]> } = {}): Promise<Response> {
    const search = new URLSearchParams();
    for (const [k, v] of Object.entries(o.query ?? {})) for (const one of Array.isArray(v) ? v : [v]) search.append(k, one);
    const url = base + path + (search.size ? `?${search}` : '');
    let response: Response;
    try {
      response = await send(url, {
        method,
        headers: { Accept: 'application/json', ...(o.body === undefined ? {} : { 'Content-Type': 'application/json' }), ...opts.headers },
        body: o.body === undefined ? undefined : JSON.stringify(o.body),
        signal: timeoutSignal(opts.clock, timeoutMs),
      });
    } catch (err) {
      if (err instanceof RedirectRefused) {
        const key = opts.urlKey ?? 'the URL of its TARGETS entry';
        throw new ApiRefusal(
          scrub(`${opts.who} at ${base} redirected ${method} ${path} to ${err.location} (${err.why}); scanrelay does not follow it, so the credentials were not sent there: set ${key} to ${err.suggestedBase(path)} if that is the server`),
          false,
        );
      }
      throw new ApiRefusal(scrub(`${opts.who} is unreachable at ${base} (${method} ${path}): ${networkCause(err, timeoutMs)}`), true);
    }
    if (response.ok) return response;
    const text = scrub((await response.text().catch(() => '')).trim().slice(0, 200));
    const said = text ? `: ${text}` : '';
    const status = response.status;
    if (status === 401 || status === 403) throw new ApiRefusal(`${opts.who} refused us (HTTP ${status} on ${method} ${path}): ${opts.authHint}`, false, true);
    if (status >= 500) throw new ApiRefusal(`${opts.who} failed with HTTP ${status} on ${method} ${path}${said}`, false);
    const hint = status === 404 ? ' (check URL)' : '';
    throw new ApiRefusal(`${opts.who} answered HTTP ${status} on ${method} ${path}${hint}${said}`, false);
  }

  return {
    call,
    async json<T>(method: string, path: string, o?: { body?: unknown; query?: Record<string, string | string[]> }): Promise<T> {
      const response = await call(method, path, o);
      try {
        return (await response.json()) as T;
      } catch {
        throw new ApiRefusal(`${opts.who} sent an answer that is not JSON (${method} ${path}): check URL`, false);
      }
    },
    retry(err: unknown): ScanOutcome {
      if (err instanceof ApiRefusal) return { status: 'retry', error: err.message, targetDown: err.targetDown, ...(err.tokenRefused ? { tokenRefused: true } : {}) };
      return { status: 'retry', error: scrub(`${opts.who}: ${(err as Error).message}`), targetDown: false };
    },
    scrub,
  };
}

function networkCause(err: unknown, timeoutMs: number): string {
  const e = err as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (e?.name === 'TimeoutError' || e?.name === 'AbortError') return `no answer within ${timeoutMs} ms`;
  return e?.cause?.code ?? e?.cause?.message ?? e?.message ?? String(err);
}
