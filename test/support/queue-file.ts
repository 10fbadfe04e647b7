// Reads the queue file of a server running in a child process: a WAL reader never blocks the server's writes.
import Database from '../../src/sqlite/binding.js';

/** The `n` column of one row of `sql` (e.g. `SELECT COUNT(*) AS n FROM deliveries WHERE ...`). */
export function countIn(queuefile: string, sql: string): number {
  const db = new Database(queuefile, { readonly: true, fileMustExist: true });
  try {
    return (db.prepare(sql).get() as { n: number }).n;
  } finally {
    db.close();
  }
}
