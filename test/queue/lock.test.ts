// The queue file's lock: one holder at a time, its PID readable by the next starter, free again once released.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { lockQueue, QueueLockedError } from '../../src/queue/lock.js';

describe('queue lock', () => {
  it('a second lock on the same queue file is refused with the holder\'s PID; after release it is taken', () => {
    const queuefile = join(mkdtempSync(join(tmpdir(), 'scanrelay-lock-')), 'queue.db');
    const first = lockQueue(queuefile, 4242);
    let refused: unknown;
    try {
      lockQueue(queuefile, 4343);
    } catch (err) {
      refused = err;
    }
    expect(refused).toBeInstanceOf(QueueLockedError);
    expect(refused).toMatchObject({ pid: 4242, queuefile });
    expect((refused as Error).message).toContain(`(PID 4242) is already running on the queue file '${queuefile}'`);
    first.release();
    const second = lockQueue(queuefile, 4343);
    second.release();
  });

  it('another queue file has its own lock', () => {
    const dir = mkdtempSync(join(tmpdir(), 'scanrelay-lock-'));
    const a = lockQueue(join(dir, 'a.db'));
    const b = lockQueue(join(dir, 'b.db'));
    a.release();
    b.release();
  });
});
