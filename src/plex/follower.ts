// Follows the scans one Plex server accepted: one poll per interval for every section followed, then, per
// section that went idle, one batch: confirm the files, empty the trash once, analyze each item once.
import type { Clock } from '../clock.js';
import type { Logger } from '../log.js';
import type { ExternalIds, Follower, FollowItem, FollowResult } from '../scan.js';
import { PlexScanProgress } from './activities.js';
import { afterBatch, trashWanted, type AfterScanSettings, type DeletedCounter } from './after-scan.js';
import type { PlexApi } from './api.js';
import { confirmBatch, type BatchConfirmation, type FileInLibrary } from './confirm.js';
import type { MatchFixer } from './match.js';

/** What the Plex target hands its follower for one accepted scan (stored as JSON with the delivery). */
export interface PlexTicket {
  sections: { id: string; title: string }[];
  /** The file to confirm in the library, when the request named one and PLEX_CONFIRM_SCANS is on. */
  file?: string;
  /** The download's series/movie IDs, when PLEX_FIX_MISMATCHED is on. */
  ids?: ExternalIds;
}

export interface PlexFollowerOptions {
  api: PlexApi;
  clock: Clock;
  logger: Logger;
  /** PLEX_FOLLOW_INTERVAL in ms: one /activities request per interval, whatever the number of folders. */
  pollMs: number;
  /** How long a section must stay idle before a file that is still not in the library is judged (per section). */
  graceMs: number;
  /** PLEX_CONFIRM_TIMEOUT in ms: the longest a scan is followed. */
  timeoutMs: number;
  after: AfterScanSettings;
  /** Analyze needs a confirmed item: off with PLEX_CONFIRM_SCANS false. */
  analyze: boolean;
  fileInLibrary?: FileInLibrary;
  deletedCount?: DeletedCounter;
  exists?: (path: string) => Promise<boolean>;
  /** PLEX_FIX_MISMATCHED. */
  fixer?: MatchFixer;
}

/**
 * File lookups in flight during a batch. They are reads Plex answers from its database in milliseconds; 16 keep
 * a batch of 600 files (what arrives in one interval at full delivery speed) within that interval.
 */
const LOOKUPS_AT_ONCE = 16;

/**
 * The files of a batch are looked up and finished this many at a time unless the trash is to be emptied (once
 * per section, after the whole batch): a poll judges the oldest first, so those that waited longest for it do
 * not also wait for the lookups of the whole batch (600 of them take most of an interval on a busy server).
 */
export const FINISHED_TOGETHER = LOOKUPS_AT_ONCE * 4;

interface Followed {
  item: FollowItem;
  ticket: PlexTicket;
  /** The poll count when it was added: only a poll that began later can judge it. */
  addedAtPoll: number;
  seenRunning: boolean;
  /** When a poll saw its section scanning with no earlier scan of it followed: PLEX_CONFIRM_TIMEOUT counts from here. */
  startedAt?: number;
  /** The latest answer of the library about its file (not-found is final only after the grace). */
  last?: BatchConfirmation;
}

interface SectionState {
  idleSince?: number;
  lastAddedAt: number;
}

export class PlexFollower implements Follower {
  private readonly items = new Map<string, Followed>();
  private readonly sections = new Map<string, SectionState>();
  private readonly progress: PlexScanProgress;
  private readonly batches = new Set<Promise<void>>();
  private done?: (item: FollowItem, result: FollowResult) => Promise<void>;
  private running = false;
  private loopDone?: Promise<void>;
  private wakeUp?: () => void;
  private polls = 0;
  private lastPollAt = -Infinity;
  private unreachable?: string;
  private readonly said = { deep: false };
  private finishing = 0;

  constructor(private readonly opts: PlexFollowerOptions) {
    this.progress = new PlexScanProgress(opts.api);
  }

  /** Scans Plex accepted that are not yet seen ended: what MAX_OUTSTANDING caps (the processor's dispatch). */
  outstanding(): number {
    return this.items.size;
  }

  /** Followed, or judged and still being finished (trash, analyze, recording). */
  get size(): number {
    return this.items.size + this.finishing;
  }

  start(done: (item: FollowItem, result: FollowResult) => Promise<void>): void {
    this.done = done;
    if (this.running) return;
    this.running = true;
    this.loopDone = this.loop();
  }

  follow(item: FollowItem): void {
    const ticket = item.ticket as PlexTicket;
    const key = `${item.ref.folderId}:${item.ref.generation}`;
    this.items.set(key, { item, ticket, addedAtPoll: this.polls, seenRunning: false });
    const now = this.opts.clock.now();
    for (const s of ticket.sections) {
      const state = this.sections.get(s.id) ?? { lastAddedAt: now };
      state.lastAddedAt = now;
      this.sections.set(s.id, state);
    }
    this.wakeUp?.();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.wakeUp?.();
    await this.loopDone;
    while (this.batches.size) await Promise.allSettled([...this.batches]);
  }

  private async loop(): Promise<void> {
    const { clock, pollMs } = this.opts;
    while (this.running) {
      if (this.items.size === 0 || clock.now() < this.lastPollAt + pollMs) {
        const wait = this.items.size === 0 ? undefined : this.lastPollAt + pollMs - clock.now();
        await new Promise<void>((resolve) => {
          this.wakeUp = resolve;
          if (wait !== undefined) void clock.sleep(wait).then(resolve);
        });
        this.wakeUp = undefined;
        continue;
      }
      this.lastPollAt = clock.now();
      try {
        await this.poll();
      } catch (err) {
        this.opts.logger.error({ err: String(err) }, `following Plex scans failed (${String(err)}); trying again at the next poll`);
      }
    }
  }

  /** One look at Plex for every followed section, then the batches of the sections that are idle. */
  private async poll(): Promise<void> {
    const { clock, logger } = this.opts;
    const started = clock.now();
    const poll = ++this.polls;
    let running: Set<string>;
    try {
      running = await this.progress.running();
      if (this.unreachable) logger.info(`Plex at ${this.opts.api.url} answers again; following its scans resumes.`);
      this.unreachable = undefined;
    } catch (err) {
      const why = (err as Error).message;
      if (!this.unreachable) logger.warn(`Cannot ask Plex at ${this.opts.api.url} which scans run (${why}); following resumes when it answers.`);
      this.unreachable = why;
      this.expire(clock.now(), `Plex did not say whether the scan ended (${why})`);
      return;
    }
    const sectionsFollowed = new Set<string>();
    for (const f of this.items.values()) for (const s of f.ticket.sections) sectionsFollowed.add(s.id);
    for (const id of sectionsFollowed) {
      const state = this.sections.get(id)!;
      if (running.has(id)) state.idleSince = undefined;
      else state.idleSince ??= started;
    }
    for (const id of this.sections.keys()) if (!sectionsFollowed.has(id)) this.sections.delete(id);
    const judged: Followed[] = [];
    // Plex runs a section's scans in the order it took them: one behind an earlier scan still followed waits.
    const ahead = new Set<string>();
    for (const f of this.items.values()) {
      const first = f.ticket.sections.every((s) => !ahead.has(s.id));
      for (const s of f.ticket.sections) ahead.add(s.id);
      if (f.addedAtPoll >= poll) continue;
      if (f.ticket.sections.some((s) => running.has(s.id))) {
        f.seenRunning = true;
        if (first) f.startedAt ??= started;
      } else judged.push(f);
    }
    const together = trashWanted(this.opts.after) ? judged.length : FINISHED_TOGETHER;
    const ended = new Set<Followed>();
    // Shared by the parts of this batch, so each item (or parent) is analyzed once for all of them.
    const analyses = new Map<string, Promise<string[]>>();
    for (let i = 0; i < judged.length; i += together) {
      const finished = await this.judge(judged.slice(i, i + together), clock.now());
      for (const r of finished) ended.add(r.followed);
      if (finished.length) this.finishBatch(finished, analyses);
    }
    this.expire(clock.now(), undefined, ended);
  }

  /** Items whose sections are idle: confirmed ones end now, the rest once their section's grace is over. */
  private async judge(judged: Followed[], now: number): Promise<{ followed: Followed; result: FollowResult; ratingKey?: string; parentRatingKey?: string }[]> {
    const withFile = judged.filter((f) => f.ticket.file !== undefined);
    const answers = await confirmBatch({
      api: this.opts.api,
      files: withFile.map((f) => ({ file: f.ticket.file!, sectionIds: f.ticket.sections.map((s) => s.id) })),
      fileInLibrary: this.opts.fileInLibrary,
      wantItem: this.opts.analyze && this.opts.after.analyze !== 'off',
      concurrency: LOOKUPS_AT_ONCE,
    });
    withFile.forEach((f, i) => (f.last = answers[i]));
    const out: { followed: Followed; result: FollowResult; ratingKey?: string; parentRatingKey?: string }[] = [];
    for (const f of judged) {
      const waited = secs(now - f.item.deliveredAt);
      const last = f.last;
      if (last?.state === 'confirmed') {
        out.push({ followed: f, result: { state: 'confirmed', detail: `In the library after ${waited} s (confirmed through ${last.via}).` }, ratingKey: last.ratingKey, parentRatingKey: last.parentRatingKey });
        continue;
      }
      if (!this.graceOver(f, now)) continue;
      if (!f.ticket.file) {
        const how = f.seenRunning ? 'Plex finished the scan' : 'Plex showed no scan running';
        out.push({ followed: f, result: { state: 'scanned', detail: `${how} after ${waited} s.` } });
      } else if (last?.state === 'not-found') {
        out.push({ followed: f, result: { state: 'not-found', detail: `Not in the library after the scan ended: ${last.reason}` } });
      } else {
        out.push({ followed: f, result: { state: 'unconfirmed', detail: `Scan ended; could not confirm the file: ${last?.reason ?? 'no answer'}` } });
      }
    }
    return out;
  }

  /** A section's grace runs from its latest scan request or from when it went idle, whichever is later. */
  private graceOver(f: Followed, now: number): boolean {
    return f.ticket.sections.every((s) => {
      const state = this.sections.get(s.id);
      if (!state || state.idleSince === undefined) return false;
      return now - Math.max(state.idleSince, state.lastAddedAt) >= this.opts.graceMs;
    });
  }

  /** Items followed for longer than PLEX_CONFIRM_TIMEOUT end unconfirmed. */
  private expire(now: number, why?: string, skip = new Set<Followed>()): void {
    const expired: { followed: Followed; result: FollowResult }[] = [];
    for (const f of this.items.values()) {
      // A scan still queued in Plex has not started, so its timeout has not begun (unreachable: from acceptance).
      const from = why ? f.item.deliveredAt : f.startedAt;
      if (skip.has(f) || from === undefined || now - from < this.opts.timeoutMs) continue;
      const detail = why ?? `Plex was still scanning after ${secs(now - f.item.deliveredAt)} s (PLEX_CONFIRM_TIMEOUT)`;
      expired.push({ followed: f, result: { state: 'unconfirmed', detail: `${detail}; not confirmed, trash and analyze skipped.` } });
    }
    for (const e of expired) this.items.delete(keyOf(e.followed.item));
    this.finishing += expired.length;
    // Nothing was seen to end: no trash, no analyze, just the outcome.
    for (const e of expired) this.track(this.report(e.followed.item, e.result));
  }

  private finishBatch(finished: { followed: Followed; result: FollowResult; ratingKey?: string; parentRatingKey?: string }[], analyses: Map<string, Promise<string[]>>): void {
    for (const f of finished) this.items.delete(keyOf(f.followed.item));
    this.finishing += finished.length;
    const batch = afterBatch({
      api: this.opts.api,
      settings: this.opts.after,
      analyze: this.opts.analyze,
      logger: this.opts.logger,
      clock: this.opts.clock,
      deletedCount: this.opts.deletedCount,
      exists: this.opts.exists,
      said: this.said,
      fixer: this.opts.fixer,
      analyses,
      items: finished.map((f) => ({
        sections: f.followed.ticket.sections,
        event: f.followed.item.event,
        file: f.followed.ticket.file,
        ids: f.followed.ticket.ids,
        ratingKey: f.ratingKey,
        parentRatingKey: f.parentRatingKey,
      })),
    })
      .catch((err: unknown) => {
        this.opts.logger.error({ err: String(err) }, `the after-scan steps of a batch failed (${String(err)}); recording the outcomes without them`);
        return finished.map(() => [] as string[]);
      })
      // All at once: the outcomes of one batch are recorded in one transaction (the queue's group commit).
      .then(async (notes) => {
        await Promise.all(
          finished.map((f, i) => {
            const extra = notes[i].length ? ` ${notes[i].join(' ')}` : '';
            return this.report(f.followed.item, { ...f.result, detail: `${f.result.detail}${extra}` });
          }),
        );
      });
    this.track(batch);
  }

  private async report(item: FollowItem, result: FollowResult): Promise<void> {
    try {
      await this.done?.(item, result);
    } catch (err) {
      this.opts.logger.error({ folder: item.folder, err: String(err) }, `could not record the follow-up of '${item.folder}'; it is followed again after a restart`);
    } finally {
      this.finishing--;
    }
  }

  private track(p: Promise<void>): void {
    const guarded = p.catch((err: unknown) => this.opts.logger.error({ err: String(err) }, `after-scan steps failed: ${String(err)}`));
    this.batches.add(guarded);
    void guarded.finally(() => this.batches.delete(guarded));
  }
}

function keyOf(item: FollowItem): string {
  return `${item.ref.folderId}:${item.ref.generation}`;
}

const secs = (ms: number): string => (Math.max(0, ms) / 1000).toFixed(1);
