// The durable queue: one row per folder waiting to be scanned, its delivery state per target, and history.
// Every write is committed before it returns (or, through grouped(), before its promise resolves), so a request
// acknowledged after enqueue() survives kill -9. The file itself (pragmas, WAL, group commit) is src/queue/file.ts.
import type { Clock } from '../clock.js';
import { QueueFile, type QueueFileOptions } from './file.js';
import { QueueCounts, type QueueSummary } from './summary.js';
import { deliveryOf, dueDeliveryOf, folderOf, followedOf, historyEntryOf, type DeliveryResult, type FolderRow } from './rows.js';
import type { DeliveryRef, DueDelivery, FinalDeliveryState, Folder, FolderRequest } from '../scan.js';
import type { Delivery, FollowedDelivery, HistoryEntry } from './records.js';
import { PRUNE_TEXTS, prepareStatements, type Statements } from './statements.js';
import { storedColumns } from './history-texts.js';
import { DueWork } from './due.js';
import { foldByFolder } from './fold.js';
import { filesColumn, mergedColumn } from './files.js';
import { HeldRequests } from './held.js';

export type { DeliveryResult } from './rows.js';
export type { DeliveryRef, DeliveryState, FinalDeliveryState, FolderRequest } from '../scan.js';

export interface QueueOptions extends Partial<QueueFileOptions> {
  /** SERVER_SCAN_DELAY in milliseconds: a folder is due this long after its latest request. */
  delayMs: number;
  /** SERVER_SCAN_MAX_WAIT in milliseconds: however many requests follow, no later than this after its first. */
  maxWaitMs?: number;
  /** History rows kept (newest); older ones are trimmed. 0: not trimmed here (the server's src/queue/retention.ts does it). */
  historyLimit?: number;
}

/** SERVER_SCAN_MAX_WAIT's default (docs/configuration.md). */
export const DEFAULT_MAX_WAIT_MS = 600_000;

/**
 * When a folder is due. A request asks for its own delay (SERVER_SCAN_DELAYS) or the queue's. A folder still waiting
 * is due at the shortest delay any of its requests asked for (the row's own delay is what its due time was past its
 * last request), counted from the latest, but no later than `maxWaitMs` (or its own delay, if longer) after the
 * first request of its wait: a folder that keeps receiving imports is still scanned. Its wait goes on while its
 * scan waits to be sent (checked, or held for room at the server); once a server took it, a request begins a new one.
 */
function dueOf(now: number, asked: number, maxWaitMs: number, row?: { state: string; due_at: number; last_at: number; wait_from: number; sent: number }): { due: number; waitFrom: number } {
  if (!row || row.sent > 0) return { due: now + asked, waitFrom: now };
  const delay = row.state === 'waiting' ? Math.min(asked, Math.max(0, row.due_at - row.last_at)) : asked;
  const latest = Math.max(row.wait_from + Math.max(maxWaitMs, delay), now);
  return { due: Math.min(now + delay, latest), waitFrom: row.wait_from };
}

export class Queue extends QueueFile {
  private readonly clock: Clock;
  private readonly opts: Required<Omit<QueueOptions, 'checkpointEveryMs' | 'walRestartBytes' | 'walLimitBytes'>> & Pick<QueueOptions, 'checkpointEveryMs' | 'walRestartBytes' | 'walLimitBytes'>;
  private readonly stmt: Statements;
  private readonly due: DueWork;
  private readonly counts: QueueCounts;
  private historyWrites = 0;
  /** Requests waiting for their file's SHA-256 (hash=). */
  readonly held: HeldRequests;

  constructor(file: string, clock: Clock, opts: QueueOptions) {
    const all = { historyLimit: 10_000, busyTimeoutMs: 250, maxWaitMs: DEFAULT_MAX_WAIT_MS, ...opts };
    super(file, all);
    this.opts = all;
    this.clock = clock;
    this.stmt = prepareStatements(this.db);
    this.due = new DueWork(this.stmt);
    this.held = new HeldRequests(this.db);
    this.counts = new QueueCounts(this.db);
  }

  /** Adds a request; a folder already queued is merged (due time moved, higher priority kept). Committed on return. */
  enqueue(req: FolderRequest): { folder: string; merged: boolean; dueAt: number } {
    return this.enqueueMany([req])[0];
  }

  /**
   * Adds several requests in one transaction (one webhook naming several folders, or one turn's webhooks), those
   * for one folder folded first (a season's episodes arrive together): one lookup and one write per folder.
   */
  enqueueMany(reqs: FolderRequest[]): { folder: string; merged: boolean; dueAt: number }[] {
    const now = this.clock.now();
    const folded = foldByFolder(reqs);
    const dueAt = new Map<string, number>();
    const existed = this.db.transaction(() => {
      const found = new Map<string, boolean>();
      for (const f of folded.values()) {
        const ids = f.ids ? JSON.stringify(f.ids) : null;
        const existing = this.stmt.findForMerge.get(f.folder);
        found.set(f.folder, existing !== undefined);
        const { due, waitFrom } = dueOf(now, f.delayMs ?? this.opts.delayMs, this.opts.maxWaitMs, existing);
        dueAt.set(f.folder, due);
        if (!existing) {
          this.stmt.insert.run(f.folder, f.priority, due, now, now, f.count, f.count, f.source, f.event, f.fileHint, f.deleted, f.anyDeleted, f.refresh, ids, f.received, f.libraryRoot, filesColumn(f.files), now);
          continue;
        }
        this.stmt.merge.run({ ...f, due, now, waitFrom, ids, files: mergedColumn(existing.files, f.files), id: existing.id });
        // Deliveries exist only once dispatch began; a merged folder starts over on every target.
        if (existing.state === 'dispatching') this.stmt.clearDeliveries.run(existing.id);
      }
      return found;
    })();
    this.noteWrite();
    const seen = new Set<string>();
    return reqs.map((req) => {
      const merged = seen.has(req.folder) || existed.get(req.folder) === true;
      seen.add(req.folder);
      return { folder: req.folder, merged, dueAt: dueAt.get(req.folder)! };
    });
  }

  count(): number {
    return this.counts.summary().folders;
  }

  get(folder: string): Folder | undefined {
    const row = this.stmt.find.get(folder);
    return row && folderOf(row);
  }

  byId(id: number): Folder | undefined {
    const row = this.stmt.byId.get(id);
    return row && folderOf(row);
  }

  /** Folders whose delay has passed and that still need their existence check, first by priority. */
  dueWaiting(limit: number): Folder[] {
    return this.due.folders(this.clock.now(), limit).map(folderOf);
  }

  /** The earliest moment anything becomes due (for sleeping until then), or undefined if nothing waits. */
  nextDue(targets: string[]): number | undefined {
    return this.due.next(targets);
  }

  /** The file was not there yet: check again at `dueAt`. */
  deferCheck(row: Folder, checks: number, dueAt: number, error: string, fileHint = row.fileHint): void {
    this.stmt.defer.run({ id: row.id, generation: row.generation, checks, due: dueAt, error, fileHint: fileHint ?? null });
  }

  /** Several folders passed their checks: one transaction for all; returns how many began (others moved on). */
  startDispatchMany(rows: Folder[], targets: string[]): number {
    return this.db.transaction(() => {
      const now = this.clock.now();
      let begun = 0;
      for (const row of rows) {
        if (!this.stmt.toDispatching.run({ id: row.id, generation: row.generation }).changes) continue;
        for (const t of targets) this.stmt.addDelivery.run(row.id, t, now, row.priority, now);
        begun++;
      }
      return begun;
    })();
  }

  /** Folders whose delivery to `target` is due, first by priority, but those of the folder ids in `skip`. */
  pendingFor(target: string, limit: number, skip?: Iterable<number>): DueDelivery[] {
    return this.due.deliveries(target, this.clock.now(), limit, skip).map(dueDeliveryOf);
  }

  /** How many of `target`'s deliveries are due now, but those of `skip`, counting up to `limit` (the processor's lookahead). */
  pendingCount(target: string, limit: number, skip?: Iterable<number>): number {
    return this.due.deliveryCount(target, this.clock.now(), limit, skip);
  }

  /**
   * Records one target's answer for a folder. Ignored when the folder was re-requested meanwhile (its
   * generation moved on): the new generation will be scanned again anyway. Returns true when the folder is
   * now finished for every target in `targets` and has been moved to history.
   */
  recordDelivery(row: Folder, target: string, result: DeliveryResult, targets: string[]): boolean {
    const now = this.clock.now();
    return this.db.transaction(() => {
      const changed = this.stmt.setDelivery.run({
        id: row.id,
        generation: row.generation,
        target,
        now,
        state: result.state === 'retry' ? 'pending' : result.state,
        nextAt: result.state === 'retry' ? result.nextAt : now,
        error: result.state === 'retry' ? result.error : null,
        detail: result.state === 'retry' ? null : (result.detail ?? null),
        follow: result.state === 'following' ? result.follow : null,
      }).changes;
      if (!changed || result.state === 'retry' || result.state === 'following') return false;
      return this.finishIfDone(row.id, targets);
    })();
  }

  /** The follow-up of one delivery ended. Returns true when that finished the folder (moved to history). */
  recordFollowUp(ref: DeliveryRef, target: string, state: FinalDeliveryState, detail: string, targets: string[]): boolean {
    return this.db.transaction(() => {
      const changed = this.stmt.endFollow.run({ id: ref.folderId, generation: ref.generation, target, state, detail, now: this.clock.now() }).changes;
      return changed > 0 && this.finishIfDone(ref.folderId, targets);
    })();
  }

  /** The server finished scanning but the file is not in its library: send the scan once more at `nextAt`. */
  rescanLater(ref: DeliveryRef, target: string, nextAt: number, reason: string): boolean {
    return this.stmt.rescan.run({ id: ref.folderId, generation: ref.generation, target, nextAt, reason }).changes > 0;
  }

  /** Deliveries of `target` whose follow-up has not ended (resumed at start). */
  following(target: string): FollowedDelivery[] {
    return this.stmt.following.all(target).map(followedOf);
  }

  /** Is this generation of the folder still the one being dispatched? */
  isCurrent(ref: DeliveryRef): boolean {
    const row = this.stmt.byId.get(ref.folderId);
    return row !== undefined && row.generation === ref.generation && row.state === 'dispatching';
  }

  private finishIfDone(folderId: number, targets: string[]): boolean {
    const deliveries = this.stmt.deliveriesOf.all(folderId);
    const finished = targets.every((t) => deliveries.some((d) => d.target === t && d.state !== 'pending' && d.state !== 'following'));
    if (!finished) return false;
    const current = this.stmt.byId.get(folderId)!;
    for (const d of deliveries) {
      if (!targets.includes(d.target)) continue;
      this.writeHistory(current, {
        target: d.target,
        outcome: d.state,
        detail: d.detail,
        attempts: d.attempts,
        deliveryMs: d.delivered_at !== null && d.ready_at !== null ? Math.max(0, d.delivered_at - d.ready_at) : null,
        followMs: d.followed_at !== null && d.delivered_at !== null ? Math.max(0, d.followed_at - d.delivered_at) : null,
      });
    }
    this.stmt.deleteFolder.run(folderId);
    return true;
  }

  /** Ends a folder without scanning it (checks exhausted, or dropped by a person) and says why in history. */
  finish(row: Folder, outcome: 'exhausted' | 'dropped', detail: string): void {
    this.db.transaction(() => {
      const current = this.stmt.byId.get(row.id);
      if (!current) return;
      this.writeHistory(current, { target: null, outcome, detail, attempts: current.checks });
      this.stmt.deleteFolder.run(row.id);
    })();
  }

  /**
   * A request for a folder in no target's library: straight into history as `unmatched`, never queued. Also a
   * request held for its file's hash that never matched (`not-found`, src/hash/hold.ts).
   */
  recordUnmatched(r: { folder: string; received: string; source: string; event: string; detail: string; outcome?: 'unmatched' | 'not-found' }): void {
    const now = this.clock.now();
    this.writeHistory(
      { folder: r.folder, source: r.source, event: r.event, requests: 1, first_at: now, received: r.received } as FolderRow,
      { target: null, outcome: r.outcome ?? 'unmatched', detail: r.detail, attempts: 0 },
    );
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

  list(limit = 500, offset = 0): Folder[] {
    return this.stmt.page.all(limit, offset).map(folderOf);
  }

  deliveries(folderId: number): Delivery[] {
    return this.stmt.deliveriesOf.all(folderId).map(deliveryOf);
  }

  history(limit = 100): HistoryEntry[] {
    return this.stmt.recentHistory.all(limit).map(historyEntryOf);
  }

  /** Queued folders by state and deliveries pending or followed, by target (health, stats, metrics); O(targets). */
  summary(): QueueSummary {
    return this.counts.summary();
  }

  private writeHistory(
    row: FolderRow,
    d: { target: string | null; outcome: string; detail: string | null; attempts: number; deliveryMs?: number | null; followMs?: number | null },
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
      attempts: d.attempts,
      delivery_ms: d.deliveryMs ?? null,
      follow_ms: d.followMs ?? null,
      ...storedColumns(this.stmt.texts, row.folder, d.detail, row.received ?? null),
    });
    if (this.opts.historyLimit > 0 && ++this.historyWrites % 500 === 0 && this.stmt.trimHistory.run(this.opts.historyLimit).changes > 0) {
      this.db.exec(PRUNE_TEXTS);
    }
  }
}
