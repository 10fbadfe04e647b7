// Takes follow-ups as far as they may go now: each one's next step from follow-up.ts's `nextStep` (the one
// decision), the library asked about the files of those that need it, and the judged ones finished. Every entry
// point ends here. The library is asked in batches: the database when readable (the only source that can say
// not-found), the recently added items where the socket cannot vouch for the scan, and, for a file still without
// a sign, the items of the scan ends heard lately (an earlier scan of its folder may have added it) before the
// verdict asks Plex once more.
import { trashWanted } from '../after-scan.js';
import { confirmBatch } from '../confirm.js';
import type { FollowUp, Moment } from './follow-up.js';
import { nextStep } from './follow-up.js';
import type { FollowOutcomes } from './follow-outcomes.js';
import type { FollowUps } from './follow-ups.js';
import { FINISHED_TOGETHER, LOOKUPS_AT_ONCE, type PlexFollowerOptions } from './follow-state.js';
import type { IdleSections } from './idle-sections.js';
import { itemsOfScans } from './item-files.js';
import { plexGet, type PlexGet } from './item-files.js';
import { secs, verdict } from './verdict.js';

export interface Round {
  /** Plex did not answer the poll (why): PLEX_CONFIRM_TIMEOUT counts from the delivery. */
  unreachable?: string;
  /** false: no lookups now (follow-ups whose sections are not idle, seen only for their timeout). */
  look?: boolean;
  /** Analyses shared by the parts of one batch, so an item or season is analyzed once for all of them. */
  analyses?: Map<string, Promise<string[]>>;
}

export class Judge {
  private readonly get: PlexGet;

  constructor(
    private readonly opts: PlexFollowerOptions,
    private readonly record: FollowUps,
    private readonly idle: IdleSections,
    private readonly outcomes: FollowOutcomes,
  ) {
    this.get = opts.get ?? plexGet(opts.api);
  }

  /**
   * Oldest first, a part at a time (all at once when the trash is to be emptied, once per section after the whole
   * batch): those that waited longest are recorded before the rest are looked up.
   */
  async settle(list: FollowUp[], round: Round = {}): Promise<void> {
    const together = trashWanted(this.opts.after) ? list.length : FINISHED_TOGETHER;
    const analyses = round.analyses ?? new Map<string, Promise<string[]>>();
    for (let i = 0; i < list.length; i += together) await this.settlePart(list.slice(i, i + together), { ...round, analyses });
  }

  private async settlePart(part: FollowUp[], round: Round): Promise<void> {
    const look: FollowUp[] = [];
    const judged: FollowUp[] = [];
    const expired: FollowUp[] = [];
    for (const f of part) {
      if (!this.record.holds(f)) continue;
      const step = nextStep(f, this.moment(f, false, round));
      if (step === 'judge') judged.push(f);
      else if (step === 'expire') expired.push(f);
      else if (step === 'look' && round.look !== false) look.push(f);
    }
    this.expire(expired, round.unreachable);
    if (look.length) {
      await this.lookUp(look);
      for (const f of look) if (this.record.holds(f) && nextStep(f, this.moment(f, true, round)) === 'judge') judged.push(f);
    }
    this.finish(judged, round.analyses!);
  }

  private moment(f: FollowUp, looked: boolean, round: Round): Moment {
    const now = this.opts.clock.now();
    return { now, timeoutMs: this.opts.timeoutMs, graceOver: this.idle.graceOver(f, now), looked, unreachable: round.unreachable !== undefined };
  }

  /** The socket has been open since before this follow-up began, and can vouch for its scan's end. */
  private watched(f: FollowUp): boolean {
    return this.sawAll(f) && !f.unheard;
  }

  /** The socket has told what Plex created or updated since before this follow-up began. */
  private sawAll(f: FollowUp): boolean {
    const since = this.opts.watch?.connectedSince;
    return since !== undefined && since <= f.followedAt;
  }

  private async lookUp(list: FollowUp[]): Promise<void> {
    const withFile = list.filter((f) => f.ticket.file !== undefined);
    if (!withFile.length) return;
    const answers = await confirmBatch({
      api: this.opts.api,
      files: withFile.map((f) => ({ file: f.ticket.file!, sections: f.ticket.sections, listing: !this.watched(f) })),
      fileInLibrary: this.opts.fileInLibrary,
      wantItem: this.opts.analyze && this.opts.after.analyze !== 'off',
      concurrency: LOOKUPS_AT_ONCE,
    });
    withFile.forEach((f, i) => this.record.tell(f, { kind: 'evidence', evidence: answers[i] }));
    await this.lookBack(withFile.filter((f) => f.evidence?.state === 'unknown'));
  }

  /** No sign of these files yet: the items of every scan end of their sections heard lately, newest first. */
  private async lookBack(list: FollowUp[]): Promise<void> {
    const watch = this.opts.watch;
    if (!watch || !list.length) return;
    const ends = watch.endedSince(new Set(list.flatMap((f) => f.ticket.sections.map((s) => s.id))), -Infinity).reverse();
    if (!ends.length) return;
    let found;
    try {
      found = await itemsOfScans(this.get, ends, new Set(list.map((f) => f.ticket.file!)), LOOKUPS_AT_ONCE);
    } catch {
      return; // no sign still: the verdict says what could not be read
    }
    for (const f of list) {
      const item = found.get(f.ticket.file!);
      if (item) this.record.tell(f, { kind: 'evidence', evidence: { state: 'confirmed', via: 'notifications', ratingKey: item.ratingKey, parentRatingKey: item.parentRatingKey } });
    }
  }

  private expire(list: FollowUp[], unreachable?: string): void {
    const now = this.opts.clock.now();
    const taken = list.filter((f) => this.record.take(f));
    this.outcomes.plain(
      taken.map((f) => {
        const detail = unreachable ? `Plex did not say whether the scan ended (${unreachable})` : `Plex was still scanning after ${secs(now - f.item.deliveredAt)} s (PLEX_CONFIRM_TIMEOUT)`;
        return { item: f.item, ticket: f.ticket, result: { state: 'unconfirmed', detail: `${detail}; not confirmed, trash and analyze skipped.` } };
      }),
    );
  }

  private finish(list: FollowUp[], analyses: Map<string, Promise<string[]>>): void {
    const now = this.opts.clock.now();
    const taken = list.filter((f) => this.record.take(f));
    if (!taken.length) return;
    this.outcomes.afterScan(
      taken.map((f) => ({ item: f.item, ticket: f.ticket, ...verdict({ file: f.ticket.file, waitedMs: now - f.item.deliveredAt, seenRunning: f.seenRunning, last: f.evidence, watched: this.sawAll(f) }) })),
      analyses,
    );
  }
}
