// The reader of src/hash/read.ts on its own: what it opens when a path changed after it was looked at (a link, a
// FIFO swapped in), how many files it reads at once, and a wait for its turn ended by stop.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { HashReader } from '../../src/hash/read.js';
import { sha256 } from '../support/hash-library.js';

const dir = mkdtempSync(join(tmpdir(), 'scanrelay-reader-'));
const file = (name: string, content: string) => (writeFileSync(join(dir, name), content), join(dir, name));

describe('HashReader', () => {
  it('answers match or differs, never the hash', async () => {
    const reader = new HashReader({ clock: new ManualClock() });
    const stop = new AbortController().signal;
    const path = file('e.mkv', 'episode');
    expect(await reader.matches(path, sha256('episode'), stop)).toEqual({ state: 'match' });
    expect(await reader.matches(path, sha256('other'), stop)).toEqual({ state: 'differs' });
    expect(await reader.matches(join(dir, 'gone.mkv'), sha256('x'), stop)).toEqual({ state: 'missing' });
  });

  it('a link or a FIFO swapped in after the look is not followed, and a FIFO never blocks the open', async () => {
    const reader = new HashReader({ clock: new ManualClock() });
    const stop = new AbortController().signal;
    symlinkSync('/dev/zero', join(dir, 'link.mkv'));
    expect(await reader.matches(join(dir, 'link.mkv'), sha256('x'), stop)).toMatchObject({ state: 'refused', rule: 'unreadable', reason: expect.stringContaining('it became a symbolic link') });
    execFileSync('mkfifo', [join(dir, 'pipe.mkv')]);
    expect(await reader.matches(join(dir, 'pipe.mkv'), sha256('x'), stop)).toMatchObject({ state: 'refused', rule: 'not-a-file' });
  });

  it('reads two files at a time; a third waits its turn, and stop ends both the reads and the wait at once', async () => {
    const reader = new HashReader({ clock: new ManualClock() });
    const stopping = new AbortController();
    const big = (name: string) => {
      const path = file(name, '');
      truncateSync(path, 4 * 1024 ** 3);
      return path;
    };
    let settled = 0;
    const reads = ['a.mkv', 'b.mkv', 'c.mkv'].map((n) => reader.matches(big(n), sha256('x'), stopping.signal).finally(() => settled++));
    await new Promise((r) => setTimeout(r, 50));
    expect(settled).toBe(0);
    expect((reader as unknown as { reading: number; waiting: unknown[] }).reading).toBe(2);
    expect((reader as unknown as { waiting: unknown[] }).waiting).toHaveLength(1);
    const started = Date.now();
    stopping.abort();
    expect(await Promise.all(reads)).toEqual([{ state: 'stopped' }, { state: 'stopped' }, { state: 'stopped' }]);
    expect(Date.now() - started).toBeLessThan(500);
  });
});
