// The Plex target through its HTTP API: a partial refresh of the folder in every section that holds it, then,
// when there is something to confirm or do afterwards, the wait for that scan to end and what follows it.
import type { Clock } from '../clock.js';
import { silentLogger, type Logger } from '../log.js';
import { PlexScanProgress, waitForSectionScan, type ScanWait, type Sleep } from '../plex/activities.js';
import {
  analyzeItem,
  emptyTrashIfSafe,
  NO_AFTER_SCAN,
  runScanCommand,
  trashWanted,
  type AfterScanSettings,
  type CommandEnv,
  type CommandRunner,
  type DeletedCounter,
} from '../plex/after-scan.js';
import { PlexApi, PlexError, type PlexSection } from '../plex/api.js';
import { waitUntilPlexAnswers } from '../plex/availability.js';
import { confirmFile, type Confirmation, type FileInLibrary } from '../plex/confirm.js';
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
  logger?: Logger;
  /** PLEX_CONFIRM_SCANS: follow the scan to its end and confirm the request's file. Default true. */
  confirmScans?: boolean;
  /** PLEX_CONFIRM_TIMEOUT in ms: the longest a scan is followed. */
  confirmTimeoutMs?: number;
  /** PLEX_CHECK_BEFORE_SCAN. */
  checkBeforeScan?: boolean;
  /** How long PLEX_CHECK_BEFORE_SCAN keeps asking before handing over to the processor's probe. */
  checkBudgetMs?: number;
  after?: Partial<AfterScanSettings>;
  /** The read-only Plex database, once wired in: is this file in media_parts? */
  fileInLibrary?: FileInLibrary;
  /** The read-only Plex database: items marked deleted per section (for PLEX_EMPTY_TRASH). */
  deletedCount?: DeletedCounter;
  /** Every pause (polls, retries); defaults to the clock's, so a manual clock makes simulated waits instant. */
  sleep?: Sleep;
  exists?: (path: string) => Promise<boolean>;
  runCommand?: CommandRunner;
}

export class PlexTarget implements Target {
  readonly kind = 'plex';
  readonly name: string;
  readonly pauseMs: number;
  readonly api: PlexApi;
  readonly sections: SectionCache;
  private readonly progress: PlexScanProgress;
  private readonly after: AfterScanSettings;
  private readonly logger: Logger;
  private readonly sleep: Sleep;
  private deepExplained = false;

  constructor(private readonly opts: PlexTargetOptions) {
    this.name = opts.name;
    this.pauseMs = opts.pauseMs ?? 0;
    this.api = new PlexApi({ url: opts.url, token: opts.token, timeoutMs: opts.timeoutMs, fetch: opts.fetch });
    this.sections = new SectionCache(this.api, opts.clock);
    this.progress = new PlexScanProgress(this.api);
    this.after = { ...NO_AFTER_SCAN, ...opts.after };
    this.logger = (opts.logger ?? silentLogger).child({ target: opts.name });
    this.sleep = opts.sleep ?? ((ms) => opts.clock.sleep(ms));
  }

  async scan(folder: string, context: ScanContext): Promise<ScanOutcome> {
    let matches: PlexSection[];
    try {
      if (this.opts.checkBeforeScan) {
        const answer = await waitUntilPlexAnswers(this.api, { clock: this.opts.clock, sleep: this.sleep, budgetMs: this.opts.checkBudgetMs });
        if (!answer.ok) {
          return { status: 'retry', error: `PLEX_CHECK_BEFORE_SCAN: ${answer.error} (asked ${answer.attempts} time(s))`, targetDown: true };
        }
      }
      const found = await this.sections.containing(folder);
      matches = found.matches;
      if (matches.length === 0) {
        const known = found.all.flatMap((s) => s.locations.map((l) => `${s.title}: ${l}`));
        return {
          status: 'unmatched',
          detail: `Unable to map '${folder}' to a Section ID. Known locations: ${known.join(', ') || 'none'}. Check SERVER_PATH_MAPPINGS (try: scanrelay explain '${folder}').`,
        };
      }
    } catch (err) {
      return retryFrom(err);
    }

    const env = this.commandEnv(folder, context, matches);
    await runScanCommand('before', this.after.commandBefore, env, this.logger, this.opts.runCommand);
    try {
      for (const section of matches) await this.api.refresh(section.id, folder);
    } catch (err) {
      return retryFrom(err);
    }

    const where = matches.map((s) => `section ${s.id} ${s.title}`).join(', ');
    const file = context.file && !context.deleted ? context.file : undefined;
    let outcome: ScanOutcome = { status: 'scanned', detail: where };
    if (this.follows(file)) {
      const followed = await this.followScan(matches, context, file);
      outcome = { status: 'scanned', detail: [where, ...followed.notes].join('; '), ...(followed.confirmation ? { confirmation: followed.confirmation } : {}) };
      env.SCANRELAY_CONFIRMATION = followed.confirmation ?? 'unconfirmed';
    }
    await runScanCommand('after', this.after.commandAfter, env, this.logger, this.opts.runCommand);
    return outcome;
  }

  async available(): Promise<{ ok: true } | { ok: false; error: string }> {
    try {
      await this.sections.all(true);
      return { ok: true };
    } catch (err) {
      return { ok: false, error: (err as Error).message };
    }
  }

  /**
   * The plain fast path (no waiting) unless there is a file to confirm or the trash to empty. Analyze rides on the
   * confirmation (it needs the item the confirmation finds), so PLEX_CONFIRM_SCANS false switches it off too.
   */
  private follows(file: string | undefined): boolean {
    if (trashWanted(this.after)) return true;
    return file !== undefined && (this.opts.confirmScans ?? true);
  }

  private async followScan(
    matches: PlexSection[],
    context: ScanContext,
    file: string | undefined,
  ): Promise<{ confirmation?: 'confirmed' | 'not-found'; notes: string[] }> {
    const timeoutMs = this.opts.confirmTimeoutMs ?? 300_000;
    const waits: ScanWait[] = [];
    const started = this.opts.clock.now();
    for (const section of matches) {
      // Sections are scanned one after another by Plex anyway; the remaining budget is shared.
      const spent = Math.max(this.opts.clock.now() - started, waits.reduce((n, w) => n + w.ms, 0));
      const left = Math.max(0, timeoutMs - spent);
      waits.push(await waitForSectionScan(this.progress, section.id, { timeoutMs: left, clock: this.opts.clock, sleep: this.sleep }));
    }
    const ms = Math.max(this.opts.clock.now() - started, waits.reduce((n, w) => n + w.ms, 0));
    const secs = (ms / 1000).toFixed(1);
    const unobservable = waits.find((w) => w.state === 'unobservable');
    if (unobservable && unobservable.state === 'unobservable') {
      this.logger.info({ file }, `Cannot tell when the scan ends: ${unobservable.reason}; not confirming, and skipping empty trash/analyze.`);
      return { notes: [`scan end not observable (${unobservable.reason}); not confirmed`] };
    }
    if (waits.some((w) => w.state === 'timeout')) {
      this.logger.warn({ file }, `Plex was still scanning after ${secs} s (PLEX_CONFIRM_TIMEOUT); not confirming, and skipping empty trash/analyze.`);
      return { notes: [`scan still running after ${secs} s (PLEX_CONFIRM_TIMEOUT); not confirmed`] };
    }
    const observed = waits.every((w) => w.state === 'finished' && w.observed);
    const notes = [observed ? `scan finished in ${secs} s` : `scan end not seen within ${secs} s (it may have run between polls)`];

    let confirmation: Confirmation | undefined;
    if (file) {
      confirmation = await confirmFile({
        api: this.api,
        sectionIds: matches.map((s) => s.id),
        file,
        fileInLibrary: this.opts.fileInLibrary,
        sleep: this.sleep,
      });
    }

    for (const section of matches) {
      const emptied = await emptyTrashIfSafe({
        api: this.api,
        sectionId: section.id,
        sectionTitle: section.title,
        event: context.event,
        settings: this.after,
        deletedCount: this.opts.deletedCount,
        exists: this.opts.exists,
        sleep: this.sleep,
        logger: this.logger,
      });
      if (emptied) notes.push(`trash emptied in section ${section.id}`);
    }
    if (file && this.after.analyze !== 'off' && (this.opts.confirmScans ?? true)) {
      // Claimed before the await: scans of one target run concurrently, and the note is for once per target.
      const explainDeep = this.after.analyze === 'deep' && !this.deepExplained;
      if (explainDeep) this.deepExplained = true;
      const analyzed = await analyzeItem({
        api: this.api,
        file,
        ratingKey: confirmation?.state === 'confirmed' ? confirmation.ratingKey : undefined,
        parentRatingKey: confirmation?.state === 'confirmed' ? confirmation.parentRatingKey : undefined,
        settings: this.after,
        logger: this.logger,
        explainDeep,
      });
      if (analyzed.length > 0) {
        notes.push(`${this.after.analyze} analyze started (${analyzed.length === 1 ? `item ${analyzed[0]}` : `${analyzed.length} items`})`);
      }
    }

    if (!confirmation) return { notes };
    if (confirmation.state === 'confirmed') {
      notes.splice(1, 0, `file confirmed in library (${confirmation.via})`);
      return { confirmation: 'confirmed', notes };
    }
    if (confirmation.state === 'not-found' && observed) {
      this.logger.warn({ file }, `Scan finished but the file is not in the library: ${confirmation.reason}`);
      notes.splice(1, 0, `not found: ${confirmation.reason}`);
      return { confirmation: 'not-found', notes };
    }
    // Without a seen end, a missing file may simply not have been scanned yet: say so rather than "not found".
    notes.splice(1, 0, confirmation.state === 'not-found' ? `file not in library yet (${confirmation.reason})` : `not confirmed: ${confirmation.reason}`);
    return { notes };
  }

  private commandEnv(folder: string, context: ScanContext, matches: PlexSection[]): CommandEnv {
    return {
      SCANRELAY_PATH: context.file ?? folder,
      SCANRELAY_FOLDER: folder,
      SCANRELAY_SECTION: matches.map((s) => s.id).join(','),
      SCANRELAY_EVENT: context.event,
      SCANRELAY_TARGET: this.name,
    };
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
