// The processor's loop is woken by news, not by every request: a burst of webhooks under SERVER_SCAN_DELAY
// costs no passes, while a request due now (delay 0) and a finished scan start the next pass at once.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { Intake } from '../../src/intake/intake.js';
import { silentLogger } from '../../src/log/logger.js';
import { Processor } from '../../src/processor/processor.js';
import { Queue } from '../../src/queue/store.js';
import type { Target } from '../../src/scan.js';
import type { ScanRequest } from '../../src/request.js';
import { until } from '../support/until.js';

const stops: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const stop of stops.splice(0)) await stop();
});

const turns = (n: number) => new Promise<void>((r) => (function next(i: number) { i ? setImmediate(() => next(i - 1)) : r(); })(n));
const soon = { ms: 2_000, every: 1 };

function setup(delayMs: number) {
  const clock = new ManualClock();
  const queue = new Queue(join(mkdtempSync(join(tmpdir(), 'scanrelay-w-')), 'queue.db'), clock, { delayMs });
  let passes = 0;
  const dueWaiting = queue.dueWaiting.bind(queue);
  queue.dueWaiting = (limit) => {
    passes++;
    return dueWaiting(limit);
  };
  const scanned: string[] = [];
  const target: Target = { name: 'plex', kind: 'plex', pauseMs: 0, scan: async (folder) => (scanned.push(folder), { status: 'scanned' }), available: async () => ({ ok: true }) };
  const processor = new Processor({
    queue,
    targets: [target],
    clock,
    logger: silentLogger,
    settings: { fileExistMappings: {}, maxFileChecks: 0, fileCheckDelayMs: 0, folderOnExhaustion: false, anchors: [], retryMaxDelayMs: 60_000 },
  });
  const intake = new Intake({
    queue,
    logger: silentLogger,
    pathState: async () => 'missing',
    onQueued: (dueAt) => processor.wake(dueAt),
    settings: { pathMappings: {}, fileExistMappings: {}, ignoreList: [], priorities: {} },
  });
  processor.start();
  stops.push(async () => {
    await processor.stop();
    queue.close();
  });
  return { intake, scanned, passes: () => passes };
}

const request = (i: number): ScanRequest => ({ path: `/tv/Show ${i}/Season 01/e01.mkv`, source: 'sonarr', event: 'Download', kind: 'file' });

describe('processor wake-ups', () => {
  it('200 webhooks due in two minutes cause no extra pass of the processor', async () => {
    const { intake, passes } = setup(120_000);
    await until(() => passes() >= 1, soon);
    await turns(5);
    const before = passes();
    for (let i = 0; i < 200; i++) await intake.submit([request(i)], 'c');
    await turns(5);
    expect(passes() - before).toBe(0);
  });

  it('a webhook due now (SERVER_SCAN_DELAY 0) is scanned without waiting for the next timed pass', async () => {
    const { intake, scanned, passes } = setup(0);
    await until(() => passes() >= 1, soon);
    // The loop now sleeps up to a second; the request must not wait for that.
    const started = Date.now();
    await intake.submit([request(1)], 'c');
    await until(() => scanned.length === 1, { ...soon, ms: 500 });
    expect(scanned).toEqual(['/tv/Show 1/Season 01']);
    expect(Date.now() - started).toBeLessThan(500);
  });

  it('a burst due now shares passes: 100 requests in one turn take far fewer than 100 passes', async () => {
    const { intake, scanned, passes } = setup(0);
    await until(() => passes() >= 1, soon);
    const before = passes();
    await Promise.all(Array.from({ length: 100 }, (_, i) => intake.submit([request(i)], 'c')));
    await until(() => scanned.length === 100, soon);
    expect(passes() - before).toBeLessThan(40);
  });
});
