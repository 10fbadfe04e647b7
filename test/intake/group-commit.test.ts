// Group commit: webhooks arriving together share one queue transaction; each is answered only after it,
// and a failed transaction fails only the requests that cannot be written.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { Intake, StorageError } from '../../src/intake/intake.js';
import { silentLogger } from '../../src/log/logger.js';
import { Queue, type FolderRequest } from '../../src/queue/store.js';
import type { ScanRequest } from '../../src/request.js';

const queues: Queue[] = [];
afterEach(() => queues.splice(0).forEach((q) => q.close()));

function setup(delayMs = 120_000) {
  const clock = new ManualClock();
  const queue = new Queue(join(mkdtempSync(join(tmpdir(), 'scanrelay-i-')), 'queue.db'), clock, { delayMs });
  queues.push(queue);
  const transactions: FolderRequest[][] = [];
  const write = queue.enqueueMany.bind(queue);
  queue.enqueueMany = (reqs) => {
    transactions.push(reqs);
    if (reqs.some((r) => r.folder.includes('poison'))) throw Object.assign(new Error('disk I/O error'), { code: 'SQLITE_IOERR' });
    return write(reqs);
  };
  const woken: number[] = [];
  const intake = new Intake({
    queue,
    logger: silentLogger,
    pathState: async () => 'missing',
    onQueued: (dueAt) => woken.push(dueAt),
    settings: { pathMappings: {}, fileExistMappings: {}, ignoreList: [], priorities: {} },
  });
  return { queue, intake, transactions, woken, clock };
}

const file = (show: string): ScanRequest => ({ path: `/tv/${show}/Season 01/${show} - S01E01.mkv`, source: 'sonarr', event: 'Download', kind: 'file' });

describe('group commit', () => {
  it('commits 50 concurrent webhooks in one transaction and answers each with its own outcome', async () => {
    const { queue, intake, transactions, woken, clock } = setup();
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, i) => intake.submit([file(i % 10 === 0 ? 'Same' : `Show ${i}`)], '127.0.0.1')),
    );
    expect(transactions).toHaveLength(1);
    expect(transactions[0]).toHaveLength(50);
    expect(queue.count()).toBe(46); // 45 distinct shows + the one merged five times
    const same = answers.filter(([a]) => a.folder === '/tv/Same/Season 01').map(([a]) => a.merged);
    expect(same).toEqual([false, true, true, true, true]);
    expect(queue.get('/tv/Same/Season 01')!.requests).toBe(5);
    expect(woken).toEqual([clock.now() + 120_000]);
  });

  it('answers only after the commit: a request is in the queue file when its promise resolves', async () => {
    const { queue, intake } = setup();
    const pending = intake.submit([file('Later')], 'c');
    expect(queue.count()).toBe(0);
    await pending;
    expect(queue.get('/tv/Later/Season 01')).toBeDefined();
  });

  it('a failed transaction is retried request by request: only the one that cannot be written fails', async () => {
    const { queue, intake, transactions } = setup();
    const results = await Promise.allSettled([intake.submit([file('Good A')], 'c'), intake.submit([file('poison')], 'c'), intake.submit([file('Good B')], 'c')]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    const reason = (results[1] as PromiseRejectedResult).reason;
    expect(reason).toBeInstanceOf(StorageError);
    expect(String(reason.message)).toMatch(/SQLITE_IOERR.*disk has space and is writable/);
    expect(transactions).toHaveLength(4); // the shared one, then one each
    expect(queue.count()).toBe(2);
  });

  it('requests in separate turns of the event loop commit separately (nobody waits for a batch to fill)', async () => {
    const { intake, transactions } = setup();
    await intake.submit([file('One')], 'c');
    await intake.submit([file('Two')], 'c');
    expect(transactions).toHaveLength(2);
  });
});
