// The server's checkpoints run in a worker thread: a busy queue's commits reach the database file without the
// main thread ever running a checkpoint (and waiting for its fsyncs), and nothing is lost when it closes.
import { mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { Checkpointer } from '../../src/queue/checkpointer.js';
import { Queue } from '../../src/queue/store.js';
import Database from '../../src/sqlite/binding.js';
import { until } from '../support/until.js';

const open: { close: () => void }[] = [];
afterEach(() => open.splice(0).forEach((q) => q.close()));

/** A generous limit, since a loaded machine may be slow to start a thread. */
const threadStarted = { ms: 20_000, every: 20 };

const folder = (i: number) => ({
  folder: `/data/media/tv/Severance ${i} (2022)/Season 02`,
  priority: 0,
  source: 'sonarr',
  event: 'Download',
  fileHint: `/data/media/tv/Severance ${i} (2022)/Season 02/Severance (2022) - S02E03 - Who Is Alive.mkv`,
  deleted: false,
});

describe('checkpoints in a worker thread', () => {
  it("a busy queue's commits are copied into the database file by the worker, never by the main thread", async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'scanrelay-ckpt-')), 'queue.db');
    const q = new Queue(file, new ManualClock(), { delayMs: 0, checkpointEveryMs: 50 });
    open.push(q);
    const onMain = vi.spyOn(q, 'checkpoint');
    const before = statSync(file).size;
    for (let batch = 0; batch < 20; batch++) q.enqueueMany(Array.from({ length: 500 }, (_, i) => folder(batch * 500 + i)));
    expect(statSync(`${file}-wal`).size).toBeGreaterThan(1024 * 1024); // enough to start the worker
    // Only a checkpoint writes the database file itself; commits go to the WAL.
    await until(() => statSync(file).size > before + 1024 * 1024, threadStarted);
    expect(onMain).not.toHaveBeenCalled();
    q.close();
    const again = new Queue(file, new ManualClock(), { delayMs: 0 });
    open.push(again);
    expect(again.count()).toBe(10_000);
    expect(again.get(folder(9_999).folder)?.fileHint).toBe(folder(9_999).fileHint);
  });

  it('a large WAL is truncated to zero bytes by the worker in a quiet moment, not on the main thread and not under load', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'scanrelay-ckpt-')), 'queue.db');
    // A long interval: the worker starts, but its own PASSIVE rounds do not do the work for the truncation.
    const q = new Queue(file, new ManualClock(), { delayMs: 0, checkpointEveryMs: 60_000 });
    open.push(q);
    for (let batch = 0; batch < 20; batch++) q.enqueueMany(Array.from({ length: 500 }, (_, i) => folder(batch * 500 + i)));
    const onThisThread = vi.fn();
    // No worker yet (it starts on the first round after the WAL passed a megabyte): the caller's thread does it.
    q.truncateWal(onThisThread);
    expect(onThisThread).toHaveBeenCalledTimes(1);
    const c = new Checkpointer(file, 20, vi.fn());
    open.push({ close: () => c.stop() });
    await until(() => c.truncate());
    // While commits keep coming, the truncation waits (TRUNCATE would hold the write lock): every write goes
    // through, none waits into SQLITE_BUSY, and the WAL is not cut meanwhile.
    let written = 0;
    const until300ms = Date.now() + 300;
    while (Date.now() < until300ms) {
      q.enqueueMany(Array.from({ length: 10 }, (_, j) => folder(10_000 + written + j)));
      written += 10;
      expect(statSync(`${file}-wal`).size).toBeGreaterThan(0);
    }
    // The first quiet round truncates it.
    await until(() => statSync(`${file}-wal`).size === 0);
    q.close();
    const again = new Queue(file, new ManualClock(), { delayMs: 0 });
    open.push(again);
    expect(again.count()).toBe(10_000 + written);
  });

  it('keeps the WAL under a small limit while commits never pause and a second connection keeps reading', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'scanrelay-ckpt-')), 'queue.db');
    const restartAt = 2 * 1024 * 1024;
    const q = new Queue(file, new ManualClock(), { delayMs: 0, checkpointEveryMs: 1_000, walRestartBytes: restartAt, walLimitBytes: 1024 * 1024 });
    open.push(q);
    // A reader on its own connection, as `scanrelay backup` or a dashboard read would be: short read transactions.
    const reader = new Database(file, { readonly: true });
    open.push({ close: () => reader.close() });
    const count = reader.prepare('SELECT COUNT(*) AS n, MAX(id) AS m FROM folders');
    let written = 0;
    // A commit every millisecond or so (as the intake's group commit makes under load), each rewriting pages all
    // over the folders table and its indexes: the checkpointer never gets a quiet moment to rewind the WAL.
    const write = async () => {
      q.enqueueMany(Array.from({ length: 20 }, (_, j) => folder((written + j) % 5_000)));
      written += 20;
      count.get();
      await new Promise((r) => setTimeout(r, 1));
    };
    // Until the worker has started (a thread on a loaded machine may take a while) and rewound the WAL once.
    for (let turn = 0; ; turn++) {
      await write();
      if (turn % 50 === 0 && ((await q.checkpointStats())?.finished ?? 0) > 0) break;
    }
    let largest = 0;
    const until = Date.now() + 2_000;
    while (Date.now() < until) {
      await write();
      largest = Math.max(largest, statSync(`${file}-wal`).size);
    }
    const stats = await q.checkpointStats();
    expect(stats!.finished).toBeGreaterThan(1);
    // Only PASSIVE checkpoints (before): the WAL grew past 20 MB in these 2 s.
    expect(largest).toBeLessThan(4 * restartAt);
    q.close();
    const again = new Queue(file, new ManualClock(), { delayMs: 0 });
    open.push(again);
    expect(again.count()).toBe(Math.min(written, 5_000));
  });

  it('checkpoints on the main thread when the worker cannot open the queue file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'scanrelay-ckpt-'));
    const file = join(dir, 'queue.db');
    // A WAL large enough to start the worker, beside a database file that does not exist: the worker fails.
    writeFileSync(`${file}-wal`, Buffer.alloc(2 * 1024 * 1024));
    const onMain = vi.fn();
    const c = new Checkpointer(file, 20, onMain);
    open.push({ close: () => c.stop() });
    await until(() => onMain.mock.calls.length >= 2, threadStarted);
  });
});

describe('looking at the WAL before a worker runs', () => {
  afterEach(() => vi.useRealTimers());

  it('while nothing is written the looks space out to one in 5 s; a grown WAL or a committed write brings them back to 100 ms', () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const file = join(mkdtempSync(join(tmpdir(), 'scanrelay-ckpt-')), 'queue.db');
    writeFileSync(`${file}-wal`, Buffer.alloc(4096));
    const c = new Checkpointer(file, 1_000, vi.fn());
    open.push({ close: () => c.stop() });
    const spacing: number[] = [];
    for (let i = 0; i < 8; i++) {
      spacing.push(c.nextLookMs!);
      vi.advanceTimersByTime(c.nextLookMs!);
    }
    expect(spacing).toEqual([100, 200, 400, 800, 1_600, 3_200, 5_000, 5_000]);
    // Written by a connection the relay does not watch (the CLI, say): seen at the next look, then soon again.
    writeFileSync(`${file}-wal`, Buffer.alloc(8192));
    vi.advanceTimersByTime(5_000);
    expect(c.nextLookMs).toBe(100);
    vi.advanceTimersByTime(100 + 200 + 400);
    expect(c.nextLookMs).toBe(800);
    // A write through the queue's group commit: looked at within 100 ms, not at the end of the long wait.
    c.noteWrite();
    expect(c.nextLookMs).toBe(100);
    writeFileSync(`${file}-wal`, Buffer.alloc(2 * 1024 * 1024));
    vi.advanceTimersByTime(100);
    expect(c.nextLookMs).toBeUndefined(); // the worker was started: no more looks
  });

  it("the queue's intake and group commit tell it about each write", async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'scanrelay-ckpt-')), 'queue.db');
    const q = new Queue(file, new ManualClock(), { delayMs: 0, checkpointEveryMs: 1_000 });
    open.push(q);
    const noteWrite = vi.spyOn(Checkpointer.prototype, 'noteWrite');
    q.enqueue(folder(1));
    expect(noteWrite).toHaveBeenCalledTimes(1);
    await q.grouped(() => q.count());
    expect(noteWrite).toHaveBeenCalledTimes(2);
    noteWrite.mockRestore();
  });
});
