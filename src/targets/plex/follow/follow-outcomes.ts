// The last leg of a Plex follow-up: the after-scan steps of a batch (trash once per section, each item analyzed
// once, the match checked), then the outcomes recorded together. Kept apart from follow-up.ts, which decides
// *when* a file is judged, and judge.ts, which gives the verdict; this decides nothing and only finishes.
import type { Clock } from '../../../clock.js';
import type { Logger } from '../../../log/logger.js';
import { reportFollowUp } from '../../../follow/report.js';
import type { ExternalIds, FollowItem, FollowResult } from '../../../scan.js';
import { afterBatch, type AfterScanSettings, type DeletedCounter } from '../after-scan.js';
import type { PlexApi } from '../api.js';
import type { MatchFixer } from '../match.js';

export interface Judged {
  item: FollowItem;
  /** The follower's ticket (PlexTicket), the little of it the after-scan steps read. */
  ticket: { sections: { id: string; title: string }[]; file?: string; ids?: ExternalIds };
  result: FollowResult;
  ratingKey?: string;
  parentRatingKey?: string;
}

export interface OutcomeSettings {
  api: PlexApi;
  clock: Clock;
  logger: Logger;
  after: AfterScanSettings;
  analyze: boolean;
  deletedCount?: DeletedCounter;
  exists?: (path: string) => Promise<boolean>;
  fixer?: MatchFixer;
}

export class FollowOutcomes {
  private readonly pending = new Set<Promise<void>>();
  private readonly said = { deep: false };
  private done?: (item: FollowItem, result: FollowResult) => Promise<void>;
  /** Judged, and still being finished (trash, analyze, recording). */
  finishing = 0;

  constructor(private readonly opts: OutcomeSettings) {}

  recordTo(done: (item: FollowItem, result: FollowResult) => Promise<void>): void {
    this.done = done;
  }

  /** Outcomes of scans never seen to end: no trash, no analyze, just the outcome. */
  plain(judged: Judged[]): void {
    this.finishing += judged.length;
    for (const j of judged) this.track(this.report(j.item, j.result));
  }

  /** A batch whose scans ended: the after-scan steps, then every outcome at once. */
  afterScan(finished: Judged[], analyses: Map<string, Promise<string[]>>): void {
    const { opts } = this;
    this.finishing += finished.length;
    const batch = afterBatch({
      api: opts.api,
      settings: opts.after,
      analyze: opts.analyze,
      logger: opts.logger,
      clock: opts.clock,
      deletedCount: opts.deletedCount,
      exists: opts.exists,
      said: this.said,
      fixer: opts.fixer,
      analyses,
      items: finished.map((f) => ({
        sections: f.ticket.sections,
        event: f.item.event,
        file: f.ticket.file,
        ids: f.ticket.ids,
        ratingKey: f.ratingKey,
        parentRatingKey: f.parentRatingKey,
      })),
    })
      .catch((err: unknown) => {
        opts.logger.error({ err: String(err) }, `the after-scan steps of a batch failed (${String(err)}); recording the outcomes without them`);
        return finished.map(() => [] as string[]);
      })
      // All at once: the outcomes of one batch are recorded in one transaction (the queue's group commit).
      .then(async (notes) => {
        await Promise.all(
          finished.map((f, i) => {
            const extra = notes[i].length ? ` ${notes[i].join(' ')}` : '';
            return this.report(f.item, { ...f.result, detail: `${f.result.detail}${extra}` });
          }),
        );
      });
    this.track(batch);
  }

  track(p: Promise<void>): void {
    const guarded = p.catch((err: unknown) => this.opts.logger.error({ err: String(err) }, `after-scan steps failed: ${String(err)}`));
    this.pending.add(guarded);
    void guarded.finally(() => this.pending.delete(guarded));
  }

  /** Resolves once everything tracked has settled (stop). */
  async settled(): Promise<void> {
    while (this.pending.size) await Promise.allSettled([...this.pending]);
  }

  private async report(item: FollowItem, result: FollowResult): Promise<void> {
    try {
      await reportFollowUp(this.done, item, result, this.opts.logger);
    } finally {
      this.finishing--;
    }
  }
}
