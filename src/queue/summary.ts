// What /health, /stats and /metrics count of the queue (folders by state, deliveries pending and followed per
// target), kept by temporary triggers as each row is written, so a public route reads a few rows instead of
// counting the queue: a COUNT(*) over 100,000 folders on every /stats call let 20 clients slow webhooks 300-fold.
import type Database from 'better-sqlite3';

export interface QueueSummary {
  folders: number;
  waiting: number;
  dispatching: number;
  pendingByTarget: Record<string, number>;
  followingByTarget: Record<string, number>;
}

interface CountRow {
  /** '' for a folder, else the delivery's target. */
  target: string;
  kind: 'folder' | 'delivery';
  state: string;
  n: number;
}

/**
 * The counts live in the connection's temp schema, never in the file: they are rebuilt from one count of each
 * table when the queue opens, and every insert, delete and change of state after it moves them in the same
 * transaction (a write that rolls back takes its counts with it). Only the server's connection writes folders
 * and deliveries (one server per queue file, src/queue/lock.ts), so no other connection's write goes uncounted.
 * Rows deleted by ON DELETE CASCADE fire the triggers too.
 */
const SETUP = `
  CREATE TEMP TABLE queue_counts (
    kind TEXT NOT NULL, target TEXT NOT NULL, state TEXT NOT NULL, n INTEGER NOT NULL,
    PRIMARY KEY (kind, target, state)
  ) WITHOUT ROWID;
  INSERT INTO temp.queue_counts SELECT 'folder', '', state, COUNT(*) FROM main.folders GROUP BY state;
  INSERT INTO temp.queue_counts SELECT 'delivery', target, state, COUNT(*) FROM main.deliveries GROUP BY target, state;
  ${triggers('folder', 'folders', "''")}
  ${triggers('delivery', 'deliveries', 'target')}`;

/** The three triggers that keep one table's counts: a row added, a row removed, a row moved to another state. */
function triggers(kind: 'folder' | 'delivery', table: string, target: string): string {
  const of = (row: 'NEW' | 'OLD') => (target === "''" ? "''" : `${row}.${target}`);
  const plus = `INSERT INTO temp.queue_counts (kind, target, state, n) VALUES ('${kind}', ${of('NEW')}, NEW.state, 1) ON CONFLICT DO UPDATE SET n = n + 1;`;
  const minus = `UPDATE temp.queue_counts SET n = n - 1 WHERE kind = '${kind}' AND target = ${of('OLD')} AND state = OLD.state;`;
  const columns = target === "''" ? 'state' : `state, ${target}`;
  const moved = target === "''" ? 'OLD.state IS NOT NEW.state' : `OLD.state IS NOT NEW.state OR OLD.${target} IS NOT NEW.${target}`;
  return `
  CREATE TEMP TRIGGER ${table}_counted_in AFTER INSERT ON main.${table} BEGIN ${plus} END;
  CREATE TEMP TRIGGER ${table}_counted_out AFTER DELETE ON main.${table} BEGIN ${minus} END;
  CREATE TEMP TRIGGER ${table}_counted_moved AFTER UPDATE OF ${columns} ON main.${table} WHEN ${moved} BEGIN ${minus} ${plus} END;`;
}

/** The queue's counts: set up once at open, read in O(targets) by every route that shows them. */
export class QueueCounts {
  private readonly read: Database.Statement<[], CountRow>;

  constructor(db: Database.Database) {
    db.exec(SETUP);
    this.read = db.prepare<[], CountRow>('SELECT kind, target, state, n FROM temp.queue_counts WHERE n > 0');
  }

  summary(): QueueSummary {
    const s: QueueSummary = { folders: 0, waiting: 0, dispatching: 0, pendingByTarget: {}, followingByTarget: {} };
    for (const r of this.read.all()) {
      if (r.kind === 'folder') {
        s.folders += r.n;
        if (r.state === 'waiting' || r.state === 'dispatching') s[r.state] += r.n;
      } else if (r.state === 'pending') s.pendingByTarget[r.target] = r.n;
      else if (r.state === 'following') s.followingByTarget[r.target] = r.n;
    }
    return s;
  }
}
