// The counts /health, /stats and /metrics show are kept as rows are written (src/queue/summary.ts), not counted
// per request. After any sequence of the queue's transitions (queue, merge, check deferred, claim, delivered,
// followed, retried, rescanned, exhausted, dropped, unmatched, history pruned, a write rolled back, a restart)
// they equal a real count of the file.
import fc from 'fast-check';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { Retention } from '../../src/queue/retention.js';
import { Queue, type DeliveryResult, type FolderRequest } from '../../src/queue/store.js';
import type { QueueSummary } from '../../src/queue/summary.js';

const TARGETS = ['plex', 'jelly'];
const FOLDERS = ['/tv/A/S01', '/tv/B/S01', '/movies/C'];

const open: Queue[] = [];
afterEach(() => open.splice(0).forEach((q) => q.close()));
function queueAt(file: string, clock: ManualClock): Queue {
  const q = new Queue(file, clock, { delayMs: 0, historyLimit: 3 });
  open.push(q);
  return q;
}

/** The truth, counted from the tables the way the queue counted before it kept counts. */
function realCount(q: Queue): QueueSummary {
  const folders = q.db.prepare<[], { state: string; n: number }>('SELECT state, COUNT(*) AS n FROM main.folders GROUP BY state').all();
  const deliveries = q.db
    .prepare<[], { target: string; state: string; n: number }>(`SELECT target, state, COUNT(*) AS n FROM main.deliveries WHERE state IN ('pending', 'following') GROUP BY target, state`)
    .all();
  const n = (s: string) => folders.find((r) => r.state === s)?.n ?? 0;
  const by = (s: string) => Object.fromEntries(deliveries.filter((d) => d.state === s).map((d) => [d.target, d.n]));
  return { folders: folders.reduce((a, r) => a + r.n, 0), waiting: n('waiting'), dispatching: n('dispatching'), pendingByTarget: by('pending'), followingByTarget: by('following') };
}

const request = (folder: string, priority: number, deleted = false): FolderRequest => ({ folder, priority, source: 'sonarr', event: 'Download', deleted, fileHint: `${folder}/e.mkv` });

type Op =
  | { op: 'enqueue'; folders: number[]; priority: number }
  | { op: 'claim' }
  | { op: 'defer'; folder: number }
  | { op: 'deliver'; folder: number; target: number; result: 'scanned' | 'unmatched' | 'following' | 'retry' }
  | { op: 'followed'; folder: number; target: number; state: 'confirmed' | 'not-found' }
  | { op: 'rescan'; folder: number; target: number }
  | { op: 'exhaust'; folder: number }
  | { op: 'drop'; folder: number }
  | { op: 'wake'; target: number }
  | { op: 'scanNow'; folder: number }
  | { op: 'unmatched'; folder: number }
  | { op: 'prune' }
  | { op: 'rollback'; folder: number }
  | { op: 'restart' }
  | { op: 'time' };

const folder = fc.integer({ min: 0, max: FOLDERS.length - 1 });
const target = fc.integer({ min: 0, max: TARGETS.length - 1 });
// Weighted so a sequence queues, claims and delivers often enough for the later transitions to find their rows.
const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ op: fc.constant('enqueue' as const), folders: fc.array(folder, { minLength: 1, maxLength: 3 }), priority: fc.integer({ min: 0, max: 2 }) }) },
  { weight: 5, arbitrary: fc.constant({ op: 'claim' as const }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('defer' as const), folder }) },
  { weight: 8, arbitrary: fc.record({ op: fc.constant('deliver' as const), folder, target, result: fc.constantFrom('scanned' as const, 'unmatched' as const, 'following' as const, 'retry' as const) }) },
  { weight: 4, arbitrary: fc.record({ op: fc.constant('followed' as const), folder, target, state: fc.constantFrom('confirmed' as const, 'not-found' as const) }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('rescan' as const), folder, target }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('exhaust' as const), folder }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('drop' as const), folder }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('wake' as const), target }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('scanNow' as const), folder }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('unmatched' as const), folder }) },
  { weight: 1, arbitrary: fc.constant({ op: 'prune' as const }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('rollback' as const), folder }) },
  { weight: 1, arbitrary: fc.constant({ op: 'restart' as const }) },
  { weight: 1, arbitrary: fc.constant({ op: 'time' as const }) },
);

function apply(q: Queue, clock: ManualClock, o: Op): void {
  const row = (i: number) => q.get(FOLDERS[i]);
  const ref = (i: number) => {
    const r = row(i);
    return r && { folderId: r.id, generation: r.generation };
  };
  switch (o.op) {
    case 'enqueue':
      q.enqueueMany(o.folders.map((i) => request(FOLDERS[i], o.priority, i % 2 === 1)));
      return;
    case 'claim':
      q.startDispatchMany(q.dueWaiting(3), TARGETS);
      return;
    case 'defer': {
      const r = row(o.folder);
      if (r) q.deferCheck(r, r.checks + 1, clock.now() + 1000, 'not there yet');
      return;
    }
    case 'deliver': {
      const r = row(o.folder);
      if (!r) return;
      const result: DeliveryResult =
        o.result === 'retry' ? { state: 'retry', error: 'down', nextAt: clock.now() + 5000 } : o.result === 'following' ? { state: 'following', follow: '{}' } : { state: o.result, detail: 'ok' };
      q.recordDelivery(r, TARGETS[o.target], result, TARGETS);
      return;
    }
    case 'followed': {
      const d = ref(o.folder);
      if (d) q.recordFollowUp(d, TARGETS[o.target], o.state, 'seen', TARGETS);
      return;
    }
    case 'rescan': {
      const d = ref(o.folder);
      if (d) q.rescanLater(d, TARGETS[o.target], clock.now() + 1000, 'missing after its scan');
      return;
    }
    case 'exhaust': {
      const r = row(o.folder);
      if (r) q.finish(r, 'exhausted', 'checks ran out');
      return;
    }
    case 'drop':
      q.drop(FOLDERS[o.folder]);
      return;
    case 'wake':
      q.wakeTarget(TARGETS[o.target]);
      return;
    case 'scanNow':
      q.scanNow(FOLDERS[o.folder]);
      return;
    case 'unmatched':
      q.recordUnmatched({ folder: FOLDERS[o.folder], received: FOLDERS[o.folder], source: 'sonarr', event: 'Download', detail: 'in no library' });
      return;
    case 'prune':
      new Retention(q.db, clock, { days: 0, maxRows: 1 }).pruneBatch();
      return;
    case 'rollback':
      // A write that fails half-way (a disk that fills mid-transaction): nothing of it stays, counts included.
      expect(() =>
        q.db.transaction(() => {
          q.enqueue(request(`/rolled/back/${o.folder}`, 0));
          const r = row(o.folder);
          if (r) q.drop(r.folder);
          throw new Error('disk full');
        })(),
      ).toThrow('disk full');
      return;
    case 'time':
      clock.advance(10_000);
      return;
    case 'restart':
      return;
  }
}

describe('the queue counts', () => {
  it('equal a real count after any sequence of transitions, restarts included', () => {
    fc.assert(
      fc.property(fc.array(op, { minLength: 20, maxLength: 60 }), (ops) => {
        const file = join(mkdtempSync(join(tmpdir(), 'scanrelay-counts-')), 'queue.db');
        const clock = new ManualClock();
        let q = queueAt(file, clock);
        for (const o of ops) {
          if (o.op === 'restart') {
            q.close();
            q = queueAt(file, clock);
          } else apply(q, clock, o);
          expect(q.summary(), JSON.stringify(o)).toEqual(realCount(q));
          expect(q.count()).toBe(realCount(q).folders);
        }
      }),
      { numRuns: 30 },
    );
  });

  it('are read from a few rows, whatever the size of the queue', () => {
    const q = queueAt(join(mkdtempSync(join(tmpdir(), 'scanrelay-counts-')), 'queue.db'), new ManualClock());
    q.enqueueMany(Array.from({ length: 2000 }, (_, i) => request(`/tv/Show ${i}/S01`, 1)));
    q.startDispatchMany(q.dueWaiting(500), TARGETS);
    expect(q.summary()).toEqual({ folders: 2000, waiting: 1500, dispatching: 500, pendingByTarget: { plex: 500, jelly: 500 }, followingByTarget: {} });
    const plan = q.db.prepare("EXPLAIN QUERY PLAN SELECT kind, target, state, n FROM temp.queue_counts WHERE n > 0").all() as { detail: string }[];
    expect(plan.map((p) => p.detail).join(' ')).toMatch(/queue_counts/);
    expect(plan.map((p) => p.detail).join(' ')).not.toMatch(/folders|deliveries/);
  });
});
