// The queue's SQLite file: created 0600, opened in WAL mode with a small cache, migrated; its WAL copied into
// the database by a worker thread; the writes of one turn of the event loop grouped into one transaction.
// The queue's rules (src/queue/store.ts) are built on it. The server checks an existing file first, read-only
// (./file-check.ts): opening here writes (WAL mode, migrations), which a damaged file must not get.
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { createPrivate } from '../private-files.js';
import Database from '../sqlite/binding.js';
import { Checkpointer, type CheckpointerStats } from './checkpointer.js';
import { GroupCommit } from './group-commit.js';
import { migrate } from './schema.js';

export interface QueueFileOptions {
  /**
   * How long a write waits for another process's lock. SQLite waits synchronously, so in the server this
   * stalls every request: short, and a webhook that cannot be written is answered 503 (the app retries).
   */
  busyTimeoutMs: number;
  /**
   * Copy the WAL into the database file on this schedule, from a worker thread, instead of inside whichever
   * commit crosses SQLite's 1,000-page mark. A page changed by a thousand commits is then copied once, and no
   * webhook waits for a checkpoint or its fsyncs. Unset: SQLite's own automatic checkpoints (the CLI's
   * short-lived uses).
   */
  checkpointEveryMs?: number;
  /** The WAL file is rewound once past this many bytes (the checkpointer's RESTART size; default 16 MiB). */
  walRestartBytes?: number;
  /** After a rewind the WAL file is cut back to this (journal_size_limit; default 4 MiB). */
  walLimitBytes?: number;
}

/** What journal_size_limit leaves of the WAL file after it is rewound. */
export const WAL_LIMIT_BYTES = 4 * 1024 * 1024;

export class QueueFile {
  readonly db: Database.Database;
  private checkpointer?: Checkpointer;
  private readonly group: GroupCommit;

  constructor(file: string, opts: QueueFileOptions) {
    if (file !== ':memory:') {
      mkdirSync(dirname(file), { recursive: true });
      // SQLite gives the WAL and SHM files the mode of the database file: 0600 for all three.
      createPrivate(file);
    }
    this.db = new Database(file);
    // WAL + NORMAL survives a killed process (the WAL is in the OS page cache); only a power cut could
    // lose the last transactions. busy_timeout lets a second process (CLI) share the file.
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = NORMAL');
    // SQLite's usual 2 MB page cache, not better-sqlite3's 16 MB: the queue's hot pages are its index tops, the
    // OS page cache keeps the rest of the file, and the server's memory stays small with a large queue.
    this.db.pragma('cache_size = -2000');
    this.db.pragma('foreign_keys = ON');
    this.db.pragma(`busy_timeout = ${Math.max(0, Math.round(opts.busyTimeoutMs))}`);
    // The main connection is the writer that rewinds the WAL; when it does, the file is cut back to this.
    this.db.pragma(`journal_size_limit = ${Math.round(opts.walLimitBytes ?? WAL_LIMIT_BYTES)}`);
    migrate(this.db);
    if (opts.checkpointEveryMs !== undefined && file !== ':memory:') {
      this.db.pragma('wal_autocheckpoint = 0');
      this.checkpointer = new Checkpointer(file, opts.checkpointEveryMs, () => this.checkpoint(), { restartAtBytes: opts.walRestartBytes });
    }
    this.group = new GroupCommit(this.db);
  }

  /**
   * Runs `write` (one of the queue's methods) in a transaction shared with the other writes of this turn of
   * the event loop: the processor and the follow-up stage record outcomes this way.
   */
  grouped<T>(write: () => T): Promise<T> {
    this.noteWrite();
    return this.group.run(write);
  }

  /** A write is being committed: the checkpointer looks at the WAL soon, however long it was quiet. */
  protected noteWrite(): void {
    this.checkpointer?.noteWrite();
  }

  /**
   * Copies the WAL into the database and truncates it: in the checkpointer's worker when one runs (a large WAL
   * would stall the event loop for hundreds of milliseconds), otherwise here, with `fallback`.
   */
  truncateWal(fallback: () => void): void {
    if (!this.checkpointer?.truncate()) fallback();
  }

  /** What the checkpointer's worker did so far (undefined when none runs). */
  checkpointStats(): Promise<CheckpointerStats | undefined> {
    return this.checkpointer?.stats() ?? Promise.resolve(undefined);
  }

  /** Moves committed WAL pages into the database file without waiting for readers (PASSIVE). */
  checkpoint(): void {
    try {
      if (this.db.open) this.db.pragma('wal_checkpoint(PASSIVE)');
    } catch {
      // Busy or read-only: the WAL keeps the commits, and the next checkpoint (or close) tries again.
    }
  }

  close(): void {
    this.checkpointer?.stop();
    if (this.db.open) this.db.close();
  }
}
