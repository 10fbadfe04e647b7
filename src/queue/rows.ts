// The queue's rows and the values its callers hand it: folders, deliveries and their stages, history.
import type { DeliveryRef, DeliveryState, FinalDeliveryState, FolderRequest } from '../scan.js';

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
}

/**
 * A delivery's stages: `pending` (to be sent), `following` (the server took the scan; its end is being watched),
 * then one final state: `scanned` (taken, nothing to follow), `confirmed` / `not-found` / `unconfirmed` (what the
 * follow-up found), or `unmatched` (no library of that server holds the folder).
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
  delivery_ms: number | null;
  follow_ms: number | null;
  received: string | null;
}

export type DeliveryResult =
  | { state: FinalDeliveryState; detail?: string }
  /** `follow`: what the target's follower needs to resume after a restart (JSON). */
  | { state: 'following'; detail?: string; follow: string }
  | { state: 'retry'; error: string; nextAt: number };
