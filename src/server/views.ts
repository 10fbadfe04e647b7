// What the dashboard and the JSON API show of the queue, the history and the Drive monitor: rows turned into
// the shapes people read (camelCase, times as numbers, each stage's time), typed by schemas.ts.
import { systemClock } from '../clock.js';
import type { FinishedScan, QueuedFolder } from './schemas.js';
import type { AppDeps } from './deps.js';

export function queueView(deps: Pick<AppDeps, 'queue' | 'clock'>, limit = 500): QueuedFolder[] {
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

export function historyView(deps: Pick<AppDeps, 'queue'>, limit = 100): FinishedScan[] {
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
export function driveView(deps: Pick<AppDeps, 'status'>): unknown {
  const status = deps.status?.();
  if (!status) return null;
  return 'drive' in status ? status.drive : status;
}
