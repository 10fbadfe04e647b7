// "Say it once" for the polling backend: a folder it cannot read (here the watched root replaced by a file, as a
// mount gone wrong can leave it; tests may run as root, where permissions do not stop reading) was warned about on
// every walk. Now: once, a summary at most every 10 minutes, once when it can be read again.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { PathFilter } from '../../src/watch/filter.js';
import { PollWatcher } from '../../src/watch/poll.js';
import { logCollector } from '../drive/harness.js';

describe('polling a folder that cannot be read', () => {
  it('a walk every minute for 25 minutes: one warning, two summaries, one line when it is readable again', async () => {
    const root = join(mkdtempSync(join(tmpdir(), 'scanrelay-poll-')), 'media');
    mkdirSync(root);
    const clock = new ManualClock();
    const log = logCollector('info');
    const watcher = new PollWatcher({ root, recursive: true, filter: new PathFilter(), intervalMs: 60_000, onChange: () => undefined, logger: log.logger, clock });
    await watcher.start();
    // Walks are driven by hand below (its own timer is a real minute away, and stopped at the end).
    rmSync(root, { recursive: true });
    writeFileSync(root, 'not a folder');
    for (let minute = 1; minute <= 25; minute++) {
      clock.advance(60_000);
      await watcher.pollNow();
    }
    const warned = log.messages();
    expect(warned).toHaveLength(3);
    expect(warned[0]).toBe(`Cannot read '${root}' while polling (ENOTDIR): changes under it are not seen.`);
    expect(warned[1]).toBe(`Still, for 10 min (10 more time(s) in the last 10 min): Cannot read '${root}' while polling (ENOTDIR): changes under it are not seen.`);
    expect(warned[2]).toMatch(/^Still, for 20 min \(10 more time\(s\)/);
    rmSync(root);
    mkdirSync(root);
    clock.advance(60_000);
    await watcher.pollNow();
    await watcher.pollNow();
    expect(log.messages().slice(3)).toEqual([`'${root}' can be read again while polling (after 25 min, seen 25 time(s))`]);
    watcher.stop();
  });
});
