// The Plex target through its HTTP API: a partial refresh of the folder in every section that holds it.
import type { Clock } from '../clock.js';
import { PlexApi, PlexError } from '../plex/api.js';
import { SectionCache } from '../plex/sections.js';
import type { ScanContext, ScanOutcome, Target } from './target.js';

export interface PlexTargetOptions {
  name: string;
  url: string;
  token: string;
  pauseMs?: number;
  clock: Clock;
  timeoutMs?: number;
  fetch?: typeof fetch;
}

export class PlexTarget implements Target {
  readonly kind = 'plex';
  readonly name: string;
  readonly pauseMs: number;
  readonly api: PlexApi;
  readonly sections: SectionCache;

  constructor(opts: PlexTargetOptions) {
    this.name = opts.name;
    this.pauseMs = opts.pauseMs ?? 0;
    this.api = new PlexApi({ url: opts.url, token: opts.token, timeoutMs: opts.timeoutMs, fetch: opts.fetch });
    this.sections = new SectionCache(this.api, opts.clock);
  }

  async scan(folder: string, _context: ScanContext): Promise<ScanOutcome> {
    try {
      const { matches, all } = await this.sections.containing(folder);
      if (matches.length === 0) {
        const known = all.flatMap((s) => s.locations.map((l) => `${s.title}: ${l}`));
        return {
          status: 'unmatched',
          detail: `Unable to map '${folder}' to a Section ID. Known locations: ${known.join(', ') || 'none'}. Check SERVER_PATH_MAPPINGS (try: scanrelay explain '${folder}').`,
        };
      }
      for (const section of matches) await this.api.refresh(section.id, folder);
      return { status: 'scanned', detail: matches.map((s) => `section ${s.id} ${s.title}`).join(', ') };
    } catch (err) {
      return retryFrom(err);
    }
  }

  async available(): Promise<{ ok: true } | { ok: false; error: string }> {
    try {
      await this.sections.all(true);
      return { ok: true };
    } catch (err) {
      return { ok: false, error: (err as Error).message };
    }
  }
}

function retryFrom(err: unknown): ScanOutcome {
  if (err instanceof PlexError) {
    // 404 for one folder is the folder's problem; anything else means Plex itself can't take scans now.
    const targetDown = err.status === 0 || err.status === 401 || err.status === 403 || err.status >= 500;
    return { status: 'retry', error: err.message, targetDown };
  }
  return { status: 'retry', error: String(err), targetDown: false };
}
