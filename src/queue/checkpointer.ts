// Copies the queue's WAL into its database file on a schedule, from a worker thread: a checkpoint waits for the
// disk (two fsyncs), which can take hundreds of milliseconds on a busy disk, and on the main thread every
// webhook in flight would wait with it.
import { statSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { sqliteBindingPath } from '../sqlite/binding.js';

// CommonJS, evaluated in the worker: its own connection to the same file, closed when the queue closes.
//
// Why PASSIVE alone lets the WAL grow without bound: a PASSIVE checkpoint never takes the write lock, so commits
// on the main thread go on meanwhile. The WAL is only rewound to its start when a commit begins after a
// checkpoint copied every frame; under a steady load some commit always lands while the checkpoint copies and
// syncs, so the WAL kept growing without bound (docs/performance.md, the soak).
//
// So, every round (everyMs, or sooner once the WAL file passes restartAt; its size is looked at every 100 ms), a
// PASSIVE checkpoint copies the bulk without any lock. Past restartAt, a second PASSIVE copies what came during
// the first, and the worker asks the main thread to finish: there, between two turns of its event loop, no
// commit can land, so one PASSIVE on the main connection copies the few frames left (and syncs), and the main
// thread's next commit rewinds the WAL, which journal_size_limit (set on the main connection) cuts back to
// 4 MiB. The worker does not finish the job itself with RESTART: that holds the write lock, and a transaction of
// the main thread that has begun reading cannot wait for a lock to write (SQLITE_BUSY at once, a 503 at the
// intake). A PASSIVE that reports every frame copied proves nothing under load either: it copies up to the
// last commit it saw when it began, and commits go on while it runs.
// Asked to truncate (retention), it waits for a quiet round (no commit since the last one, every frame copied):
// TRUNCATE holds the write lock, which a quiet moment makes free.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { statSync } = require('node:fs');
const Database = require(workerData.driver);
const db = new Database(workerData.file, { fileMustExist: true });
db.pragma('synchronous = NORMAL');
db.pragma('cache_size = -256');
db.pragma('busy_timeout = 5000');
const stats = { rounds: 0, asked: 0 };
let truncateWanted = false;
let lastVersion = -1;
let lastRound = 0;
let askedAt = -1;
const walBytes = () => {
  try {
    return statSync(workerData.file + '-wal').size;
  } catch {
    return 0;
  }
};
const passive = () => db.pragma('wal_checkpoint(PASSIVE)')[0];
const round = () => {
  lastRound = Date.now();
  stats.rounds++;
  let copied = passive();
  const version = db.pragma('data_version', { simple: true });
  // Asked once per change: after the rewind, the file stays large until the main thread's next commit.
  if (walBytes() >= workerData.restartAt && version !== askedAt) {
    copied = passive();
    askedAt = version;
    stats.asked++;
    parentPort.postMessage('rewind');
  }
  // data_version moves whenever another connection commits: unchanged since the last round means quiet.
  const quiet = version === lastVersion && copied && copied.busy === 0 && copied.log === copied.checkpointed;
  lastVersion = version;
  if (truncateWanted && quiet) {
    db.pragma('busy_timeout = 0');
    let done;
    try {
      [done] = db.pragma('wal_checkpoint(TRUNCATE)');
    } finally {
      db.pragma('busy_timeout = 5000');
    }
    // Busy (a reader in another process): the next quiet round tries again.
    truncateWanted = !done || done.busy !== 0;
  }
};
const timer = setInterval(() => {
  try {
    if (Date.now() - lastRound >= workerData.everyMs || walBytes() >= workerData.restartAt) round();
  } catch {
    // Busy: the WAL keeps the commits and the next round copies them.
  }
}, Math.min(100, workerData.everyMs));
parentPort.on('message', (message) => {
  if (message === 'truncate') {
    truncateWanted = true;
    return;
  }
  if (message === 'stats') {
    parentPort.postMessage({ stats });
    return;
  }
  clearInterval(timer);
  db.close();
  parentPort.close();
});
`;

const driver = sqliteBindingPath;

/** How soon the WAL is looked at after it grew or a write was committed, and how seldom while nothing is written. */
const LOOK_SOON_MS = 100;
const LOOK_IDLE_MS = 5_000;

/** Below this the WAL costs nothing to keep (it is copied on close), and an idle service starts no thread. */
const START_AT_WAL_BYTES = 1024 * 1024;

const walBytes = (file: string): number => {
  try {
    return statSync(`${file}-wal`).size;
  } catch {
    return 0;
  }
};

/** Past this the WAL is rewound even while commits never pause (see the worker's comment). */
export const WAL_RESTART_AT_BYTES = 16 * 1024 * 1024;

export interface CheckpointerOptions {
  /** WAL file size past which it is rewound (default 16 MiB). */
  restartAtBytes?: number;
}

/** What the checkpoints did so far (for tests and benchmarks). */
export interface CheckpointerStats {
  /** The worker's rounds, and how often it asked the main thread to finish a rewind. */
  rounds: number;
  asked: number;
  /** Finishing checkpoints run on the main thread, and the longest (ms the event loop waited). */
  finished: number;
  longestFinishMs: number;
  totalFinishMs: number;
}

export class Checkpointer {
  private worker?: Worker;
  private timer?: NodeJS.Timeout;
  private look?: NodeJS.Timeout;
  private lookMs: number;
  private lastWalBytes: number;
  private readonly soonMs: number;
  private stopped = false;
  private readonly restartAt: number;
  private readonly finishes = { finished: 0, longestFinishMs: 0, totalFinishMs: 0 };

  /**
   * `onMainThread` checkpoints on the caller's own connection: used when no worker can run. The worker starts
   * once the WAL holds a megabyte, so an idle or quiet service does not pay for a thread it does not need.
   */
  constructor(
    private readonly file: string,
    private readonly everyMs: number,
    private readonly onMainThread: () => void,
    opts: CheckpointerOptions = {},
  ) {
    this.restartAt = opts.restartAtBytes ?? WAL_RESTART_AT_BYTES;
    this.soonMs = Math.min(LOOK_SOON_MS, everyMs);
    this.lookMs = this.soonMs;
    this.lastWalBytes = walBytes(file);
    this.scheduleLook();
  }

  /** How long until the WAL is looked at next, while no worker runs (tests). */
  get nextLookMs(): number | undefined {
    return this.look ? this.lookMs : undefined;
  }

  /**
   * A write is being committed (the queue says so at each intake commit and group commit): the WAL is looked at
   * within 100 ms however long it was quiet, since at the intake's full rate it grows by tens of MB a second.
   */
  noteWrite(): void {
    if (!this.look || this.lookMs === this.soonMs) return;
    clearTimeout(this.look);
    this.lookMs = this.soonMs;
    this.scheduleLook();
  }

  private scheduleLook(): void {
    this.look = setTimeout(() => this.lookAtWal(), this.lookMs);
    this.look.unref();
  }

  // One stat of the WAL file. While it does not grow the looks space out (doubling up to 5 s): an idle relay
  // wakes up a few times a minute instead of ten times a second (looked at that often, V8 found Node's stat and
  // timer code hot and optimized it, which woke its optimizing compilers: docs/performance.md).
  private lookAtWal(): void {
    this.look = undefined;
    if (this.stopped) return;
    const bytes = walBytes(this.file);
    if (bytes >= START_AT_WAL_BYTES) return this.start();
    this.lookMs = bytes === this.lastWalBytes ? Math.min(this.lookMs * 2, LOOK_IDLE_MS) : this.soonMs;
    this.lastWalBytes = bytes;
    this.scheduleLook();
  }

  private every(fn: () => void, ms = this.everyMs): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = setInterval(fn, ms);
    this.timer.unref();
  }

  private start(): void {
    clearTimeout(this.look);
    this.look = undefined;
    let worker: Worker;
    try {
      worker = new Worker(WORKER_SOURCE, {
        eval: true,
        workerData: { driver, file: this.file, everyMs: this.everyMs, restartAt: this.restartAt },
        resourceLimits: { maxOldGenerationSizeMb: 16, maxYoungGenerationSizeMb: 2 },
      });
    } catch {
      return this.fallBack();
    }
    worker.unref();
    worker.on('message', (m: unknown) => {
      if (m !== 'rewind' || this.stopped) return;
      // Between two turns of the event loop: no transaction is open and none can begin until this returns.
      const started = performance.now();
      this.onMainThread();
      const ms = performance.now() - started;
      this.finishes.finished++;
      this.finishes.totalFinishMs += ms;
      if (ms > this.finishes.longestFinishMs) this.finishes.longestFinishMs = ms;
    });
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

  /** The worker's counts so far; undefined when no worker runs. */
  stats(): Promise<CheckpointerStats | undefined> {
    const worker = this.worker;
    if (!worker || this.stopped) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      const onMessage = (m: { stats?: { rounds: number; asked: number } }) => {
        if (!m?.stats) return;
        worker.off('message', onMessage);
        resolve({ ...m.stats, ...this.finishes });
      };
      worker.on('message', onMessage);
      worker.postMessage('stats');
    });
  }

  /** Stops the schedule; the worker closes its connection (the last one to close checkpoints the rest). */
  stop(): void {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    clearTimeout(this.look);
    this.look = undefined;
    this.worker?.postMessage('stop');
  }
}
