// RCLONE.RC_CACHE_REFRESH: when a file the processor waits for is not on an rclone mount yet, ask the running
// rclone (remote control, https://rclone.org/rc/) to re-read the folder it should be in, walking up a level while
// rclone does not know that folder either, as plex_autoscan did. `cache/expire` serves the old cache backend;
// once rclone says it has no such method, only `vfs/refresh` is used.
import { RCLONE_ANSWER, sizeText } from '../http/answer-caps.js';
import type { Logger } from '../log/logger.js';
import { mapPath, type PathMappings } from '../paths/mapping.js';
import { AnswerTooLarge, httpFetch, type Fetch } from '../http/fetch.js';
import { splitUserinfo } from '../http/url-credentials.js';

export interface CacheRefresh {
  /** Refreshes the folder of `localPath` (a file or folder as this service checks it). Never throws. */
  refresh(localPath: string): Promise<void>;
}

export interface CacheRefreshOptions {
  /** RC_URL; user:password@ in it is sent as basic auth (rclone's --rc-user/--rc-pass), never logged. */
  rcUrl: string;
  /** FILE_EXISTS_TO_REMOTE_MAPPINGS: remote path -> the local prefixes it is mounted at. */
  mappings: PathMappings;
  logger: Logger;
  fetch?: Fetch;
  /** Per call; a refresh lists the folder on the remote, which can take a while on a cloud drive. */
  timeoutMs?: number;
}

type Answer = { ok: true } | { ok: false; unknownDir: boolean; error: string } | { ok: false; noMethod: true };

const parentOf = (dir: string): string => (dir.includes('/') ? dir.slice(0, dir.lastIndexOf('/')) : '');

export function createCacheRefresh(opts: CacheRefreshOptions): CacheRefresh {
  const doFetch = opts.fetch ?? httpFetch;
  const timeoutMs = opts.timeoutMs ?? 30_000;
  const written = splitUserinfo(opts.rcUrl);
  const auth = written.authorization;
  const url = new URL(written.url);
  const base = url.toString().replace(/\/?$/, '/');
  const where = url.origin;
  const { logger } = opts;
  /** Unknown until rclone answers the first cache/expire. */
  let cacheBackend: boolean | undefined;
  let lastError: string | undefined;
  const unmappedWarned = new Set<string>();
  /** One walk per remote folder at a time: callers for the same folder share it. */
  const inFlight = new Map<string, Promise<void>>();

  async function call(method: string, body: Record<string, string>): Promise<{ status: number; json: unknown }> {
    const res = await doFetch(base + method, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(auth ? { authorization: auth } : {}) },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(timeoutMs),
      maxBytes: RCLONE_ANSWER.bytes,
    }).catch((err: unknown) => {
      // Said as any failure is: once per distinct problem (see refresh).
      if (err instanceof AnswerTooLarge) throw new Error(`answered ${method} with more than ${sizeText(RCLONE_ANSWER.bytes)}, the most ${RCLONE_ANSWER.what} needs (dropped unread)`);
      throw err;
    });
    const text = await res.text();
    try {
      return { status: res.status, json: JSON.parse(text) };
    } catch {
      throw new Error(`answered HTTP ${res.status} without JSON${res.status === 401 ? ' (put the --rc-user and --rc-pass into RC_URL as http://user:pass@host:port)' : ''}`);
    }
  }

  function noMethod(json: unknown): boolean {
    return typeof json === 'object' && json !== null && /couldn't find method/.test(String((json as { error?: unknown }).error ?? ''));
  }

  async function expire(dir: string): Promise<Answer> {
    const { json } = await call('cache/expire', { remote: dir });
    if (noMethod(json)) return { ok: false, noMethod: true };
    const o = json as { status?: unknown; message?: unknown; error?: unknown };
    if (o.status === 'ok') return { ok: true };
    const error = String(o.error ?? JSON.stringify(json));
    return { ok: false, unknownDir: /not found|does not exist|doesn't exist/i.test(error), error };
  }

  async function vfsRefresh(dir: string): Promise<Answer> {
    const { json } = await call('vfs/refresh', { dir });
    if (noMethod(json)) throw new Error('has no vfs/refresh: is it a mount or serve with --rc, not a plain rcd?');
    const o = json as { result?: Record<string, unknown>; error?: unknown };
    const verdict = o.result?.[dir];
    if (verdict === 'OK') return { ok: true };
    if (typeof verdict === 'string') return { ok: false, unknownDir: /does not exist|not a directory/i.test(verdict), error: verdict };
    return { ok: false, unknownDir: false, error: String(o.error ?? JSON.stringify(json)) };
  }

  async function walk(start: string, localPath: string): Promise<void> {
    for (let dir = start; dir !== ''; dir = parentOf(dir)) {
      let answer: Answer | undefined;
      if (cacheBackend !== false) {
        // The old cache backend: its own expiry first; an error there falls back to the VFS, as plex_autoscan did.
        const expired = await expire(dir);
        cacheBackend = !('noMethod' in expired);
        if (expired.ok) answer = expired;
      }
      answer ??= await vfsRefresh(dir);
      if (answer.ok) {
        logger.info({ path: localPath, remote: dir }, `Asked rclone to refresh '${dir}' (RC_CACHE_REFRESH).`);
        return;
      }
      if ('noMethod' in answer || !answer.unknownDir) {
        logger.warn({ remote: dir }, `rclone at ${where} could not refresh '${dir}': ${'error' in answer ? answer.error : 'no such method'}`);
        return;
      }
      logger.debug({ remote: dir }, `rclone does not know '${dir}' yet; refreshing its parent.`);
    }
    logger.debug({ path: localPath }, `rclone knows none of the folders above '${start}'; nothing refreshed.`);
  }

  return {
    async refresh(localPath: string): Promise<void> {
      const mapped = mapPath(localPath, opts.mappings);
      if (!mapped.match) {
        if (!unmappedWarned.has(localPath)) {
          unmappedWarned.add(localPath);
          logger.warn({ path: localPath }, `RC_CACHE_REFRESH: no FILE_EXISTS_TO_REMOTE_MAPPINGS prefix matches '${localPath}', so rclone is not asked to refresh it; add its mount prefix.`);
        }
        return;
      }
      const remote = mapped.path.replace(/\\/g, '/').replace(/^\/+/, '').replace(/\/+$/, '');
      const start = parentOf(remote);
      const running = inFlight.get(start);
      if (running) return running;
      const job = walk(start, localPath)
        .then(() => {
          if (lastError) logger.info(`rclone remote control at ${where} answers again.`);
          lastError = undefined;
        })
        .catch((err: unknown) => {
          const e = err as Error & { cause?: { code?: string } };
          const reason = e.name === 'TimeoutError' ? `no answer within ${timeoutMs / 1000} s` : (e.cause?.code ?? e.message);
          // One line per distinct problem: a stopped rclone must not add a warning to every existence check.
          if (reason !== lastError) logger.warn(`rclone remote control at ${where} ${reason.startsWith('answered') || reason.startsWith('has no') ? reason : `did not answer (${reason})`}: check RCLONE.RC_CACHE_REFRESH.RC_URL and that rclone runs with --rc.`);
          lastError = reason;
        })
        .finally(() => inFlight.delete(start));
      inFlight.set(start, job);
      return job;
    },
  };
}

/** The processor's hook for the config's RC_CACHE_REFRESH section; undefined while it is off. */
export function cacheRefresh(
  config: { RCLONE: { RC_CACHE_REFRESH: { ENABLED: boolean; RC_URL: string; FILE_EXISTS_TO_REMOTE_MAPPINGS: PathMappings } } },
  logger: Logger,
  fetchFn?: Fetch,
): ((localPath: string) => Promise<void>) | undefined {
  const rc = config.RCLONE.RC_CACHE_REFRESH;
  if (!rc.ENABLED) return undefined;
  if (rc.RC_URL === '') {
    logger.warn('RCLONE.RC_CACHE_REFRESH.ENABLED is true but RC_URL is empty: rclone is never asked to refresh.');
    return undefined;
  }
  const r = createCacheRefresh({ rcUrl: rc.RC_URL, mappings: rc.FILE_EXISTS_TO_REMOTE_MAPPINGS, logger, fetch: fetchFn });
  return (p) => r.refresh(p);
}
