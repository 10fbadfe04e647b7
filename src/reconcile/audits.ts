// The reconcile's results, kept in the queue file (the 'reconcile' component of src/migrations.ts), one row per
// app and media server: the last audit as the dashboard, /health, /metrics and the doctor show it (whether the
// server or `scanrelay reconcile` ran it), and the counts of the last audit that was not held back, which the
// next one is measured against (a server that suddenly lists far fewer items queues nothing).
import type Database from 'better-sqlite3';
import { migrate, type Component } from '../sqlite/migrations.js';
import { storedList } from '../arr/cursors.js';

const STEPS: string[] = [
  `CREATE TABLE reconcile_audits (
     app           TEXT    NOT NULL,
     target        TEXT    NOT NULL,
     at            INTEGER NOT NULL,
     files         INTEGER NOT NULL,
     items         INTEGER NOT NULL,
     missing       INTEGER NOT NULL,
     unknown       INTEGER NOT NULL,
     held          TEXT,
     error         TEXT,
     samples       TEXT    NOT NULL,
     base_files    INTEGER,
     base_items    INTEGER,
     PRIMARY KEY (app, target)
   );`,
  // 2: who is reconciling on this queue file (a server's pass or a command), so that two never run at once.
  `CREATE TABLE reconcile_lease (
     id    INTEGER PRIMARY KEY CHECK (id = 1),
     pid   INTEGER NOT NULL,
     until INTEGER NOT NULL
   );`,
];

/** A lease outlives a holder that died without releasing it by no more than this. */
export const LEASE_MS = 6 * 3_600_000;

/** Is a process of that PID running (on this machine)? */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export const reconcileComponent: Component = {
  name: 'reconcile',
  steps: STEPS,
  tooNew: (found, known) => `the queue file's reconcile table is version ${found}, newer than this scanrelay understands (${known}): upgrade scanrelay`,
  adoptLegacy: () => 0,
};

/** One app × media server, as last audited. */
export interface Audit {
  app: string;
  target: string;
  at: number;
  /** The app's files that this server's libraries should hold. */
  files: number;
  /** The server's files in the libraries read. */
  items: number;
  missing: number;
  unknown: number;
  /** Why nothing was queued though files are missing (the server lists far fewer items than before). */
  held: string | null;
  /** Why this server (or the app) could not be read. */
  error: string | null;
  /** The first missing and unknown paths, for the doctor page. */
  samples: { missing: string[]; unknown: string[] };
}

/** What the next audit is measured against: the counts of the last one not held back. */
export interface Baseline {
  files: number;
  items: number;
}

/** An audit as its row stores it: the samples as JSON, and the baseline beside. */
type Row = Omit<Audit, 'samples'> & { samples: string; base_files: number | null; base_items: number | null };

export class ReconcileAudits {
  private readonly db: Database.Database;

  constructor(db: Database.Database) {
    migrate(db, reconcileComponent);
    this.db = db;
  }

  /**
   * Takes the lease for `pid` until `now` + LEASE_MS; the PID of the live process holding it instead, when another
   * does (one whose lease ran out, or whose process is gone, holds nothing).
   */
  take(pid: number, now: number): number | undefined {
    return this.db.transaction(() => {
      const held = this.db.prepare<[], { pid: number; until: number }>('SELECT pid, until FROM reconcile_lease WHERE id = 1').get();
      if (held && held.pid !== pid && held.until > now && alive(held.pid)) return held.pid;
      this.db.prepare('INSERT OR REPLACE INTO reconcile_lease (id, pid, until) VALUES (1, ?, ?)').run(pid, now + LEASE_MS);
      return undefined;
    }).immediate();
  }

  release(pid: number): void {
    this.db.prepare('DELETE FROM reconcile_lease WHERE id = 1 AND pid = ?').run(pid);
  }

  all(): Audit[] {
    return this.db.prepare<[], Row>('SELECT * FROM reconcile_audits ORDER BY app, target').all().map(auditOf);
  }

  baseline(app: string, target: string): Baseline | undefined {
    const row = this.db.prepare<[string, string], Row>('SELECT * FROM reconcile_audits WHERE app = ? AND target = ?').get(app, target);
    return row && row.base_files !== null && row.base_items !== null ? { files: row.base_files, items: row.base_items } : undefined;
  }

  /** Saves an audit; its counts become the baseline unless it was held back or failed. */
  save(a: Audit): void {
    const base = a.held || a.error ? null : 1;
    this.db
      .prepare(
        `INSERT INTO reconcile_audits (app, target, at, files, items, missing, unknown, held, error, samples, base_files, base_items)
         VALUES (@app, @target, @at, @files, @items, @missing, @unknown, @held, @error, @samples, @baseFiles, @baseItems)
         ON CONFLICT (app, target) DO UPDATE SET at = excluded.at, files = excluded.files, items = excluded.items, missing = excluded.missing,
           unknown = excluded.unknown, held = excluded.held, error = excluded.error, samples = excluded.samples,
           base_files = COALESCE(excluded.base_files, base_files), base_items = COALESCE(excluded.base_items, base_items)`,
      )
      .run({ ...a, samples: JSON.stringify(a.samples), baseFiles: base && a.files, baseItems: base && a.items });
  }
}

function auditOf(r: Row): Audit {
  let samples: Audit['samples'] = { missing: [], unknown: [] };
  try {
    const parsed = JSON.parse(r.samples) as { missing?: unknown; unknown?: unknown };
    const strings = (v: unknown) => storedList(JSON.stringify(v ?? []), (s): s is string => typeof s === 'string');
    samples = { missing: strings(parsed.missing), unknown: strings(parsed.unknown) };
  } catch {
    // A damaged row shows without its samples.
  }
  return { app: r.app, target: r.target, at: r.at, files: r.files, items: r.items, missing: r.missing, unknown: r.unknown, held: r.held, error: r.error, samples };
}
