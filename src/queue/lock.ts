// One server per queue file: an exclusive lock on a side file, held while the server runs and released by the
// operating system when the process ends, however it ends (SQLite's own file locks do the holding).
import Database from '../sqlite/binding.js';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';

/** Another process holds the queue file. */
export class QueueLockedError extends Error {
  override name = 'QueueLockedError';
  constructor(
    readonly queuefile: string,
    readonly pid: number | null,
  ) {
    super(
      `another scanrelay server${pid ? ` (PID ${pid})` : ''} is already running on the queue file '${queuefile}'. ` +
        'Two servers on one queue would send every scan twice: stop the other one, or give this one its own --queuefile.',
    );
  }
}

export interface QueueLock {
  readonly file: string;
  release(): void;
}

/**
 * Takes the lock for `queuefile`, or throws QueueLockedError naming the holder's PID. The lock is a write
 * lock (BEGIN IMMEDIATE) on `<queuefile>.lock`: other processes can still read the holder's PID from it, but
 * none can take it while the holder lives. The PID is committed first, then the lock taken again; a starter
 * that slipped in between sees a PID that is not its own and gives way.
 */
export function lockQueue(queuefile: string, pid = process.pid): QueueLock {
  const file = `${queuefile}.lock`;
  mkdirSync(dirname(file), { recursive: true });
  const db = new Database(file);
  try {
    db.pragma('busy_timeout = 0');
    db.pragma('journal_mode = DELETE');
    db.exec('CREATE TABLE IF NOT EXISTS holder (id INTEGER PRIMARY KEY CHECK (id = 1), pid INTEGER NOT NULL, since INTEGER NOT NULL)');
    const holder = () => db.prepare<[], { pid: number }>('SELECT pid FROM holder WHERE id = 1').get()?.pid ?? null;
    const begin = (): boolean => {
      try {
        db.exec('BEGIN IMMEDIATE');
        return true;
      } catch (err) {
        if ((err as { code?: string }).code?.startsWith('SQLITE_BUSY')) return false;
        throw err;
      }
    };
    if (!begin()) throw new QueueLockedError(queuefile, holder());
    db.prepare('INSERT OR REPLACE INTO holder (id, pid, since) VALUES (1, ?, ?)').run(pid, Date.now());
    db.exec('COMMIT');
    if (!begin() || holder() !== pid) {
      if (db.inTransaction) db.exec('ROLLBACK');
      throw new QueueLockedError(queuefile, holder());
    }
  } catch (err) {
    db.close();
    // Two starters at the same moment on a new lock file: the one that lost the race to create it gives way too.
    if ((err as { code?: string }).code?.startsWith('SQLITE_BUSY')) throw new QueueLockedError(queuefile, null);
    throw err;
  }
  return {
    file,
    release() {
      if (!db.open) return;
      if (db.inTransaction) db.exec('ROLLBACK');
      db.close();
    },
  };
}
