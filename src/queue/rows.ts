// The queue's rows as SQLite stores them (snake_case, 0/1 flags, JSON text), and their mapping to the shared
// nouns of src/scan.ts and src/queue/records.ts at the queue's edge: nothing outside src/queue sees a row.
import { detailOf, receivedOf } from './history-texts.js';
import { filesOfColumn } from './files.js';
import type { DeliveryState, DueDelivery, ExternalIds, FinalDeliveryState, Folder } from '../scan.js';
import type { Delivery, FollowedDelivery, HistoryEntry } from './records.js';

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
  refresh: 'item' | 'item-if-enabled' | null;
  /** JSON of ExternalIds, or null. */
  ids: string | null;
  received: string | null;
  /** 1: a whole-library scan was asked for should the folder be a library's own. */
  library_root: number;
  /** JSON of FolderFiles (src/queue/files.ts), or null. */
  files: string | null;
}

/**
 * A delivery's stages: `pending` (to be sent), `following` (the server took the scan; its end is being watched),
 * then one final state: `scanned` (taken, nothing to follow), `confirmed` / `not-found` / `unconfirmed` (what the
 * follow-up found), `unmatched` (no library of that server holds the folder) or `refused` (a library's own folder
 * nobody asked to scan whole).
 */

export type PendingRow = FolderRow & { attempts: number; rescans: number };

export interface DeliveryRow {
  folder_id: number;
  target: string;
  state: DeliveryState;
  attempts: number;
  next_at: number;
  last_error: string | null;
  detail: string | null;
  ready_at: number | null;
  delivered_at: number | null;
  followed_at: number | null;
  follow: string | null;
  rescans: number;
}

/** A delivery being followed, as the follow-up stage resumes it (after a restart too). */
export interface FollowingRow {
  folder_id: number;
  generation: number;
  folder: string;
  event: string;
  delivered_at: number;
  follow: string;
  rescans: number;
}

/** A history line as read: the detail's stored text joined in (src/queue/history-texts.ts undoes both encodings). */
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
  detail_text: string | null;
  detail_args: string | null;
  attempts: number;
  delivery_ms: number | null;
  follow_ms: number | null;
  received_edit: string | null;
}

export type DeliveryResult =
  | { state: FinalDeliveryState; detail?: string }
  /** `follow`: what the target's follower needs to resume after a restart (JSON). */
  | { state: 'following'; detail?: string; follow: string }
  | { state: 'retry'; error: string; nextAt: number };

const opt = <T>(v: T | null): T | undefined => (v === null ? undefined : v);

export function folderOf(r: FolderRow): Folder {
  return {
    id: r.id,
    folder: r.folder,
    priority: r.priority,
    dueAt: r.due_at,
    firstAt: r.first_at,
    lastAt: r.last_at,
    requests: r.requests,
    source: r.source,
    event: r.event,
    fileHint: opt(r.file_hint),
    allDeleted: r.all_deleted === 1,
    anyDeleted: r.any_deleted === 1,
    checks: r.checks,
    generation: r.generation,
    state: r.state,
    lastError: opt(r.last_error),
    refresh: opt(r.refresh),
    ids: r.ids ? (JSON.parse(r.ids) as ExternalIds) : undefined,
    received: opt(r.received),
    libraryRoot: r.library_root === 1 || undefined,
    ...(r.files ? { files: filesOfColumn(r.files) } : {}),
  };
}

export function dueDeliveryOf(r: PendingRow): DueDelivery {
  return { ...folderOf(r), attempts: r.attempts, rescans: r.rescans };
}

export function deliveryOf(r: DeliveryRow): Delivery {
  return {
    folderId: r.folder_id,
    target: r.target,
    state: r.state,
    attempts: r.attempts,
    nextAt: r.next_at,
    lastError: opt(r.last_error),
    detail: opt(r.detail),
    readyAt: opt(r.ready_at),
    deliveredAt: opt(r.delivered_at),
    followedAt: opt(r.followed_at),
    follow: opt(r.follow),
    rescans: r.rescans,
  };
}

export function historyEntryOf(r: HistoryRow): HistoryEntry {
  return {
    id: r.id,
    folder: r.folder,
    source: r.source,
    event: r.event,
    requests: r.requests,
    firstAt: r.first_at,
    finishedAt: r.finished_at,
    target: opt(r.target),
    outcome: r.outcome,
    detail: r.detail_text === null ? undefined : detailOf(r.detail_text, r.detail_args, r.folder),
    attempts: r.attempts,
    deliveryMs: opt(r.delivery_ms),
    followMs: opt(r.follow_ms),
    received: r.received_edit === null ? undefined : receivedOf(r.received_edit, r.folder),
  };
}

export function followedOf(r: FollowingRow): FollowedDelivery {
  return { ref: { folderId: r.folder_id, generation: r.generation }, folder: r.folder, event: r.event, deliveredAt: r.delivered_at, follow: r.follow, rescans: r.rescans };
}
