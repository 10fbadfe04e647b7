// The "plex" kind: a partial refresh of the folder in every section that holds it, through Plex's HTTP API. The
// delivery ends when Plex took the refresh; what follows the scan's end is the Plex follower's (plex/follow/follower.ts).
import type { Clock } from '../../clock.js';
import { bool, choice, integer, optional, stringList, text } from '../../value-rules.js';
import { silentLogger, type Logger } from '../../log/logger.js';
import { NO_AFTER_SCAN, trashWanted, type AfterScanSettings, type DeletedCounter } from './after-scan.js';
import { PlexApi } from './api.js';
import { waitUntilPlexAnswers } from './availability.js';
import type { FileInLibrary } from './confirm.js';
import type { PlexTicket } from './follow/follow-up.js';
import { PlexFollower } from './follow/follower.js';
import { MatchFixer } from './match.js';
import { PlexNotifications } from './follow/notifications.js';
import type { Dial, Liveness } from '../../http/media-socket.js';
import { locatePlexItems, refreshPlexItem } from './items.js';
import type { ItemLocation, ItemRefreshResult, Library, ScanContext, ScanOutcome } from '../../scan.js';
import { needsToken, needsUrl, refreshingItems, targetKind, type Capabilities, type Entry } from '../kind.js';
import { LibraryList, holders } from '../library-list.js';
import type { PlexContext } from './context.js';
import { sectionFiles } from './section-files.js';

/** A Plex section as the target keeps it: its title as Plex names it, for details and the follower. */
export interface PlexLibrary extends Library {
  name: string;
  /** movie, show, artist, photo: which items hold files, for the last-resort listing. */
  sectionType?: string;
}

export interface PlexTargetOptions {
  url: string;
  token: string;
  clock: Clock;
  /** Per request, counted on `clock`. */
  timeoutMs?: number;
  /** The config keys holding `url` and `token`, named in messages (PLEX_LOCAL_URL and PLEX_TOKEN by default). */
  urlKey?: string;
  tokenKey?: string;
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
  /**
   * PLEX_NOTIFICATIONS: follow scans through Plex's notification socket (`dial` and the backoff for tests).
   * Off when left out, so a target built by hand polls /activities only; the config turns it on by default.
   */
  notifications?: false | { dial?: Dial; firstBackoffMs?: number; maxBackoffMs?: number; liveness?: Partial<Liveness> };
  /** How long a scan may stay outstanding with its sections idle in /activities (src/targets/plex/follow/follower.ts, RELEASE_AFTER_MS). */
  releaseAfterMs?: number;
}

export class PlexTarget implements Capabilities {
  readonly kind = 'plex';
  /** A refresh of a section's own folder rescans the whole section. */
  readonly wholeLibraryAtRoot = true;
  readonly api: PlexApi;
  readonly follower: PlexFollower;
  private readonly list: LibraryList<PlexLibrary>;
  private readonly items: Required<Pick<Capabilities, 'locate' | 'refreshItem'>>;
  private readonly after: AfterScanSettings;
  private readonly confirmScans: boolean;

  constructor(private readonly opts: PlexTargetOptions) {
    const logger: Logger = opts.logger ?? silentLogger;
    this.api = new PlexApi({ url: opts.url, token: opts.token, timeoutMs: opts.timeoutMs, fetch: opts.fetch, clock: opts.clock, urlKey: opts.urlKey, tokenKey: opts.tokenKey, logger });
    this.list = new LibraryList(async () => (await this.api.sections()).map(plexLibrary), opts.clock);
    this.items = plexItems(this.api, this.list);
    this.after = { ...NO_AFTER_SCAN, ...opts.after };
    this.confirmScans = opts.confirmScans ?? true;
    // Its life is checked at the busy pace while Plex holds scans of ours (src/http/media-socket.ts, LIVENESS).
    const busy = () => this.follower.outstanding() > 0;
    const say = { logger, name: `Plex's notification socket at ${this.api.url}`, meanwhile: 'scans are followed by polling /activities' };
    const socket = opts.notifications ? new PlexNotifications({ url: opts.url, token: opts.token, clock: opts.clock, busy, say, ...opts.notifications }) : undefined;
    this.follower = new PlexFollower({
      watch: socket,
      api: this.api,
      clock: opts.clock,
      logger,
      pollMs: opts.followIntervalMs ?? 1_000,
      graceMs: opts.followGraceMs ?? 5_000,
      timeoutMs: opts.confirmTimeoutMs ?? 300_000,
      releaseAfterMs: opts.releaseAfterMs,
      after: this.after,
      analyze: this.confirmScans,
      fileInLibrary: opts.fileInLibrary,
      deletedCount: opts.deletedCount,
      exists: opts.exists,
      fixer: opts.fixMismatched ? new MatchFixer(this.api, { ...opts.fixMismatched, clock: opts.clock }, logger) : undefined,
    });
  }

  async scan(folder: string, context: ScanContext): Promise<ScanOutcome> {
    let matches: PlexLibrary[];
    let accepted: PlexTicket['accepted'];
    try {
      if (this.opts.checkBeforeScan) {
        const answer = await waitUntilPlexAnswers(this.api, { clock: this.opts.clock, sleep: this.opts.sleep ?? ((ms) => this.opts.clock.sleep(ms)), budgetMs: this.opts.checkBudgetMs });
        if (!answer.ok) {
          const error = `PLEX_CHECK_BEFORE_SCAN: ${answer.error} (asked ${answer.attempts} time(s))`;
          return { status: 'retry', error, targetDown: answer.status === 0, ...(answer.status === 401 || answer.status === 403 ? { tokenRefused: true } : {}) };
        }
      }
      const found = await this.list.holding(folder);
      matches = found.holders;
      if (matches.length === 0) {
        const known = found.all.flatMap((s) => s.locations.map((l) => `${s.name}: ${l}`));
        return {
          status: 'unmatched',
          detail: `Unable to map '${folder}' to a Section ID. Known locations: ${known.join(', ') || 'none'}. Check the SERVER_PATH_MAPPINGS entry for the path as received.`,
        };
      }
      // Before the refreshes: Plex can scan a small folder before it answers, and those entries must be kept.
      this.follower.watchScans(matches.map((s) => s.id));
      for (const section of matches) {
        // Counted the moment Plex took it, in the order it took them (the follower's queue of scans, per section).
        const placed = await this.follower.queues.send(section.id, () => this.api.refresh(section.id, folder));
        accepted = accepted ? { ...accepted, seq: { ...accepted.seq, ...placed.seq } } : placed;
      }
    } catch (err) {
      this.follower.queues.recorded(accepted);
      return this.api.retry(err);
    }
    const detail = matches.map((s) => `section ${s.id} ${s.name}`).join(', ');
    const file = context.file && !context.deleted && this.confirmScans ? context.file : undefined;
    const sections = matches.map((s) => s.id);
    // Nothing to confirm and no trash to empty: the scan is done once Plex took it.
    if (!file && !trashWanted(this.after)) {
      this.follower.queues.recorded(accepted);
      return { status: 'scanned', detail, sections };
    }
    const ids = file && this.opts.fixMismatched && context.ids ? { ids: context.ids } : {};
    const ticket: PlexTicket = { sections: matches.map((s) => ({ id: s.id, title: s.name, ...(s.sectionType ? { type: s.sectionType } : {}) })), folder, ...(file ? { file } : {}), ...ids, ...(accepted ? { accepted } : {}) };
    return { status: 'scanned', detail, sections, follow: ticket };
  }

  /** Refreshes Plex accepted whose end the follower has not seen yet (scans with nothing to follow are not counted). */
  outstanding(): number {
    return this.follower.outstanding();
  }

  libraries(ask?: { fresh?: boolean; holding?: string }): Promise<Library[]> {
    return this.list.get(ask);
  }

  files(library: Library): AsyncIterable<string[]> {
    return sectionFiles(this.api, library as PlexLibrary);
  }

  locate(file: string): Promise<ItemLocation> {
    return this.items.locate(file);
  }

  refreshItem(file: string): Promise<ItemRefreshResult> {
    return this.items.refreshItem(file);
  }

  async available(): Promise<{ ok: true } | { ok: false; error: string }> {
    try {
      // /identity answers without a token (is Plex there at all?); the library list needs a valid one.
      await this.api.identity();
      await this.list.get({ fresh: true });
      return { ok: true };
    } catch (err) {
      return { ok: false, error: (err as Error).message };
    }
  }
}

/** The item(s) holding a file, found and refreshed through the server's API (the "plex" kind, or a scanner entry with a token). */
export function plexItems(api: PlexApi, list: LibraryList<PlexLibrary>): Required<Pick<Capabilities, 'locate' | 'refreshItem'>> {
  const locate = async (file: string) => {
    try {
      return await locatePlexItems(api, file, holders(await list.get({ holding: file }), file));
    } catch (err) {
      return api.itemRetry(err);
    }
  };
  return { locate, refreshItem: refreshingItems(locate, (key) => refreshPlexItem(api, key), (err) => api.itemRetry(err)) };
}

export function plexLibrary(s: { id: string; title: string; type?: string; locations: string[] }): PlexLibrary {
  return { id: s.id, title: `${s.title} (section ${s.id})`, name: s.title, locations: s.locations, ...(s.type ? { sectionType: s.type } : {}) };
}

const keys = () => ({
    /** This Plex's own database, read-only: confirms scans and guards EMPTY_TRASH. */
    DATABASE_PATH: optional(text()),
    // What follows a scan; each left out means the matching PLEX_* key. EMPTY_TRASH alone defaults to false
    // without this entry's own DATABASE_PATH: the deleted count must come from its own library.
    EMPTY_TRASH: optional(bool()),
    EMPTY_TRASH_MAX_FILES: optional(integer(0, Number.MAX_SAFE_INTEGER, 'a whole number, 0 or more')),
    EMPTY_TRASH_CONTROL_FILES: optional(stringList(true)),
    EMPTY_TRASH_ZERO_DELETED: optional(bool()),
    ANALYZE_TYPE: optional(choice(['off', 'basic', 'deep'])),
    ANALYZE_DIRECTORY: optional(bool()),
  });

export const plex = targetKind({
  keys,
  requires: { URL: needsUrl('plex'), TOKEN: needsToken('plex') },
  build: (entry, ctx: PlexContext) => new PlexTarget({ url: entry.URL ?? '', token: entry.TOKEN ?? '', urlKey: ctx.urlKey, tokenKey: ctx.tokenKey, clock: ctx.clock, fetch: ctx.fetch, ...followUp(entry, ctx) }),
});

/**
 * What follows an API scan: each key an entry leaves out falls back to the PLEX_* one. EMPTY_TRASH is the
 * exception: the deleted count that guards it must come from that server's own database, so without the
 * entry's DATABASE_PATH it stays off unless asked for (and then warns).
 */
function followUp(entry: Entry<ReturnType<typeof keys>>, ctx: PlexContext): Partial<PlexTargetOptions> {
  const top = ctx.plex;
  const database = entry.DATABASE_PATH ? ctx.plexDatabase?.(entry.DATABASE_PATH) : undefined;
  if (entry.EMPTY_TRASH && !entry.DATABASE_PATH) {
    ctx.logger.warn(
      `TARGETS "${entry.NAME}": EMPTY_TRASH is true but the entry has no DATABASE_PATH, so its trash is never emptied: ` +
        `the number of deleted items that guards it must come from that Plex's own database.`,
    );
  }
  return {
    fileInLibrary: database?.fileInLibrary,
    deletedCount: database?.deletedCount,
    logger: ctx.logger.child({ target: entry.NAME }),
    confirmScans: top.PLEX_CONFIRM_SCANS,
    confirmTimeoutMs: top.PLEX_CONFIRM_TIMEOUT * 1000,
    followIntervalMs: top.PLEX_FOLLOW_INTERVAL * 1000,
    notifications: top.PLEX_NOTIFICATIONS && top.PLEX_CONFIRM_SCANS ? {} : false,
    ...(fixMismatched(ctx) ? { fixMismatched: { lang: top.PLEX_FIX_MISMATCHED_LANG, dryRun: top.PLEX_FIX_MISMATCHED_DRY_RUN } } : {}),
    checkBeforeScan: top.PLEX_CHECK_BEFORE_SCAN,
    after: {
      emptyTrash: entry.EMPTY_TRASH ?? (entry.DATABASE_PATH ? top.PLEX_EMPTY_TRASH : false),
      emptyTrashMaxFiles: entry.EMPTY_TRASH_MAX_FILES ?? top.PLEX_EMPTY_TRASH_MAX_FILES,
      emptyTrashControlFiles: entry.EMPTY_TRASH_CONTROL_FILES ?? top.PLEX_EMPTY_TRASH_CONTROL_FILES,
      emptyTrashZeroDeleted: entry.EMPTY_TRASH_ZERO_DELETED ?? top.PLEX_EMPTY_TRASH_ZERO_DELETED,
      analyze: entry.ANALYZE_TYPE ?? top.PLEX_ANALYZE_TYPE,
      analyzeDirectory: entry.ANALYZE_DIRECTORY ?? top.PLEX_ANALYZE_DIRECTORY,
      entry: ctx.first ? undefined : entry.NAME,
    },
  };
}

/** PLEX_FIX_MISMATCHED works on confirmed API scans, so it needs PLEX_CONFIRM_SCANS too, and says so when it can't. */
function fixMismatched(ctx: PlexContext): boolean {
  if (!ctx.plex.PLEX_FIX_MISMATCHED) return false;
  if (!ctx.plex.PLEX_CONFIRM_SCANS) {
    ctx.logger.warn('PLEX_FIX_MISMATCHED is on but PLEX_CONFIRM_SCANS is false: matches are checked only for confirmed files, so none are.');
    return false;
  }
  return true;
}
