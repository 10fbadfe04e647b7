// The Plex target through its HTTP API: a partial refresh of the folder in every section that holds it. The
// delivery ends when Plex took the refresh; what follows the scan's end is the Plex follower's (plex/follower.ts).
import type { Clock } from '../clock.js';
import { silentLogger, type Logger } from '../log.js';
import { NO_AFTER_SCAN, trashWanted, type AfterScanSettings, type DeletedCounter } from '../plex/after-scan.js';
import { PlexApi, PlexError, type PlexSection } from '../plex/api.js';
import { waitUntilPlexAnswers } from '../plex/availability.js';
import type { FileInLibrary } from '../plex/confirm.js';
import { PlexFollower, type PlexTicket } from '../plex/follower.js';
import { MatchFixer } from '../plex/match.js';
import { SectionCache } from '../plex/sections.js';
import type { ScanContext, ScanOutcome, Target } from '../scan.js';

export interface PlexTargetOptions {
  name: string;
  url: string;
  token: string;
  pauseMs?: number;
  /** Refreshes sent at once while no pause is set. */
  concurrency?: number;
  clock: Clock;
  /** Per request, counted on `clock`. */
  timeoutMs?: number;
  /** The config key holding `url`, named in messages (PLEX_LOCAL_URL by default). */
  urlKey?: string;
  fetch?: typeof fetch;
  logger?: Logger;
  /** PLEX_CONFIRM_SCANS: follow the scan to its end and confirm the request's file. Default true. */
  confirmScans?: boolean;
  /** PLEX_CONFIRM_TIMEOUT in ms: the longest a scan is followed. */
  confirmTimeoutMs?: number;
  /** PLEX_FOLLOW_INTERVAL in ms: how often the follower asks Plex which sections are scanning. */
  followIntervalMs?: number;
  /** How long a section stays idle before a file still missing from it is judged. */
  followGraceMs?: number;
  /** PLEX_CHECK_BEFORE_SCAN. */
  checkBeforeScan?: boolean;
  /** How long PLEX_CHECK_BEFORE_SCAN keeps asking before handing over to the processor's probe. */
  checkBudgetMs?: number;
  /** The pauses of PLEX_CHECK_BEFORE_SCAN; the clock's by default. */
  sleep?: (ms: number) => Promise<void>;
  after?: Partial<AfterScanSettings>;
  /** The read-only Plex database: is this file in media_parts? */
  fileInLibrary?: FileInLibrary;
  /** The read-only Plex database: items marked deleted per section (for PLEX_EMPTY_TRASH). */
  deletedCount?: DeletedCounter;
  exists?: (path: string) => Promise<boolean>;
  /** PLEX_FIX_MISMATCHED (with its LANG and DRY_RUN): check each confirmed download's match. */
  fixMismatched?: { lang: string; dryRun: boolean };
}

export class PlexTarget implements Target {
  readonly kind = 'plex';
  readonly name: string;
  readonly pauseMs: number;
  readonly concurrency?: number;
  readonly api: PlexApi;
  readonly sections: SectionCache;
  readonly follower: PlexFollower;
  private readonly after: AfterScanSettings;
  private readonly confirmScans: boolean;

  constructor(private readonly opts: PlexTargetOptions) {
    this.name = opts.name;
    this.pauseMs = opts.pauseMs ?? 0;
    this.concurrency = opts.concurrency;
    this.api = new PlexApi({ url: opts.url, token: opts.token, timeoutMs: opts.timeoutMs, fetch: opts.fetch, clock: opts.clock, urlKey: opts.urlKey });
    this.sections = new SectionCache(this.api, opts.clock);
    this.after = { ...NO_AFTER_SCAN, ...opts.after };
    this.confirmScans = opts.confirmScans ?? true;
    const logger: Logger = (opts.logger ?? silentLogger).child({ target: opts.name });
    this.follower = new PlexFollower({
      api: this.api,
      clock: opts.clock,
      logger,
      pollMs: opts.followIntervalMs ?? 1_000,
      graceMs: opts.followGraceMs ?? 5_000,
      timeoutMs: opts.confirmTimeoutMs ?? 300_000,
      after: this.after,
      analyze: this.confirmScans,
      fileInLibrary: opts.fileInLibrary,
      deletedCount: opts.deletedCount,
      exists: opts.exists,
      fixer: opts.fixMismatched ? new MatchFixer(this.api, { ...opts.fixMismatched, clock: opts.clock }, logger) : undefined,
    });
  }

  async scan(folder: string, context: ScanContext): Promise<ScanOutcome> {
    let matches: PlexSection[];
    try {
      if (this.opts.checkBeforeScan) {
        const answer = await waitUntilPlexAnswers(this.api, { clock: this.opts.clock, sleep: this.opts.sleep ?? ((ms) => this.opts.clock.sleep(ms)), budgetMs: this.opts.checkBudgetMs });
        if (!answer.ok) {
          const error = `PLEX_CHECK_BEFORE_SCAN: ${answer.error} (asked ${answer.attempts} time(s))`;
          return { status: 'retry', error, ...failureKind(answer.status) };
        }
      }
      const found = await this.sections.containing(folder);
      matches = found.matches;
      if (matches.length === 0) {
        const known = found.all.flatMap((s) => s.locations.map((l) => `${s.title}: ${l}`));
        return {
          status: 'unmatched',
          detail: `Unable to map '${folder}' to a Section ID. Known locations: ${known.join(', ') || 'none'}. Check the SERVER_PATH_MAPPINGS entry for the path as received.`,
        };
      }
      for (const section of matches) await this.api.refresh(section.id, folder);
    } catch (err) {
      return retryFrom(err);
    }
    const detail = matches.map((s) => `section ${s.id} ${s.title}`).join(', ');
    const file = context.file && !context.deleted && this.confirmScans ? context.file : undefined;
    const sections = matches.map((s) => s.id);
    // Nothing to confirm and no trash to empty: the scan is done once Plex took it.
    if (!file && !trashWanted(this.after)) return { status: 'scanned', detail, sections };
    const ids = file && this.opts.fixMismatched && context.ids ? { ids: context.ids } : {};
    const ticket: PlexTicket = { sections: matches.map((s) => ({ id: s.id, title: s.title })), ...(file ? { file } : {}), ...ids };
    return { status: 'scanned', detail, sections, follow: ticket };
  }

  async sectionsOf(folder: string): Promise<string[]> {
    return (await this.sections.containing(folder)).matches.map((s) => s.id);
  }

  async available(): Promise<{ ok: true } | { ok: false; error: string }> {
    try {
      // /identity answers without a token (is Plex there at all?); the library list needs a valid one.
      await this.api.identity();
      await this.sections.all(true);
      return { ok: true };
    } catch (err) {
      return { ok: false, error: (err as Error).message };
    }
  }
}

function retryFrom(err: unknown): ScanOutcome {
  if (err instanceof PlexError) return { status: 'retry', error: err.message, ...failureKind(err.status) };
  return { status: 'retry', error: String(err), targetDown: false };
}

/**
 * Only silence (status 0: refused, timeout, DNS) is the server's; a refused token asks the server-level question
 * (the processor probes at once); any other answer (404, 500, a redirect) is this folder's and backs it off.
 */
function failureKind(status: number): { targetDown: boolean; tokenRefused?: true } {
  if (status === 0) return { targetDown: true };
  if (status === 401 || status === 403) return { targetDown: false, tokenRefused: true };
  return { targetDown: false };
}
