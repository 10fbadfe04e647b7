// What the dashboard and the JSON API show of the queue, the history and the Drive monitor: the queue's folders,
// deliveries and history in the shapes the API promises (absent values as null), typed by schemas.ts.
import { systemClock } from '../clock.js';
import type { FinishedScan, QueuedFolder } from './schemas.js';
import type { AppDeps } from './deps.js';
import type { ReconcileView } from '../reconcile/schedule.js';
import type { AppView } from '../arr/connected.js';

export function queueView(deps: Pick<AppDeps, 'queue' | 'clock'>, limit = 500): QueuedFolder[] {
  const now = (deps.clock ?? systemClock).now();
  return deps.queue.list(limit).map((r) => ({
    id: r.id,
    folder: r.folder,
    priority: r.priority,
    state: r.state,
    dueAt: r.dueAt,
    dueInMs: Math.max(0, r.dueAt - now),
    firstAt: r.firstAt,
    lastAt: r.lastAt,
    requests: r.requests,
    source: r.source,
    event: r.event,
    fileChecks: r.checks,
    lastError: r.lastError ?? null,
    received: r.received ?? null,
    deliveries: deps.queue.deliveries(r.id).map((d) => ({
      target: d.target,
      state: d.state,
      attempts: d.attempts,
      nextAt: d.nextAt,
      lastError: d.lastError ?? null,
      detail: d.detail ?? null,
      deliveredAt: d.deliveredAt ?? null,
    })),
  }));
}

export function historyView(deps: Pick<AppDeps, 'queue'>, limit = 100): FinishedScan[] {
  return deps.queue.history(limit).map((h) => ({
    id: h.id,
    folder: h.folder,
    source: h.source,
    event: h.event,
    requests: h.requests,
    askedAt: h.firstAt,
    finishedAt: h.finishedAt,
    target: h.target ?? null,
    outcome: h.outcome,
    detail: h.detail ?? null,
    attempts: h.attempts,
    deliveryMs: h.deliveryMs ?? null,
    followMs: h.followMs ?? null,
    received: h.received ?? null,
  }));
}

/** Each notifier's last result (NOTIFY), from the status dep's `notify` block. */
export function notifyView(deps: Pick<AppDeps, 'status'>): NotifierView[] {
  const block = deps.status?.().notify;
  return Array.isArray(block) ? (block as NotifierView[]) : [];
}

export interface NotifierView {
  name: string;
  type: string;
  last: { at: number; ok: boolean; result: string; event: string } | null;
  dropped: number;
}

/** The drive monitor's block from the status dep, whether it hands back `{drive: ...}` or the block itself. */
export function driveView(deps: Pick<AppDeps, 'status'>): unknown {
  const status = deps.status?.();
  if (!status) return null;
  return 'drive' in status ? status.drive : status;
}

/** Each connected app (ARR) as the status dep's `arr` block has it. */
/** The reconcile's block of the status, when the service has one. */
export function reconcileView(deps: Pick<AppDeps, 'status'>): ReconcileView | undefined {
  return deps.status?.().reconcile as ReconcileView | undefined;
}

export function appsView(deps: Pick<AppDeps, 'status'>): AppView[] {
  const block = deps.status?.().arr;
  return Array.isArray(block) ? (block as AppView[]) : [];
}
