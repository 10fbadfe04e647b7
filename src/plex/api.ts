// The few Plex HTTP API calls scanrelay makes, through the one API caller (src/api-call.ts): the token in a
// header, and errors a person can act on.
import { apiCaller, type ApiCaller } from '../api-call.js';
import type { Clock } from '../clock.js';

export interface PlexSection {
  id: string;
  title: string;
  type: string;
  locations: string[];
  refreshing: boolean;
}

export interface PlexApiOptions {
  url: string;
  token: string;
  timeoutMs?: number;
  fetch?: typeof fetch;
  /** Whose time the per-request timeout counts (the wall clock by default). */
  clock?: Clock;
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
      authHint: `${tokenKey} is missing, wrong or expired; put a valid X-Plex-Token in ${tokenKey}`,
    });
  }

  get url(): string {
    return this.caller.base;
  }

  /** One call; rejects with an ApiRefusal (its `status` 0 when Plex gave no answer). */
  request(method: string, path: string, query?: Record<string, string>): Promise<Response> {
    return this.caller.call(method, path, { query });
  }

  async sections(): Promise<PlexSection[]> {
    const body = await this.caller.json<{ MediaContainer?: { Directory?: unknown[] } }>('GET', '/library/sections');
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
    const res = await this.request('GET', `/library/sections/${encodeURIComponent(sectionId)}/refresh`, { path: folder });
    await res.body?.cancel();
  }

  async identity(): Promise<{ machineIdentifier?: string; version?: string }> {
    const res = await this.caller.call('GET', '/identity');
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
