// The durable queue: one row per folder waiting to be scanned, its delivery state per target, and history.
// Every write is its own committed transaction, so a request acknowledged after enqueue() survives kill -9.
import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Clock } from '../clock.js';
import { migrate } from './schema.js';

export interface FolderRequest {
  /** The folder to scan, as the media server sees it. */
  folder: string;
  priority: number;
  source: string;
  event: string;
  /** A file inside the folder whose existence is checked before scanning. */
  fileHint?: string;
  deleted: boolean;
}

export interface FolderRow {
  id: number;
  folder: string;
  priority: number;
  due_at: number;
  first_at: number;
  last_at: number;
  requests: number;
  source: string;
  event: string;
  file_hint: string | null;
  all_deleted: number;
  any_deleted: number;
  checks: number;
  generation: number;
  state: 'waiting' | 'dispatching';
  last_error: string | null;
}

export interface DeliveryRow {
  folder_id: number;
  target: string;
  state: 'pending' | 'scanned' | 'confirmed' | 'not-found' | 'unmatched';
  attempts: number;
  next_at: number;
  last_error: string | null;
  detail: string | null;
}

export interface HistoryRow {
  id: number;
  folder: string;
  source: string;
  event: string;
  requests: number;
  first_at: number;
  finished_at: number;
  target: string | null;
  outcome: string;
  detail: string | null;
  attempts: number;
}

export type DeliveryResult =
  | { state: 'scanned' | 'confirmed' | 'not-found' | 'unmatched'; detail?: string }
  | { state: 'retry'; error: string; nextAt: number };

export interface QueueOptions {
  /** SERVER_SCAN_DELAY in milliseconds: a folder is due this long after its latest request. */
  delayMs: number;
  /** History rows kept (newest); older ones are trimmed. 0: not trimmed here (the server's src/queue/retention.ts does it). */
  historyLimit?: number;
  /**
   * How long a write waits for another process's lock. SQLite waits synchronously, so in the server this
   * stalls every request: short, and a webhook that cannot be written is answered 503 (the app retries).
   */
  busyTimeoutMs?: number;
  /**
   * Copy the WAL into the database file on this schedule instead of inside whichever commit crosses SQLite's
   * 1,000-page mark. A page changed by a thousand commits is then copied once, and no webhook waits for a
   * checkpoint. Unset: SQLite's own automatic checkpoints (the CLI's short-lived uses).
   */
  checkpointEveryMs?: number;
}

export class Queue {
  readonly db: Database.Database;
  private readonly clock: Clock;
  private readonly opts: Required<Omit<QueueOptions, 'checkpointEveryMs'>> & Pick<QueueOptions, 'checkpointEveryMs'>;
  private readonly stmt: ReturnType<Queue['prepare']>;
  private historyWrites = 0;
  private checkpointTimer?: NodeJS.Timeout;

  constructor(file: string, clock: Clock, opts: QueueOptions) {
    if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
    this.db = new Database(file);
    // WAL + NORMAL survives a killed process (the WAL is in the OS page cache); only a power cut could
    // lose the last transactions. busy_timeout lets a second process (CLI) share the file.
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = NORMAL');
    this.db.pragma('foreign_keys = ON');
    this.opts = { historyLimit: 10_000, busyTimeoutMs: 250, ...opts };
    this.db.pragma(`busy_timeout = ${Math.max(0, Math.round(this.opts.busyTimeoutMs))}`);
    migrate(this.db);
    this.clock = clock;
    if (this.opts.checkpointEveryMs !== undefined && file !== ':memory:') {
      this.db.pragma('wal_autocheckpoint = 0');
      this.checkpointTimer = setInterval(() => this.checkpoint(), this.opts.checkpointEveryMs);
      this.checkpointTimer.unref();
    }
    this.stmt = this.prepare();
  }

  private prepare() {
    const db = this.db;
    return {
      find: db.prepare<[string], FolderRow>('SELECT * FROM folders WHERE folder = ?'),
      findForMerge: db.prepare<[string], { id: number; state: string }>('SELECT id, state FROM folders WHERE folder = ?'),
      byId: db.prepare<[number], FolderRow>('SELECT * FROM folders WHERE id = ?'),
      insert: db.prepare(
        `INSERT INTO folders (folder, priority, due_at, first_at, last_at, requests, source, event, file_hint,
                              all_deleted, any_deleted)
         VALUES (@folder, @priority, @due, @now, @now, 1, @source, @event, @fileHint, @deleted, @deleted)`,
      ),
      merge: db.prepare(
        `UPDATE folders SET
           priority = MIN(priority, @priority),
           due_at = @due, last_at = @now, requests = requests + 1,
           source = @source, event = @event,
           file_hint = CASE WHEN @deleted = 0 AND @fileHint IS NOT NULL THEN @fileHint ELSE file_hint END,
           all_deleted = CASE WHEN @deleted = 1 THEN all_deleted ELSE 0 END,
           any_deleted = MAX(any_deleted, @deleted),
           checks = 0, generation = generation + 1, state = 'waiting', last_error = NULL
         WHERE id = @id`,
      ),
      clearDeliveries: db.prepare('DELETE FROM deliveries WHERE folder_id = ?'),
      count: db.prepare<[], { n: number }>('SELECT COUNT(*) AS n FROM folders'),
      // Dispatch order is (priority, time). Each query below seeks one priority's slice of an index in time
      // order; the callers step through the few distinct priorities, so no pass sorts the queue.
      waitingPriorityAfter: db.prepare<[number], { p: number | null }>(
        `SELECT MIN(priority) AS p FROM folders WHERE state = 'waiting' AND priority > ?`,
      ),
      dueWaitingAt: db.prepare<[number, number, number], FolderRow>(
        `SELECT * FROM folders WHERE state = 'waiting' AND priority = ? AND due_at <= ? ORDER BY due_at LIMIT ?`,
      ),
      nextWaitingDueAt: db.prepare<[number], { t: number | null }>(
        `SELECT MIN(due_at) AS t FROM folders WHERE state = 'waiting' AND priority = ?`,
      ),
      pendingPriorityAfter: db.prepare<[string, number], { p: number | null }>(
        `SELECT MIN(priority) AS p FROM deliveries WHERE target = ? AND state = 'pending' AND priority > ?`,
      ),
      pendingAt: db.prepare<[string, number, number, number], FolderRow & { attempts: number }>(
        `SELECT f.*, d.attempts FROM deliveries d JOIN folders f ON f.id = d.folder_id
         WHERE d.target = ? AND d.state = 'pending' AND d.priority = ? AND d.next_at <= ?
         ORDER BY d.next_at LIMIT ?`,
      ),
      nextDeliveryDueAt: db.prepare<[string, number], { t: number | null }>(
        `SELECT MIN(next_at) AS t FROM deliveries WHERE target = ? AND state = 'pending' AND priority = ?`,
      ),
      defer: db.prepare(
        `UPDATE folders SET checks = @checks, due_at = @due, last_error = @error, file_hint = @fileHint
         WHERE id = @id AND generation = @generation`,
      ),
      toDispatching: db.prepare(
        `UPDATE folders SET state = 'dispatching', last_error = NULL WHERE id = @id AND generation = @generation`,
      ),
      addDelivery: db.prepare(
        `INSERT OR IGNORE INTO deliveries (folder_id, target, state, next_at, priority) VALUES (?, ?, 'pending', ?, ?)`,
      ),
      setDelivery: db.prepare(
        `UPDATE deliveries SET state = @state, attempts = attempts + 1, next_at = @nextAt, last_error = @error,
                detail = @detail
         WHERE folder_id = @id AND target = @target
           AND EXISTS (SELECT 1 FROM folders WHERE id = @id AND generation = @generation AND state = 'dispatching')`,
      ),
      deliveriesOf: db.prepare<[number], DeliveryRow>('SELECT * FROM deliveries WHERE folder_id = ?'),
      deleteFolder: db.prepare('DELETE FROM folders WHERE id = ?'),
      history: db.prepare(
        `INSERT INTO history (folder, source, event, requests, first_at, finished_at, target, outcome, detail, attempts)
         VALUES (@folder, @source, @event, @requests, @first_at, @finished_at, @target, @outcome, @detail, @attempts)`,
      ),
      trimHistory: db.prepare(
        'DELETE FROM history WHERE id <= (SELECT id FROM history ORDER BY id DESC LIMIT 1 OFFSET ?)',
      ),
      wakeTarget: db.prepare(
        `UPDATE deliveries SET next_at = ? WHERE target = ? AND state = 'pending' AND next_at > ?`,
      ),
    };
  }

  /** Adds a request; a folder already queued is merged (due time reset, higher priority kept). Committed on return. */
  enqueue(req: FolderRequest): { folder: string; merged: boolean; dueAt: number } {
    return this.enqueueMany([req])[0];
  }

  /** Adds several requests in one transaction (one webhook naming several folders). */
  enqueueMany(reqs: FolderRequest[]): { folder: string; merged: boolean; dueAt: number }[] {
    const now = this.clock.now();
    const due = now + this.opts.delayMs;
    return this.db.transaction(() =>
      reqs.map((req) => {
        const params = {
          folder: req.folder,
          priority: req.priority,
          due,
          now,
          source: req.source,
          event: req.event,
          fileHint: req.deleted ? null : (req.fileHint ?? null),
          deleted: req.deleted ? 1 : 0,
        };
        const existing = this.stmt.findForMerge.get(req.folder);
        if (!existing) {
          this.stmt.insert.run(params);
          return { folder: req.folder, merged: false, dueAt: due };
        }
        this.stmt.merge.run({ ...params, id: existing.id });
        // Deliveries exist only once dispatch began; a merged folder starts over on every target.
        if (existing.state === 'dispatching') this.stmt.clearDeliveries.run(existing.id);
        return { folder: req.folder, merged: true, dueAt: due };
      }),
    )();
  }

  count(): number {
    return this.stmt.count.get()!.n;
  }

  get(folder: string): FolderRow | undefined {
    return this.stmt.find.get(folder);
  }

  byId(id: number): FolderRow | undefined {
    return this.stmt.byId.get(id);
  }

  /** Folders whose delay has passed and that still need their existence check, first by priority. */
  dueWaiting(limit: number): FolderRow[] {
    const now = this.clock.now();
    const out: FolderRow[] = [];
    for (const p of this.priorities((after) => this.stmt.waitingPriorityAfter.get(after)!.p)) {
      if (out.length >= limit) break;
      out.push(...this.stmt.dueWaitingAt.all(p, now, limit - out.length));
    }
    return out;
  }

  /** The earliest moment anything becomes due (for sleeping until then), or undefined if nothing waits. */
  nextDue(targets: string[]): number | undefined {
    let next: number | undefined;
    const consider = (t: number | null) => {
      if (t !== null && (next === undefined || t < next)) next = t;
    };
    for (const p of this.priorities((after) => this.stmt.waitingPriorityAfter.get(after)!.p)) {
      consider(this.stmt.nextWaitingDueAt.get(p)!.t);
    }
    for (const target of targets) {
      for (const p of this.priorities((after) => this.stmt.pendingPriorityAfter.get(target, after)!.p)) {
        consider(this.stmt.nextDeliveryDueAt.get(target, p)!.t);
      }
    }
    return next;
  }

  /** The distinct priorities present, lowest (most urgent) first, one index seek each. */
  private *priorities(after: (p: number) => number | null): Generator<number> {
    let p = after(Number.MIN_SAFE_INTEGER);
    while (p !== null) {
      yield p;
      p = after(p);
    }
  }

  /** The file was not there yet: check again at `dueAt`. */
  deferCheck(row: FolderRow, checks: number, dueAt: number, error: string, fileHint = row.file_hint): void {
    this.stmt.defer.run({ id: row.id, generation: row.generation, checks, due: dueAt, error, fileHint });
  }

  /** The folder passed its checks: create one pending delivery per target. */
  startDispatch(row: FolderRow, targets: string[]): boolean {
    return this.db.transaction(() => {
      const changed = this.stmt.toDispatching.run({ id: row.id, generation: row.generation }).changes;
      if (!changed) return false;
      const now = this.clock.now();
      for (const t of targets) this.stmt.addDelivery.run(row.id, t, now, row.priority);
      return true;
    })();
  }

  /** Folders whose delivery to `target` is due, first by priority. */
  pendingFor(target: string, limit: number): (FolderRow & { attempts: number })[] {
    const now = this.clock.now();
    const out: (FolderRow & { attempts: number })[] = [];
    for (const p of this.priorities((after) => this.stmt.pendingPriorityAfter.get(target, after)!.p)) {
      if (out.length >= limit) break;
      out.push(...this.stmt.pendingAt.all(target, p, now, limit - out.length));
    }
    return out;
  }

  /**
   * Records one target's answer for a folder. Ignored when the folder was re-requested meanwhile (its
   * generation moved on): the new generation will be scanned again anyway. Returns true when the folder is
   * now finished for every target in `targets` and has been moved to history.
   */
  recordDelivery(row: FolderRow, target: string, result: DeliveryResult, targets: string[]): boolean {
    const now = this.clock.now();
    return this.db.transaction(() => {
      const changed = this.stmt.setDelivery.run({
        id: row.id,
        generation: row.generation,
        target,
        state: result.state === 'retry' ? 'pending' : result.state,
        nextAt: result.state === 'retry' ? result.nextAt : now,
        error: result.state === 'retry' ? result.error : null,
        detail: result.state === 'retry' ? null : (result.detail ?? null),
      }).changes;
      if (!changed || result.state === 'retry') return false;
      const deliveries = this.stmt.deliveriesOf.all(row.id);
      const finished = targets.every((t) => deliveries.some((d) => d.target === t && d.state !== 'pending'));
      if (!finished) return false;
      const current = this.stmt.byId.get(row.id)!;
      for (const d of deliveries) {
        if (!targets.includes(d.target)) continue;
        this.writeHistory(current, { target: d.target, outcome: d.state, detail: d.detail, attempts: d.attempts });
      }
      this.stmt.deleteFolder.run(row.id);
      return true;
    })();
  }

  /** Ends a folder without scanning it (checks exhausted, or dropped by a person) and says why in history. */
  finish(row: FolderRow, outcome: 'exhausted' | 'dropped', detail: string): void {
    this.db.transaction(() => {
      const current = this.stmt.byId.get(row.id);
      if (!current) return;
      this.writeHistory(current, { target: null, outcome, detail, attempts: current.checks });
      this.stmt.deleteFolder.run(row.id);
    })();
  }

  /** Makes every pending delivery of `target` due now (the target came back). */
  wakeTarget(target: string): number {
    const now = this.clock.now();
    return this.stmt.wakeTarget.run(now, target, now).changes;
  }

  /** A person asked to scan this folder now: skip the remaining delay and any retry wait. */
  scanNow(folder: string): boolean {
    const row = this.get(folder);
    if (!row) return false;
    const now = this.clock.now();
    this.db.transaction(() => {
      this.db.prepare('UPDATE folders SET due_at = ? WHERE id = ?').run(now, row.id);
      this.db.prepare(`UPDATE deliveries SET next_at = ? WHERE folder_id = ? AND state = 'pending'`).run(now, row.id);
    })();
    return true;
  }

  /** A person dropped a folder: it leaves the queue and history says so. */
  drop(folder: string, by = 'a person'): boolean {
    const row = this.get(folder);
    if (!row) return false;
    this.finish(row, 'dropped', `dropped by ${by}`);
    return true;
  }

  list(limit = 500, offset = 0): FolderRow[] {
    return this.db
      .prepare<[number, number], FolderRow>('SELECT * FROM folders ORDER BY priority, due_at LIMIT ? OFFSET ?')
      .all(limit, offset);
  }

  deliveries(folderId: number): DeliveryRow[] {
    return this.stmt.deliveriesOf.all(folderId);
  }

  history(limit = 100): HistoryRow[] {
    return this.db.prepare<[number], HistoryRow>('SELECT * FROM history ORDER BY id DESC LIMIT ?').all(limit);
  }

  /** Counts of queued folders by state and of pending deliveries by target (health endpoint). */
  summary(): { folders: number; waiting: number; dispatching: number; pendingByTarget: Record<string, number> } {
    const byState = this.db
      .prepare<[], { state: string; n: number }>('SELECT state, COUNT(*) AS n FROM folders GROUP BY state')
      .all();
    const pending = this.db
      .prepare<[], { target: string; n: number }>(
        `SELECT target, COUNT(*) AS n FROM deliveries WHERE state = 'pending' GROUP BY target`,
      )
      .all();
    const n = (s: string) => byState.find((r) => r.state === s)?.n ?? 0;
    return {
      folders: n('waiting') + n('dispatching'),
      waiting: n('waiting'),
      dispatching: n('dispatching'),
      pendingByTarget: Object.fromEntries(pending.map((p) => [p.target, p.n])),
    };
  }

  private writeHistory(
    row: FolderRow,
    d: { target: string | null; outcome: string; detail: string | null; attempts: number },
  ): void {
    this.stmt.history.run({
      folder: row.folder,
      source: row.source,
      event: row.event,
      requests: row.requests,
      first_at: row.first_at,
      finished_at: this.clock.now(),
      target: d.target,
      outcome: d.outcome,
      detail: d.detail,
      attempts: d.attempts,
    });
    if (this.opts.historyLimit > 0 && ++this.historyWrites % 500 === 0) this.stmt.trimHistory.run(this.opts.historyLimit);
  }

  /** Moves committed WAL pages into the database file without waiting for readers (PASSIVE). */
  checkpoint(): void {
    try {
      if (this.db.open) this.db.pragma('wal_checkpoint(PASSIVE)');
    } catch {
      // Busy or read-only: the WAL keeps the commits, and the next checkpoint (or close) tries again.
    }
  }

  close(): void {
    if (this.checkpointTimer) clearInterval(this.checkpointTimer);
    if (this.db.open) this.db.close();
  }
}
