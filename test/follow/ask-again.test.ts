// The follow-up stage's one more scan (src/follow/stage.ts): a follower that saw no sign of a file it could have
// seen says so (FollowResult.askAgain) and the stage asks the server once more for the folder, at once, through
// the queue; a second miss is recorded as it is. A file the library lacks (not-found) waits SERVER_FILE_CHECK_DELAY
// first, as before. A file seen is never asked for twice.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { silentLogger } from '../../src/log/logger.js';
import { Processor } from '../../src/processor/processor.js';
import { Queue } from '../../src/queue/store.js';
import type { Capabilities } from '../../src/targets/kind.js';
import type { Follower, FollowItem, FollowResult } from '../../src/scan.js';
import { named } from '../support/target.js';

let queue: Queue | undefined;
afterEach(() => queue?.close());

/** A target whose follower answers each follow-up at once with the next of `answers`. */
function answering(answers: FollowResult[]) {
  const scans: number[] = [];
  const clock = new ManualClock();
  let done: (item: FollowItem, result: FollowResult) => Promise<void> = async () => {};
  let open = 0;
  const follower: Follower = {
    start: (fn) => void (done = fn),
    follow: (item) => {
      open++;
      queueMicrotask(() => void done(item, answers.shift()!).finally(() => open--));
    },
    get size() {
      return open;
    },
    stop: async () => {},
  };
  const target: Capabilities = {
    kind: 'command',
    follower,
    scan: async () => (scans.push(clock.now()), { status: 'scanned', detail: 'taken', follow: {} }),
    available: async () => ({ ok: true }),
  };
  queue = new Queue(join(mkdtempSync(join(tmpdir(), 'scanrelay-again-')), 'queue.db'), clock, { delayMs: 0 });
  const processor = new Processor({
    queue,
    targets: [named(target, { name: 'server' })],
    clock,
    logger: silentLogger,
    settings: { fileExistMappings: {}, maxFileChecks: 0, fileCheckDelayMs: 60_000, folderOnExhaustion: false, anchors: [], retryMaxDelayMs: 300_000 },
  });
  queue.enqueue({ folder: '/tv/Show/Season 01', priority: 0, source: 'sonarr', event: 'Download', fileHint: '/tv/Show/Season 01/e1.mkv', deleted: false });
  return { queue, processor, scans, clock };
}

const noSign: FollowResult = { state: 'scanned', detail: 'Plex finished the scan; whether the file is in the library is not known.', askAgain: true };

describe('asked once more', () => {
  it('no sign of the file: the folder is scanned again at once, and the second miss is recorded scanned', async () => {
    const { queue, processor, scans, clock } = answering([noSign, noSign]);
    await processor.drain();
    expect(scans).toEqual([clock.now(), clock.now()]);
    expect(queue.history().map((h) => [h.outcome, h.detail])).toEqual([['scanned', expect.stringContaining(noSign.detail)]]);
  });

  it('seen the second time: confirmed, two scans', async () => {
    const { queue, processor, scans } = answering([noSign, { state: 'confirmed', detail: 'In the library.' }]);
    await processor.drain();
    expect(scans).toHaveLength(2);
    expect(queue.history().map((h) => h.outcome)).toEqual(['confirmed']);
  });

  it('a file seen at once is never asked for again', async () => {
    const { queue, processor, scans } = answering([{ state: 'confirmed', detail: 'In the library.' }]);
    await processor.drain();
    expect(scans).toHaveLength(1);
    expect(queue.history().map((h) => h.outcome)).toEqual(['confirmed']);
  });

  it('not in the library (the database said so): once more only after SERVER_FILE_CHECK_DELAY', async () => {
    const { queue, processor, scans, clock } = answering([{ state: 'not-found', detail: 'Not in the library.' }, { state: 'not-found', detail: 'Not in the library.' }]);
    const start = clock.now();
    await processor.drain();
    expect(scans).toEqual([start]);
    clock.advance(60_000);
    await processor.drain();
    expect(scans).toEqual([start, start + 60_000]);
    expect(queue.history().map((h) => h.outcome)).toEqual(['not-found']);
  });
});
