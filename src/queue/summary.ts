// What /health and /metrics count of the queue: folders by state, deliveries pending and followed per target.
import type Database from 'better-sqlite3';

export interface QueueSummary {
  folders: number;
  waiting: number;
  dispatching: number;
  pendingByTarget: Record<string, number>;
  followingByTarget: Record<string, number>;
}

export function queueSummary(db: Database.Database): QueueSummary {
  const byState = db.prepare<[], { state: string; n: number }>('SELECT state, COUNT(*) AS n FROM folders GROUP BY state').all();
  const deliveries = db
    .prepare<[], { target: string; state: string; n: number }>(
      `SELECT target, state, COUNT(*) AS n FROM deliveries WHERE state IN ('pending', 'following') GROUP BY target, state`,
    )
    .all();
  const n = (s: string) => byState.find((r) => r.state === s)?.n ?? 0;
  const byTarget = (state: string) => Object.fromEntries(deliveries.filter((d) => d.state === state).map((d) => [d.target, d.n]));
  return { folders: n('waiting') + n('dispatching'), waiting: n('waiting'), dispatching: n('dispatching'), pendingByTarget: byTarget('pending'), followingByTarget: byTarget('following') };
}
