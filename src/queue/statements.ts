// The queue's SQL, prepared once per connection. Dispatch order is (priority, time): each selection seeks one
// priority's slice of an index in time order, and the callers step through the few distinct priorities.
import type Database from 'better-sqlite3';
import { textStatements } from './history-texts.js';
import type { DeliveryRow, FolderRow, FollowingRow, HistoryRow, PendingRow } from './rows.js';

export function prepareStatements(db: Database.Database) {
  return {
    find: db.prepare<[string], FolderRow>('SELECT * FROM folders WHERE folder = ?'),
    // `sent`: deliveries of it a server took or answered (past pending): a request after one begins a new wait.
    findForMerge: db.prepare<[string], { id: number; state: string; due_at: number; last_at: number; wait_from: number; files: string | null; sent: number }>(
      `SELECT id, state, due_at, last_at, wait_from, files,
              (SELECT COUNT(*) FROM deliveries d WHERE d.folder_id = folders.id AND d.state != 'pending') AS sent
       FROM folders WHERE folder = ?`,
    ),
    byId: db.prepare<[number], FolderRow>('SELECT * FROM folders WHERE id = ?'),
    page: db.prepare<[number, number], FolderRow>('SELECT * FROM folders ORDER BY priority, due_at LIMIT ? OFFSET ?'),
    // Positional, unlike the rest: a new folder per webhook runs it once per request, and binding by name looks
    // each of the 18 names up in an object. A new folder's wait begins at its first request.
    insert: db.prepare<[string, number, number, number, number, number, number, string, string, string | null, 0 | 1, 0 | 1, string | null, string | null, string | null, 0 | 1, string | null, number]>(
      `INSERT INTO folders (folder, priority, due_at, first_at, last_at, requests, generation, source, event,
                            file_hint, all_deleted, any_deleted, refresh, ids, received, library_root, files, wait_from)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    merge: db.prepare(
      `UPDATE folders SET
         priority = MIN(priority, @priority),
         due_at = @due, last_at = @now, wait_from = @waitFrom, requests = requests + @count,
         source = @source, event = @event,
         file_hint = CASE WHEN @deleted = 0 AND @fileHint IS NOT NULL THEN @fileHint ELSE file_hint END,
         all_deleted = CASE WHEN @deleted = 1 THEN all_deleted ELSE 0 END,
         any_deleted = MAX(any_deleted, @anyDeleted),
         checks = 0, generation = generation + @count, state = 'waiting', last_error = NULL,
         refresh = CASE WHEN @refresh = 'item' OR refresh = 'item' THEN 'item' ELSE COALESCE(@refresh, refresh) END,
         ids = COALESCE(@ids, ids),
         received = COALESCE(@received, received),
         library_root = MAX(library_root, @libraryRoot),
         files = @files
       WHERE id = @id`,
    ),
    clearDeliveries: db.prepare('DELETE FROM deliveries WHERE folder_id = ?'),
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
    // The last parameter: a JSON array of folder ids passed over (in flight, or held behind their previous scan),
    // so however many there are, the rows read are those that can go.
    pendingAt: db.prepare<[string, number, number, string, number], PendingRow>(
      `SELECT f.*, d.attempts, d.rescans FROM deliveries d JOIN folders f ON f.id = d.folder_id
       WHERE d.target = ? AND d.state = 'pending' AND d.priority = ? AND d.next_at <= ?
         AND d.folder_id NOT IN (SELECT value FROM json_each(?))
       ORDER BY d.next_at LIMIT ?`,
    ),
    pendingCountAt: db.prepare<[string, number, number, string, number], { n: number }>(
      `SELECT COUNT(*) AS n FROM (SELECT 1 FROM deliveries WHERE target = ? AND state = 'pending' AND priority = ? AND next_at <= ?
         AND folder_id NOT IN (SELECT value FROM json_each(?)) LIMIT ?)`,
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
      `INSERT OR IGNORE INTO deliveries (folder_id, target, state, next_at, priority, ready_at) VALUES (?, ?, 'pending', ?, ?, ?)`,
    ),
    setDelivery: db.prepare(
      `UPDATE deliveries SET state = @state, attempts = attempts + 1, next_at = @nextAt, last_error = @error,
              detail = @detail, follow = @follow,
              delivered_at = CASE WHEN @state = 'pending' THEN delivered_at ELSE @now END,
              followed_at = NULL
       WHERE folder_id = @id AND target = @target AND state = 'pending'
         AND EXISTS (SELECT 1 FROM folders WHERE id = @id AND generation = @generation AND state = 'dispatching')`,
    ),
    endFollow: db.prepare(
      `UPDATE deliveries SET state = @state, followed_at = @now, follow = NULL,
              detail = @detail || COALESCE(' Sent to ' || detail || '.', '')
       WHERE folder_id = @id AND target = @target AND state = 'following'
         AND EXISTS (SELECT 1 FROM folders WHERE id = @id AND generation = @generation AND state = 'dispatching')`,
    ),
    rescan: db.prepare(
      `UPDATE deliveries SET state = 'pending', rescans = rescans + 1, next_at = @nextAt, last_error = @reason,
              follow = NULL, ready_at = @nextAt
       WHERE folder_id = @id AND target = @target AND state = 'following'
         AND EXISTS (SELECT 1 FROM folders WHERE id = @id AND generation = @generation AND state = 'dispatching')`,
    ),
    following: db.prepare<[string], FollowingRow>(
      `SELECT f.id AS folder_id, f.generation, f.folder, f.event, d.delivered_at, d.follow, d.rescans
       FROM deliveries d JOIN folders f ON f.id = d.folder_id
       WHERE d.target = ? AND d.state = 'following'`,
    ),
    deliveriesOf: db.prepare<[number], DeliveryRow>('SELECT * FROM deliveries WHERE folder_id = ?'),
    deleteFolder: db.prepare('DELETE FROM folders WHERE id = ?'),
    history: db.prepare(
      `INSERT INTO history (folder, source, event, requests, first_at, finished_at, target, outcome, detail_id, detail_args,
                            attempts, delivery_ms, follow_ms, received_edit)
       VALUES (@folder, @source, @event, @requests, @first_at, @finished_at, @target, @outcome, @detail_id, @detail_args,
               @attempts, @delivery_ms, @follow_ms, @received_edit)`,
    ),
    texts: textStatements(db),
    recentHistory: db.prepare<[number], HistoryRow>(
      `SELECT h.id, h.folder, h.source, h.event, h.requests, h.first_at, h.finished_at, h.target, h.outcome,
              t.text AS detail_text, h.detail_args, h.attempts, h.delivery_ms, h.follow_ms, h.received_edit
       FROM history h LEFT JOIN history_texts t ON t.id = h.detail_id ORDER BY h.id DESC LIMIT ?`,
    ),
    trimHistory: db.prepare(
      'DELETE FROM history WHERE id <= (SELECT id FROM history ORDER BY id DESC LIMIT 1 OFFSET ?)',
    ),
    wakeTarget: db.prepare(
      `UPDATE deliveries SET next_at = ? WHERE target = ? AND state = 'pending' AND next_at > ?`,
    ),
  };
}

export type Statements = ReturnType<typeof prepareStatements>;

/**
 * Deletes the history texts no line names any more (after lines were deleted). One pass over history: run it
 * after many lines went, not after each.
 */
export const PRUNE_TEXTS = 'DELETE FROM history_texts WHERE id NOT IN (SELECT detail_id FROM history WHERE detail_id IS NOT NULL)';
