// The few Plex HTTP API calls scanrelay makes, through the one API caller (src/http/api-call.ts): the token in a
// header, and errors a person can act on.
import { apiCaller, type ApiCaller } from '../../http/api-call.js';
import { ACKNOWLEDGEMENT, PLEX_SECTIONS, SERVER_STATUS, type AnswerCap } from '../../http/answer-caps.js';
import type { Clock } from '../../clock.js';
import type { Fetch } from '../../http/fetch.js';
import type { Logger } from '../../log/logger.js';

export interface PlexSection {
  id: string;
  title: string;
  type: string;
  locations: string[];
  refreshing: boolean;
}

export interface PlexApiOptions {
  /** As configured: a `user:pass@` in it is sent as Basic auth beside the token, and never shown. */
  url: string;
  token: string;
  timeoutMs?: number;
  fetch?: Fetch;
  /** Whose time the per-request timeout counts (the wall clock by default). */
  clock?: Clock;
  /** Where an answer dropped for its size is said. */
  logger?: Logger;
  /** The config key that holds `url`, for messages: PLEX_LOCAL_URL, or a TARGETS entry's URL. */
  urlKey?: string;
  /** The config key that holds the token: PLEX_TOKEN, or a TARGETS entry's TOKEN. */
  tokenKey?: string;
}

export class PlexApi {
  private readonly caller: ApiCaller;

  constructor(opts: PlexApiOptions) {
    const tokenKey = opts.tokenKey ?? 'PLEX_TOKEN';
    this.caller = apiCaller({
      who: 'Plex',
      url: opts.url,
      urlKey: opts.urlKey ?? 'PLEX_LOCAL_URL',
      headers: { 'X-Plex-Token': opts.token, 'X-Plex-Product': 'scanrelay' },
      secrets: [opts.token],
      timeoutMs: opts.timeoutMs,
      fetch: opts.fetch,
      clock: opts.clock,
      logger: opts.logger,
      authHint: `${tokenKey} is missing, wrong or expired; put a valid X-Plex-Token in ${tokenKey}`,
    });
  }

  /** The server's URL as shown (no user or password). */
  get url(): string {
    return this.caller.base;
  }

  /** One call, reading at most `cap` of the answer; rejects with an ApiRefusal (its `status` 0 when Plex gave no answer). */
  request(method: string, path: string, cap: AnswerCap, query?: Record<string, string>): Promise<Response> {
    return this.caller.call(method, path, { cap, query });
  }

  /** One GET answered as JSON (a body that is not JSON is a refusal, not a crash). */
  json<T>(path: string, cap: AnswerCap, query?: Record<string, string>): Promise<T> {
    return this.caller.json<T>('GET', path, { cap, query });
  }

  async sections(): Promise<PlexSection[]> {
    const body = await this.caller.json<{ MediaContainer?: { Directory?: unknown[] } }>('GET', '/library/sections', { cap: PLEX_SECTIONS });
    const dirs = body?.MediaContainer?.Directory ?? [];
    return dirs.map((d) => {
      const dir = d as Record<string, unknown>;
      const locations = Array.isArray(dir.Location) ? (dir.Location as { path?: unknown }[]) : [];
      return {
        id: String(dir.key),
        title: String(dir.title ?? ''),
        type: String(dir.type ?? ''),
        locations: locations.map((l) => String(l.path ?? '')).filter(Boolean),
        // Older servers send 0/1 instead of booleans.
        refreshing: dir.refreshing === true || dir.refreshing === 1 || dir.refreshing === '1',
      };
    });
  }

  /** Partial scan of one folder in one section (GET: PMS 1.32.7 answers 404 to PUT/POST here). */
  async refresh(sectionId: string, folder: string): Promise<void> {
    const res = await this.request('GET', `/library/sections/${encodeURIComponent(sectionId)}/refresh`, ACKNOWLEDGEMENT, { path: folder });
    await res.body?.cancel();
  }

  async identity(): Promise<{ machineIdentifier?: string; version?: string }> {
    const res = await this.caller.call('GET', '/identity', { cap: SERVER_STATUS });
    const body = (await res.json().catch(() => ({}))) as { MediaContainer?: { machineIdentifier?: string; version?: string } };
    return body.MediaContainer ?? {};
  }

  /** Any error of a call as the queue's retry outcome. */
  retry(err: unknown) {
    return this.caller.retry(err);
  }

  itemRetry(err: unknown) {
    return this.caller.itemRetry(err);
  }
}
