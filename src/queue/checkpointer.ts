// Copies the queue's WAL into its database file on a schedule, from a worker thread: a checkpoint waits for the
// disk (two fsyncs), which can take hundreds of milliseconds on a busy disk, and on the main thread every
// webhook in flight would wait with it.
import { statSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { sqliteBindingPath } from '../sqlite.js';

// CommonJS, evaluated in the worker: its own connection to the same file, PASSIVE checkpoints (they never take
// the write lock, so commits on the main thread go on meanwhile), closed when the queue closes. Asked to
// truncate, it waits for a quiet round (no commit since the last one, every frame copied): TRUNCATE holds the
// write lock, and under load it would make webhooks wait (they get 503 after busy_timeout). Meanwhile
// journal_size_limit keeps the WAL small each time it restarts.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file, { fileMustExist: true });
db.pragma('synchronous = NORMAL');
db.pragma('cache_size = -256');
let truncateWanted = false;
let lastVersion = -1;
const timer = setInterval(() => {
  try {
    const [copied] = db.pragma('wal_checkpoint(PASSIVE)');
    // data_version moves whenever another connection commits: unchanged since the last round means quiet.
    const version = db.pragma('data_version', { simple: true });
    const quiet = version === lastVersion && copied && copied.busy === 0 && copied.log === copied.checkpointed;
    lastVersion = version;
    if (truncateWanted && quiet) {
      db.pragma('busy_timeout = 0');
      try {
        const [done] = db.pragma('wal_checkpoint(TRUNCATE)');
        // Busy (a reader in another process): the next quiet round tries again.
        truncateWanted = !done || done.busy !== 0;
      } finally {
        db.pragma('busy_timeout = 5000');
      }
    }
  } catch {
    // Busy: the WAL keeps the commits and the next round copies them.
  }
}, workerData.everyMs);
parentPort.on('message', (message) => {
  if (message === 'truncate') {
    truncateWanted = true;
    return;
  }
  clearInterval(timer);
  db.close();
  parentPort.close();
});
`;

const driver = sqliteBindingPath;

/** Below this the WAL costs nothing to keep (it is copied on close), and an idle service starts no thread. */
const START_AT_WAL_BYTES = 1024 * 1024;

const walBytes = (file: string): number => {
  try {
    return statSync(`${file}-wal`).size;
  } catch {
    return 0;
  }
};

export class Checkpointer {
  private worker?: Worker;
  private timer?: NodeJS.Timeout;
  private stopped = false;

  /**
   * `onMainThread` checkpoints on the caller's own connection: used when no worker can run. The worker starts
   * once the WAL holds a megabyte, so an idle or quiet service does not pay for a thread it does not need.
   */
  constructor(
    private readonly file: string,
    private readonly everyMs: number,
    private readonly onMainThread: () => void,
  ) {
    this.every(() => {
      if (walBytes(this.file) >= START_AT_WAL_BYTES) this.start();
    });
  }

  private every(fn: () => void): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = setInterval(fn, this.everyMs);
    this.timer.unref();
  }

  private start(): void {
    clearInterval(this.timer);
    this.timer = undefined;
    let worker: Worker;
    try {
      worker = new Worker(WORKER_SOURCE, {
        eval: true,
        workerData: { driver, file: this.file, everyMs: this.everyMs },
        resourceLimits: { maxOldGenerationSizeMb: 16, maxYoungGenerationSizeMb: 2 },
      });
    } catch {
      return this.fallBack();
    }
    worker.unref();
    worker.on('error', () => this.fallBack());
    worker.on('exit', (code) => {
      if (code !== 0) this.fallBack();
    });
    this.worker = worker;
  }

  private fallBack(): void {
    this.worker = undefined;
    if (!this.stopped) this.every(this.onMainThread);
  }

  /**
   * Has the worker cut the WAL to zero bytes at its next quiet round, off the main thread. False when no worker
   * runs (the WAL never reached a megabyte, so truncating it on the caller's thread is cheap).
   */
  truncate(): boolean {
    if (!this.worker || this.stopped) return false;
    this.worker.postMessage('truncate');
    return true;
  }

  /** Stops the schedule; the worker closes its connection (the last one to close checkpoints the rest). */
  stop(): void {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.worker?.postMessage('stop');
  }
}
