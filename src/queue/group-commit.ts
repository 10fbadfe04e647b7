// Group commit: the writes made in one turn of the event loop share one SQLite transaction. Under load, fewer
// commits cost less CPU and leave a smaller WAL; alone, a write waits one turn.
import type Database from 'better-sqlite3';

interface Waiting {
  write: () => unknown;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
}

export class GroupCommit {
  private waiting: Waiting[] = [];

  constructor(private readonly db: Database.Database) {}

  /** Runs `write` in the turn's shared transaction; resolves with its result once that is committed. */
  run<T>(write: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      if (this.waiting.length === 0) setImmediate(() => this.flush());
      this.waiting.push({ write, resolve: resolve as (value: unknown) => void, reject });
    });
  }

  private flush(): void {
    const batch = this.waiting;
    this.waiting = [];
    // Each write has its own savepoint: one that throws is rolled back alone and the others still commit.
    const outcomes: ({ ok: true; value: unknown } | { ok: false; err: unknown })[] = [];
    try {
      this.db.transaction(() => {
        for (const w of batch) {
          try {
            outcomes.push({ ok: true, value: this.db.transaction(w.write)() });
          } catch (err) {
            outcomes.push({ ok: false, err });
          }
        }
      })();
    } catch {
      // The commit itself failed (disk full, read-only, closed): nothing was written. Each write gets its own
      // try, so a fault that has just cleared cannot fail the others.
      for (const w of batch) {
        try {
          w.resolve(this.db.transaction(w.write)());
        } catch (err) {
          w.reject(err);
        }
      }
      return;
    }
    batch.forEach((w, i) => {
      const o = outcomes[i];
      if (o.ok) w.resolve(o.value);
      else w.reject(o.err);
    });
  }
}
