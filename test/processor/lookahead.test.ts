// A large backlog is checked at the pace it is delivered: the processor keeps each reachable target a few
// rounds of its slots ahead and leaves the rest waiting, unchecked, instead of checking 100,000 folders at once.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { silentLogger } from '../../src/log/logger.js';
import { Processor } from '../../src/processor/processor.js';
import { Queue } from '../../src/queue/store.js';
import type { FollowItem, ScanOutcome, Target } from '../../src/scan.js';
import { until } from '../support/until.js';

const closers: (() => Promise<void> | void)[] = [];
const queues: Queue[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
  for (const q of queues.splice(0)) q.close();
});

function backlog(n: number) {
  const clock = new ManualClock();
  const queue = new Queue(join(mkdtempSync(join(tmpdir(), 'scanrelay-ahead-')), 'queue.db'), clock, { delayMs: 0 });
  queues.push(queue);
  queue.enqueueMany(
    Array.from({ length: n }, (_, i) => ({
      folder: `/data/media/tv/Show ${i}/Season 01`,
      priority: 0,
      source: 'sonarr',
      event: 'Download',
      fileHint: `/data/media/tv/Show ${i}/Season 01/Show ${i} - S01E01.mkv`,
      deleted: false,
    })),
  );
  return { clock, queue };
}

/** A target whose scans stay in flight until released. */
function heldTarget(name: string, concurrency: number, up = true) {
  const release: ((o: ScanOutcome) => void)[] = [];
  const target: Target = {
    name,
    kind: 'plex',
    pauseMs: 0,
    concurrency,
    // A server that is down refuses the connection: the processor marks it down and probes it later.
    scan: () => (up ? new Promise<ScanOutcome>((resolve) => release.push(resolve)) : Promise.resolve({ status: 'retry', error: 'connection refused', targetDown: true })),
    available: async () => (up ? { ok: true } : { ok: false, error: 'connection refused' }),
  };
  // Scans still held when a test ends are answered, so the processor can stop.
  closers.unshift(() => release.splice(0).forEach((r) => r({ status: 'scanned' })));
  return { target, release };
}

/** Lets the processor's pending promises (probes, checks, recorded scans) run. */
const settle = () => new Promise<void>((r) => setTimeout(r, 20));

function processorFor(queue: Queue, clock: ManualClock, targets: Target[], checked: string[]) {
  const processor = new Processor({
    queue,
    targets,
    clock,
    logger: silentLogger,
    pathState: async (p) => (checked.push(p), 'file'),
    settings: { fileExistMappings: {}, maxFileChecks: 3, fileCheckDelayMs: 1_000, folderOnExhaustion: false, anchors: [], retryMaxDelayMs: 60_000 },
  });
  closers.push(async () => {
    await processor.stop();
  });
  return processor;
}

const counts = (queue: Queue) =>
  queue.db.prepare<[], { state: string; n: number }>('SELECT state, COUNT(*) AS n FROM folders GROUP BY state').all().reduce<Record<string, number>>((a, r) => ({ ...a, [r.state]: r.n }), {});

describe('checking a backlog ahead of delivery', () => {
  it('1,000 due folders and a target with 2 slots: 8 are checked and begun, 2 are in flight, 992 wait unchecked', async () => {
    const { clock, queue } = backlog(1_000);
    const plex = heldTarget('plex', 2);
    const checked: string[] = [];
    const processor = processorFor(queue, clock, [plex.target], checked);
    await processor.tick();
    await processor.tick();
    expect(checked).toHaveLength(8);
    expect(counts(queue)).toEqual({ dispatching: 8, waiting: 992 });
    expect(plex.release).toHaveLength(2);
    // Two scans end: two more start, and the checks top the lookahead up again by two.
    plex.release.splice(0).forEach((r) => r({ status: 'scanned' }));
    await settle();
    await processor.tick();
    expect(checked).toHaveLength(10);
    expect(counts(queue)).toEqual({ dispatching: 8, waiting: 990 });
    expect(plex.release).toHaveLength(2);
  });

  it('the fastest reachable target sets the pace; a target that is down does not hold the checks back', async () => {
    const { clock, queue } = backlog(1_000);
    const fast = heldTarget('plex', 8);
    const down = heldTarget('jellyfin', 1, false);
    const checked: string[] = [];
    const processor = processorFor(queue, clock, [fast.target, down.target], checked);
    await processor.tick();
    await settle();
    await processor.tick();
    expect(checked).toHaveLength(32);
    expect(counts(queue).dispatching).toBe(32);
  });

  it('with every target down, the checks go on as before (a missing file still runs out of checks meanwhile)', async () => {
    const { clock, queue } = backlog(300);
    const down = heldTarget('plex', 8, false);
    const checked: string[] = [];
    const processor = processorFor(queue, clock, [down.target], checked);
    await processor.tick();
    await settle();
    expect(processor.health()[0].up).toBe(false);
    // 256 a pass, as without a lookahead.
    await processor.tick();
    expect(checked).toHaveLength(32 + 256);
    await processor.tick();
    expect(checked).toHaveLength(300);
  });
});

/**
 * A server that tells what it holds (`outstanding`: set by the test, and one more per scan with `countsScans`) and
 * follows its scans, judging none within a test: each folder it took stays held. `freed()` is what its follower
 * tells when it sees a scan end.
 */
function followedServer(slots: { concurrency?: number; maxOutstanding?: number }, countsScans = false) {
  const clock = new ManualClock();
  const queue = new Queue(join(mkdtempSync(join(tmpdir(), 'scanrelay-ahead-')), 'queue.db'), clock, { delayMs: 0 });
  queues.push(queue);
  const s = { clock, queue, outstanding: 0, followed: [] as FollowItem[], sent: [] as string[], freed: undefined as (() => void) | undefined };
  const target: Target = {
    name: 'plex',
    kind: 'plex',
    pauseMs: 0,
    ...slots,
    outstanding: () => s.outstanding,
    follower: {
      start: (_done, freed) => void (s.freed = freed),
      follow: (item) => void s.followed.push(item),
      heldFolders: () => s.followed.map((i) => i.ref.folderId),
      size: 0,
      stop: async () => {},
    },
    scan: async (folder) => (s.sent.push(folder), (s.outstanding += countsScans ? 1 : 0), { status: 'scanned', follow: {} }),
    available: async () => ({ ok: true }),
  };
  const request = (folder: string) => ({ folder, priority: 0, source: 'sonarr', event: 'Download', fileHint: `${folder}/e.mkv`, deleted: false });
  return { s, target, ask: (folders: string[]) => queue.enqueueMany(folders.map(request)), processor: processorFor(queue, clock, [target], []) };
}

describe('folders held behind their previous scan', () => {
  it('do not fill the lookahead: the folders behind them are checked and sent while those scans are still followed', async () => {
    // Their ends seen (nothing outstanding), their follow-ups still open: each folder stays held.
    const { s, ask, processor } = followedServer({ concurrency: 2 });
    const pass = async () => {
      await processor.tick();
      await processor.idle();
    };
    const first = Array.from({ length: 8 }, (_, i) => `/tv/Held ${i}/Season 01`);
    ask(first);
    for (let i = 0; i < 6; i++) await pass();
    expect(s.followed).toHaveLength(8);
    // Each is asked again while its scan is followed: 8 due deliveries held, as many as the lookahead (4 × 2 slots).
    s.clock.advance(1);
    ask(first);
    await pass();
    s.clock.advance(1);
    const behind = ['/tv/Behind 1/Season 01', '/tv/Behind 2/Season 01'];
    ask(behind);
    s.sent.length = 0;
    for (let i = 0; i < 4; i++) await pass();
    expect(s.sent.sort()).toEqual(behind);
  });
});

describe('a place at the server given back', () => {
  it("at the scan's end, before its file is judged: the next folder goes at once, not at the loop's next pass", async () => {
    const { s, ask, processor } = followedServer({ maxOutstanding: 1 }, true);
    ask(['/tv/A/Season 01', '/tv/B/Season 01']);
    processor.start();
    await until(() => s.sent.length === 1);
    // The loop sleeps a second at most while its server is full; the end seen must not wait for that.
    await settle();
    s.outstanding = 0;
    s.freed?.();
    await until(() => s.sent.length === 2, { ms: 400, what: 'the second folder sent when the first scan ended' });
  });
});
