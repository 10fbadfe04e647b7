// The few Plex HTTP API calls scanrelay makes, with the token in a header and errors a person can act on.
import { timeoutSignal, type Clock } from '../clock.js';
import { httpFetch, RedirectRefused } from '../http-fetch.js';

export interface PlexSection {
  id: string;
  title: string;
  type: string;
  locations: string[];
  refreshing: boolean;
}

export class PlexError extends Error {
  constructor(
    message: string,
    /** HTTP status, or 0 for a network error / timeout; a redirect not followed keeps its 3xx. */
    readonly status: number,
  ) {
    super(message);
  }
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
}

export class PlexApi {
  private readonly base: string;
  constructor(private readonly opts: PlexApiOptions) {
    this.base = opts.url.replace(/\/+$/, '');
  }

  get url(): string {
    return this.base;
  }

  private get urlKey(): string {
    return this.opts.urlKey ?? 'PLEX_LOCAL_URL';
  }

  async request(method: string, path: string, query?: Record<string, string>): Promise<Response> {
    const u = new URL(this.base + path);
    for (const [k, v] of Object.entries(query ?? {})) u.searchParams.set(k, v);
    const f = this.opts.fetch ?? httpFetch;
    let res: Response;
    try {
      res = await f(u, {
        method,
        headers: { 'X-Plex-Token': this.opts.token, Accept: 'application/json', 'X-Plex-Product': 'scanrelay' },
        signal: timeoutSignal(this.opts.clock, this.opts.timeoutMs ?? 30_000),
      });
    } catch (err) {
      if (err instanceof RedirectRefused) {
        // A redirect is an answer, not silence: the server is there but points elsewhere, so the token stayed here.
        throw new PlexError(
          `Plex at ${this.base} redirected ${method} ${path} to ${err.location} (${err.why}); scanrelay does not follow it, so PLEX_TOKEN was not sent there: set ${this.urlKey} to ${err.suggestedBase(path)} if that is your Plex`,
          302,
        );
      }
      const cause = (err as { cause?: { code?: string } }).cause?.code ?? (err as Error).name;
      throw new PlexError(`Plex at ${this.base} did not answer (${cause}): start Plex, or point ${this.urlKey} at it`, 0);
    }
    if (res.status === 401 || res.status === 403) {
      await res.body?.cancel();
      throw new PlexError(
        `Plex at ${this.base} answered ${res.status} ${res.statusText}: PLEX_TOKEN is missing, wrong or expired; put a valid X-Plex-Token in PLEX_TOKEN`,
        res.status,
      );
    }
    if (!res.ok) {
      await res.body?.cancel();
      throw new PlexError(`Plex at ${this.base} answered ${res.status} ${res.statusText} to ${method} ${path}`, res.status);
    }
    return res;
  }

  async sections(): Promise<PlexSection[]> {
    const res = await this.request('GET', '/library/sections');
    const body = (await res.json().catch(() => {
      throw new PlexError(`Plex at ${this.base} sent a library list that is not JSON`, res.status);
    })) as { MediaContainer?: { Directory?: unknown[] } };
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
    const res = await this.request('GET', '/identity');
    const body = (await res.json().catch(() => ({}))) as { MediaContainer?: { machineIdentifier?: string; version?: string } };
    return body.MediaContainer ?? {};
  }
}
