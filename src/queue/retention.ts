// Keeps the queue file's size bounded on a box that runs for years: history older than HISTORY_DAYS or
// beyond HISTORY_MAX_ROWS is deleted in small batches, and the WAL is checkpointed and truncated.
import type Database from 'better-sqlite3';
import type { Clock } from '../clock.js';
import type { Logger } from '../log/logger.js';
import { PRUNE_TEXTS } from './statements.js';

export interface RetentionSettings {
  /** HISTORY_DAYS: history lines older than this many days go. */
  days: number;
  /** HISTORY_MAX_ROWS: at most this many history lines are kept, the newest (0 = no row limit). */
  maxRows: number;
  /** Lines deleted per transaction; intake waits at most one batch (a few milliseconds). */
  batch?: number;
  /** How often pruning runs (real time; the cut-off itself follows the service's clock). */
  everyMs?: number;
  /** The WAL never stays bigger than this after a checkpoint (SQLite's journal_size_limit). */
  walLimitBytes?: number;
  /**
   * Truncates the WAL after a run; given `truncateWal` (this class's own, on the caller's thread) to use when
   * it cannot do better. The service passes the queue's, which hands the work to the checkpointer's worker.
   */
  truncate?: (onThisThread: () => void) => void;
}

const DAY_MS = 24 * 60 * 60 * 1000;
/** Unused history texts are pruned once this many lines were deleted, or hourly. */
const TEXTS_AFTER_LINES = 10_000;
const TEXTS_EVERY_MS = 60 * 60 * 1000;

export class Retention {
  private readonly settings: Required<RetentionSettings>;
  private readonly stmt;
  private timer?: NodeJS.Timeout;
  private running?: Promise<number>;
  private stopped = false;
  /** History lines deleted since the unused history texts were last pruned, and when that was (real time). */
  private deletedSinceTexts = 0;
  private textsPrunedAt = Date.now();

  constructor(
    private readonly db: Database.Database,
    private readonly clock: Clock,
    settings: RetentionSettings,
    private readonly logger?: Logger,
  ) {
    this.settings = { batch: 500, everyMs: 60_000, walLimitBytes: 4 * 1024 * 1024, truncate: (here) => here(), ...settings };
    // A checkpoint that resets the WAL also shrinks its file to this, so one burst does not leave it large.
    db.pragma(`journal_size_limit = ${Math.round(this.settings.walLimitBytes)}`);
    this.stmt = {
      // Both walk an index in order and stop after one batch, however long the history is.
      expired: db.prepare('DELETE FROM history WHERE id IN (SELECT id FROM history WHERE finished_at < ? LIMIT ?)'),
      oldest: db.prepare('DELETE FROM history WHERE id IN (SELECT id FROM history ORDER BY id LIMIT ?)'),
      count: db.prepare<[], { n: number }>('SELECT COUNT(*) AS n FROM history'),
      texts: db.prepare(PRUNE_TEXTS),
    };
  }

  /** Deletes one batch of expired or surplus history lines; returns how many went. */
  pruneBatch(): number {
    const { batch, days, maxRows } = this.settings;
    const cutoff = this.clock.now() - days * DAY_MS;
    let deleted = this.stmt.expired.run(cutoff, batch).changes;
    if (deleted < batch && maxRows > 0) {
      const surplus = this.stmt.count.get()!.n - maxRows;
      if (surplus > 0) deleted += this.stmt.oldest.run(Math.min(surplus, batch - deleted)).changes;
    }
    return deleted;
  }

  /**
   * Prunes batch after batch until nothing is due, giving the event loop a turn between batches so webhooks
   * arriving meanwhile are committed in between. Then checkpoints the WAL into the database and truncates it.
   */
  prune(): Promise<number> {
    if (this.running) return this.running;
    const run = this.run();
    this.running = run;
    void run.finally(() => {
      if (this.running === run) this.running = undefined;
    });
    return run;
  }

  private async run(): Promise<number> {
    let total = 0;
    try {
      for (;;) {
        const n = this.pruneBatch();
        total += n;
        if (n < this.settings.batch || this.stopped) break;
        await new Promise<void>((resolve) => setImmediate(resolve));
        if (!this.db.open) return total;
      }
      if (total > 0) this.logger?.debug({ deleted: total }, `Deleted ${total} history line(s) older than HISTORY_DAYS or beyond HISTORY_MAX_ROWS.`);
      this.deletedSinceTexts += total;
      // One pass over history (tens of ms at 200,000 lines): after 10,000 lines went, or hourly if any did.
      if (this.deletedSinceTexts >= TEXTS_AFTER_LINES || (this.deletedSinceTexts > 0 && Date.now() - this.textsPrunedAt >= TEXTS_EVERY_MS)) this.pruneTexts();
      this.settings.truncate(() => this.truncateWal());
    } catch (err) {
      this.logger?.warn({ err: String(err) }, `Could not prune the history (${(err as Error).message}); trying again in ${Math.round(this.settings.everyMs / 1000)} s.`);
    }
    return total;
  }

  /** Deletes the history texts no line names any more; returns how many went. */
  pruneTexts(): number {
    this.deletedSinceTexts = 0;
    this.textsPrunedAt = Date.now();
    return this.stmt.texts.run().changes;
  }

  /**
   * Copies the WAL into the database file and truncates it to zero bytes. It does not wait: with another
   * process reading (a CLI command), the checkpoint does what it can and the next run finishes the job.
   */
  truncateWal(): { busy: boolean; walPages: number } {
    if (!this.db.open) return { busy: true, walPages: 0 };
    const busyTimeout = this.db.pragma('busy_timeout', { simple: true }) as number;
    this.db.pragma('busy_timeout = 0');
    try {
      const [r] = this.db.pragma('wal_checkpoint(TRUNCATE)') as { busy: number; log: number }[];
      return { busy: r.busy === 1, walPages: r.log };
    } finally {
      this.db.pragma(`busy_timeout = ${busyTimeout}`);
    }
  }

  /** Prunes now and then every `everyMs`; the timer never keeps the process alive. */
  start(): void {
    if (this.timer) return;
    void this.prune();
    this.timer = setInterval(() => void this.prune(), this.settings.everyMs);
    this.timer.unref();
  }

  /** Stops the schedule and waits for a run in progress to end after its current batch. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }
}
