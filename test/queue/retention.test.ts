// History retention (HISTORY_DAYS, HISTORY_MAX_ROWS) in small batches that leave room for intake, and the
// WAL checkpointed and truncated.
import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { Retention } from '../../src/queue/retention.js';
import { Queue } from '../../src/queue/store.js';

const DAY = 24 * 60 * 60 * 1000;
const open: Queue[] = [];
afterEach(() => open.splice(0).forEach((q) => q.close()));

function queue(clock = new ManualClock()) {
  const file = join(mkdtempSync(join(tmpdir(), 'scanrelay-ret-')), 'queue.db');
  // As the server opens it: its own checkpoints, no trimming by the queue.
  const q = new Queue(file, clock, { delayMs: 0, checkpointEveryMs: 60_000, historyLimit: 0 });
  open.push(q);
  return { q, clock, file };
}

/** `n` finished scans, `step` ms apart, ending at `end`. */
function history(q: Queue, n: number, end: number, step = 1000): void {
  const insert = q.db.prepare(
    `INSERT INTO history (folder, source, event, requests, first_at, finished_at, target, outcome, detail_id, attempts)
     VALUES (?, 'sonarr', 'Download', 1, ?, ?, 'plex', 'scanned', NULL, 1)`,
  );
  q.db.transaction(() => {
    for (let i = 0; i < n; i++) {
      const t = end - (n - 1 - i) * step;
      insert.run(`/tv/Show ${i}/Season 01`, t - 60_000, t);
    }
  })();
}
const count = (q: Queue) => (q.db.prepare('SELECT COUNT(*) AS n FROM history').get() as { n: number }).n;
const oldest = (q: Queue) => (q.db.prepare('SELECT MIN(finished_at) AS t FROM history').get() as { t: number }).t;

describe('history retention', () => {
  it('HISTORY_DAYS: lines older than that many days go, newer ones stay', async () => {
    const { q, clock } = queue();
    history(q, 100, clock.now() - 31 * DAY, 60_000);
    history(q, 50, clock.now(), 60_000);
    const r = new Retention(q.db, clock, { days: 30, maxRows: 0 });
    expect(await r.prune()).toBe(100);
    expect(count(q)).toBe(50);
    expect(oldest(q)).toBeGreaterThan(clock.now() - 30 * DAY);
    // Time moves on (the injected clock): the rest ages out in turn.
    clock.advance(31 * DAY);
    expect(await r.prune()).toBe(50);
    expect(count(q)).toBe(0);
  });

  it('HISTORY_MAX_ROWS: only the newest lines are kept; 0 means no row limit', async () => {
    const { q, clock } = queue();
    history(q, 1_234, clock.now());
    expect(await new Retention(q.db, clock, { days: 30, maxRows: 0 }).prune()).toBe(0);
    expect(await new Retention(q.db, clock, { days: 30, maxRows: 1_000 }).prune()).toBe(234);
    expect(count(q)).toBe(1_000);
    const kept = q.db.prepare('SELECT MIN(finished_at) AS lo, MAX(finished_at) AS hi FROM history').get() as { lo: number; hi: number };
    expect(kept.hi).toBe(clock.now());
    expect(kept.lo).toBe(clock.now() - 999 * 1000);
  });

  it('prunes in small batches that never stall intake: requests are committed between batches', async () => {
    const { q, clock } = queue();
    history(q, 20_000, clock.now() - 40 * DAY);
    const r = new Retention(q.db, clock, { days: 30, maxRows: 0, batch: 500 });
    const order: string[] = [];
    const batch = r.pruneBatch.bind(r);
    r.pruneBatch = () => {
      const n = batch();
      order.push(`batch ${n}`);
      return n;
    };
    let done = false;
    // A steady stream of webhooks, one per turn of the event loop, as Fastify would commit them.
    const intake = (async () => {
      for (let i = 0; !done; i++) {
        q.enqueue({ folder: `/movies/Film ${i}`, priority: 0, source: 'radarr', event: 'Download', deleted: false });
        order.push('request');
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
    })();
    const deleted = await r.prune();
    done = true;
    await intake;
    expect(deleted).toBe(20_000);
    const batches = order.filter((e) => e.startsWith('batch'));
    expect(batches.length).toBeGreaterThanOrEqual(40);
    for (const b of batches) expect(Number(b.split(' ')[1])).toBeLessThanOrEqual(500);
    // Never two batches without a request committed in between.
    const runs = order.join(',').split('request').map((s) => s.split(',').filter((e) => e.startsWith('batch')).length);
    expect(Math.max(...runs)).toBe(1);
    expect(q.count()).toBeGreaterThanOrEqual(40);
  });

  it('the WAL is checkpointed into the database and truncated to zero bytes', async () => {
    const { q, clock, file } = queue();
    history(q, 20_000, clock.now() - 40 * DAY);
    expect(statSync(`${file}-wal`).size).toBeGreaterThan(1_000_000);
    await new Retention(q.db, clock, { days: 30, maxRows: 0 }).prune();
    expect(statSync(`${file}-wal`).size).toBe(0);
    expect(count(q)).toBe(0);
  });

  it('a reader in another connection does not make the checkpoint wait; the next one finishes the job', async () => {
    const { q, clock, file } = queue();
    history(q, 2_000, clock.now());
    const r = new Retention(q.db, clock, { days: 30, maxRows: 0 });
    const Database = (await import('../../src/sqlite/binding.js')).default;
    const reader = new Database(file, { readonly: true });
    reader.exec('BEGIN');
    reader.prepare('SELECT COUNT(*) FROM history').get();
    // With a long busy timeout, a checkpoint that waited for the reader would take 5 s.
    q.db.pragma('busy_timeout = 5000');
    const started = Date.now();
    expect(r.truncateWal().busy).toBe(true);
    expect(Date.now() - started).toBeLessThan(2_500);
    expect(q.db.pragma('busy_timeout', { simple: true })).toBe(5000);
    reader.exec('COMMIT');
    reader.close();
    expect(r.truncateWal()).toEqual({ busy: false, walPages: 0 });
    expect(statSync(`${file}-wal`).size).toBe(0);
  });

  it('stop() ends a run after its current batch; a closed database is left alone', async () => {
    const { q, clock } = queue();
    history(q, 5_000, clock.now() - 40 * DAY);
    const r = new Retention(q.db, clock, { days: 30, maxRows: 0, batch: 100 });
    const run = r.prune();
    await r.stop();
    const deleted = await run;
    expect(deleted).toBeGreaterThan(0);
    expect(deleted).toBeLessThan(5_000);
    q.close();
    expect(r.truncateWal().busy).toBe(true);
  });
});

describe('the running service', () => {
  it('prunes by HISTORY_DAYS and HISTORY_MAX_ROWS from config.json as soon as it listens', async () => {
    const { testService } = await import('../support/service.js');
    // The test service's clock starts at ManualClock's default time: 300 lines up to then, the 50 oldest 10 days old.
    const clock = new ManualClock();
    const file = join(mkdtempSync(join(tmpdir(), 'scanrelay-ret-')), 'queue.db');
    const seed = new Queue(file, clock, { delayMs: 0 });
    history(seed, 300, clock.now());
    seed.db.exec(`UPDATE history SET finished_at = ${clock.now() - 10 * DAY} WHERE id <= 50`);
    seed.close();
    const t = await testService({ queuefile: file, config: { HISTORY_DAYS: 7, HISTORY_MAX_ROWS: 200 } });
    try {
      await t.service.listen(0, '127.0.0.1');
      // The first run starts with listen(); wait for it rather than for the minute's timer.
      await t.service.retention.prune();
      const rows = t.service.queue.db.prepare('SELECT MIN(id) AS lo, COUNT(*) AS n FROM history').get() as { lo: number; n: number };
      expect(rows).toEqual({ lo: 101, n: 200 });
    } finally {
      await t.close();
    }
  });
});
