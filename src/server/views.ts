// What the dashboard and the JSON API show of the queue, the history and the Drive monitor: rows turned into
// the shapes people read (camelCase, times as numbers, each stage's time).
import { systemClock } from '../clock.js';
import type { DeliveryRow } from '../queue/store.js';
import type { AppDeps } from './app.js';

export interface QueuedFolder {
  id: number;
  folder: string;
  priority: number;
  state: 'waiting' | 'dispatching';
  dueAt: number;
  /** ms until the delay (or the next file check) is over; 0 when due. */
  dueInMs: number;
  firstAt: number;
  lastAt: number;
  /** Requests merged into this folder. */
  requests: number;
  source: string;
  event: string;
  fileChecks: number;
  lastError: string | null;
  /** The path as the sender sent it, before SERVER_PATH_MAPPINGS (null for rows queued before it was kept). */
  received: string | null;
  deliveries: {
    target: string;
    state: DeliveryRow['state'];
    attempts: number;
    nextAt: number;
    lastError: string | null;
    detail: string | null;
    /** When the server accepted the scan (null while pending). */
    deliveredAt: number | null;
  }[];
}

export interface FinishedScan {
  id: number;
  folder: string;
  source: string;
  event: string;
  requests: number;
  /** When it was first asked for. */
  askedAt: number;
  finishedAt: number;
  target: string | null;
  outcome: string;
  detail: string | null;
  attempts: number;
  /** ms from the folder being ready to the server accepting the scan. */
  deliveryMs: number | null;
  /** ms from the server accepting the scan to the follow-up's outcome (null when nothing was followed). */
  followMs: number | null;
  /** The path as the sender sent it, before SERVER_PATH_MAPPINGS. */
  received: string | null;
}

export function queueView(deps: AppDeps, limit = 500): QueuedFolder[] {
  const now = (deps.clock ?? systemClock).now();
  return deps.queue.list(limit).map((r) => ({
    id: r.id,
    folder: r.folder,
    priority: r.priority,
    state: r.state,
    dueAt: r.due_at,
    dueInMs: Math.max(0, r.due_at - now),
    firstAt: r.first_at,
    lastAt: r.last_at,
    requests: r.requests,
    source: r.source,
    event: r.event,
    fileChecks: r.checks,
    lastError: r.last_error,
    received: r.received,
    deliveries: deps.queue.deliveries(r.id).map((d) => ({
      target: d.target,
      state: d.state,
      attempts: d.attempts,
      nextAt: d.next_at,
      lastError: d.last_error,
      detail: d.detail,
      deliveredAt: d.delivered_at,
    })),
  }));
}

export function historyView(deps: AppDeps, limit = 100): FinishedScan[] {
  return deps.queue.history(limit).map((h) => ({
    id: h.id,
    folder: h.folder,
    source: h.source,
    event: h.event,
    requests: h.requests,
    askedAt: h.first_at,
    finishedAt: h.finished_at,
    target: h.target,
    outcome: h.outcome,
    detail: h.detail,
    attempts: h.attempts,
    deliveryMs: h.delivery_ms,
    followMs: h.follow_ms,
    received: h.received,
  }));
}

/** The drive monitor's block from the status dep, whether it hands back `{drive: ...}` or the block itself. */
export function driveView(deps: AppDeps): unknown {
  const status = deps.status?.();
  if (!status) return null;
  return 'drive' in status ? status.drive : status;
}
