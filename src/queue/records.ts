// What the queue answers of deliveries and history, as the dashboard, the API and the follow-up stage read them:
// nouns beside src/scan.ts's, here because only the queue hands them out; this file imports nothing but scan.ts.
import type { DeliveryRef, DeliveryState } from '../scan.js';

/** One folder to one target. */
export interface Delivery {
  folderId: number;
  target: string;
  state: DeliveryState;
  attempts: number;
  nextAt: number;
  lastError?: string;
  detail?: string;
  /** When the folder passed its checks, the server took the scan, and the follow-up ended. */
  readyAt?: number;
  deliveredAt?: number;
  followedAt?: number;
  /** What the target's follower needs (JSON), while `following`. */
  follow?: string;
  rescans: number;
}

/** A finished folder as history keeps it: one entry per target (or one without a target when nothing was sent). */
export interface HistoryEntry {
  id: number;
  folder: string;
  source: string;
  event: string;
  requests: number;
  firstAt: number;
  finishedAt: number;
  target?: string;
  outcome: string;
  detail?: string;
  attempts: number;
  deliveryMs?: number;
  followMs?: number;
  received?: string;
}

/** A delivery whose scan is being followed, as the follow-up stage resumes it (after a restart too). */
export interface FollowedDelivery {
  ref: DeliveryRef;
  folder: string;
  event: string;
  deliveredAt: number;
  /** What the target's follower needs (JSON). */
  follow: string;
  rescans: number;
}
