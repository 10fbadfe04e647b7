// The MediaBrowser API that Jellyfin and Emby share: tell the server a folder changed, after checking
// that one of its libraries holds the folder. The two differ only in auth header and library listing.
import { systemClock, timeoutSignal, type Clock } from '../clock.js';
import { silentLogger, type Logger } from '../log.js';
import { isInside, trimTrailingSeparator } from '../paths/folder.js';
import type { ScanContext, ScanOutcome, Target } from '../scan.js';
import { httpFetch, RedirectRefused } from '../http-fetch.js';

export interface MediaBrowserOptions {
  name: string;
  /** Base URL, e.g. http://jellyfin:8096 (Emby behind /emby: include it). */
  url: string;
  /** The config key holding `url`, named in messages (a TARGETS entry's URL). */
  urlKey?: string;
  token: string;
  pauseMs?: number;
  concurrency?: number;
  /** Per request. */
  timeoutMs?: number;
  /** How long the library list is trusted. */
  libraryTtlMs?: number;
  /** A folder in no known library refreshes the list, but not more often than this. */
  missRefreshMs?: number;
  clock?: Clock;
  logger?: Logger;
  /** Defaults to httpFetch (src/http-fetch.ts). */
  fetch?: typeof fetch;
}

export interface Library {
  name: string;
  locations: string[];
}

/** What makes a server Jellyfin or Emby. */
export interface MediaBrowserFlavour {
  kind: 'jellyfin' | 'emby';
  authHeaders(token: string): Record<string, string>;
  /** GET path that lists libraries and their folders. */
  librariesPath: string;
  parseLibraries(body: unknown): Library[];
}

/**
 * A request that did not succeed, already phrased for the log and mapped to the queue's retry rules: silence
 * marks the server down, a refused token has it probed, anything else concerns the one folder.
 */
class Refusal extends Error {
  constructor(
    message: string,
    readonly kind: 'silent' | 'token' | 'folder',
  ) {
    super(message);
  }
}

export function mediaBrowserTarget(flavour: MediaBrowserFlavour, opts: MediaBrowserOptions): Target {
  const base = opts.url.replace(/\/+$/, '');
  const timeoutMs = opts.timeoutMs ?? 30_000;
  const ttlMs = opts.libraryTtlMs ?? 10 * 60_000;
  const missRefreshMs = opts.missRefreshMs ?? 60_000;
  const clock = opts.clock ?? systemClock;
  const log = opts.logger ?? silentLogger;
  const send = opts.fetch ?? httpFetch;
  const who = `${flavour.kind} '${opts.name}'`;
  let libraries: { list: Library[]; at: number } | undefined;

  // Servers sometimes echo what they were sent; the token must not reach a log line through us.
  const scrub = (text: string): string => (opts.token.length >= 4 ? text.split(opts.token).join('***') : text);

  async function request(method: 'GET' | 'POST', path: string, body?: unknown, auth = true): Promise<Response> {
    let response: Response;
    try {
      response = await send(base + path, {
        method,
        headers: {
          Accept: 'application/json',
          ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
          ...(auth ? flavour.authHeaders(opts.token) : {}),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: timeoutSignal(clock, timeoutMs),
      });
    } catch (err) {
      if (err instanceof RedirectRefused) {
        const key = opts.urlKey ?? 'its URL';
        throw new Refusal(
          scrub(`${who} at ${base} redirected ${method} ${path} to ${err.location} (${err.why}); scanrelay does not follow it, so the token was not sent there: set ${key} to ${err.suggestedBase(path)} if that is the server`),
          'folder',
        );
      }
      throw new Refusal(scrub(`${who} is unreachable at ${base} (${method} ${path}): ${networkCause(err, timeoutMs)}`), 'silent');
    }
    if (response.ok) return response;
    const text = scrub((await response.text().catch(() => '')).trim().slice(0, 200));
    const said = text ? `: ${text}` : '';
    const status = response.status;
    if (status === 401 || status === 403) {
      const extra =
        flavour.kind === 'jellyfin' && path === flavour.librariesPath && status === 403
          ? ' (listing libraries needs an admin API key)'
          : '';
      throw new Refusal(`${who} refused the token (HTTP ${status} on ${method} ${path}): check TOKEN${extra}`, 'token');
    }
    if (status >= 500) throw new Refusal(`${who} failed with HTTP ${status} on ${method} ${path}${said}`, 'folder');
    const hint = status === 404 ? ' (check URL; Emby may need the /emby prefix)' : '';
    throw new Refusal(`${who} answered HTTP ${status} on ${method} ${path}${hint}${said}`, 'folder');
  }

  async function loadLibraries(): Promise<Library[]> {
    const response = await request('GET', flavour.librariesPath);
    let body: unknown;
    try {
      body = await response.json();
    } catch {
      throw new Refusal(`${who} sent a library list that is not JSON (GET ${flavour.librariesPath}): check URL`, 'folder');
    }
    const list = flavour.parseLibraries(body);
    libraries = { list, at: clock.now() };
    log.debug({ target: opts.name, libraries: list }, 'library folders loaded');
    return list;
  }

  const owners = (list: Library[], folder: string): Library[] =>
    list.filter((lib) => lib.locations.some((loc) => isInside(folder, loc)));

  async function librariesHolding(folder: string): Promise<{ owners: Library[]; known: Library[] }> {
    let list = libraries && clock.now() - libraries.at < ttlMs ? libraries.list : await loadLibraries();
    let found = owners(list, folder);
    if (found.length === 0 && libraries && clock.now() - libraries.at >= missRefreshMs) {
      // A library may have been added since we looked.
      list = await loadLibraries();
      found = owners(list, folder);
    }
    return { owners: found, known: list };
  }

  return {
    name: opts.name,
    kind: flavour.kind,
    pauseMs: opts.pauseMs ?? 0,
    concurrency: opts.concurrency,

    async scan(folder: string, context: ScanContext): Promise<ScanOutcome> {
      const path = trimTrailingSeparator(folder);
      try {
        const { owners: found, known } = await librariesHolding(path);
        if (found.length === 0) {
          const locations = known.flatMap((l) => l.locations);
          return {
            status: 'unmatched',
            detail: `'${path}' is in no library of ${who} (known locations: ${locations.length ? locations.join(', ') : 'none'})`,
          };
        }
        await request('POST', '/Library/Media/Updated', {
          Updates: [{ Path: path, UpdateType: context.deleted ? 'Deleted' : 'Modified' }],
        });
        return { status: 'scanned', detail: found.map((l) => l.name).join(', ') };
      } catch (err) {
        if (err instanceof Refusal) {
          return { status: 'retry', error: err.message, targetDown: err.kind === 'silent', ...(err.kind === 'token' ? { tokenRefused: true } : {}) };
        }
        return { status: 'retry', error: scrub(`${who}: ${(err as Error).message}`), targetDown: false };
      }
    },

    async available() {
      try {
        // The public info says the server is there; the library list (with the token) that the token works.
        await request('GET', '/System/Info/Public', undefined, false);
        await loadLibraries();
        return { ok: true };
      } catch (err) {
        return { ok: false, error: scrub((err as Error).message) };
      }
    },
  };
}

function networkCause(err: unknown, timeoutMs: number): string {
  const e = err as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (e?.name === 'TimeoutError' || e?.name === 'AbortError') return `no answer within ${timeoutMs} ms`;
  const cause = e?.cause;
  if (cause?.code) return cause.code;
  return cause?.message ?? e?.message ?? String(err);
}

/** Strings from a JSON value, skipping anything malformed rather than failing the whole list. */
export function stringsOf(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string' && v.length > 0) : [];
}
