import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { silentLogger } from '../../src/log/logger.js';
import type { PathState } from '../../src/paths/disk.js';
import { Processor, type ProcessorSettings } from '../../src/processor/processor.js';
import { Queue } from '../../src/queue/store.js';
import { PlexTarget } from '../../src/targets/plex/target.js';
import { named } from '../support/target.js';
import type { Target } from '../../src/scan.js';
import { FakePlex } from '../fakes/plex.js';

let plex: FakePlex;
let queue: Queue;
let clock: ManualClock;
const existing = new Set<string>();
const pathState = async (p: string): Promise<PathState> => (existing.has(p) ? 'file' : 'missing');

const settings: ProcessorSettings = {
  fileExistMappings: {},
  maxFileChecks: 3,
  fileCheckDelayMs: 60_000,
  folderOnExhaustion: false,
  anchors: [],
  retryMaxDelayMs: 300_000,
};

function processor(targets: Target[], extra: Partial<ProcessorSettings> = {}, ps = pathState) {
  return new Processor({ queue, targets, clock, logger: silentLogger, settings: { ...settings, ...extra }, pathState: ps, random: () => 1 });
}
const plexTarget = (name = 'plex', pauseMs = 0) =>
  named(new PlexTarget({ url: plex.url, token: plex.token, clock, timeoutMs: 2000 }), { name, pauseMs });

beforeEach(async () => {
  plex = await new FakePlex().start();
  clock = new ManualClock();
  queue = new Queue(join(mkdtempSync(join(tmpdir(), 'scanrelay-p-')), 'queue.db'), clock, { delayMs: 180_000 });
  existing.clear();
});
afterEach(async () => {
  queue.close();
  await plex.stop();
});

const download = (file: string) => ({
  folder: file.slice(0, file.lastIndexOf('/')),
  priority: 0,
  source: 'sonarr',
  event: 'Download',
  fileHint: file,
  deleted: false,
});

describe('processor with the Plex API target', () => {
  it('24 Download webhooks for one season within the delay make exactly one Plex refresh', async () => {
    const p = processor([plexTarget()]);
    for (let e = 1; e <= 24; e++) {
      const file = `/data/media/tv/Show/Season 01/Show - S01E${String(e).padStart(2, '0')}.mkv`;
      existing.add(file);
      queue.enqueue(download(file));
      clock.advance(5_000);
      await p.drain();
    }
    expect(plex.refreshes).toHaveLength(0); // still inside the delay
    clock.advance(180_000);
    await p.drain();
    expect(plex.refreshes).toEqual([{ section: '2', path: '/data/media/tv/Show/Season 01' }]);
    expect(queue.count()).toBe(0);
    expect(queue.history(1)[0]).toMatchObject({ requests: 24, outcome: 'scanned', target: 'plex' });
  });

  it('waits for the file to exist, up to SERVER_MAX_FILE_CHECKS, then gives up with a history line', async () => {
    const p = processor([plexTarget()]);
    queue.enqueue(download('/data/media/movies/Heat (1995)/Heat.mkv'));
    clock.advance(180_000);
    await p.drain();
    expect(queue.get('/data/media/movies/Heat (1995)')!.checks).toBe(1);
    clock.advance(60_000);
    await p.drain();
    existing.add('/data/media/movies/Heat (1995)/Heat.mkv');
    clock.advance(60_000);
    await p.drain();
    expect(plex.refreshes).toEqual([{ section: '1', path: '/data/media/movies/Heat (1995)' }]);

    queue.enqueue(download('/data/media/movies/Never/never.mkv'));
    for (let i = 0; i < 4; i++) {
      clock.advance(180_000);
      await p.drain();
    }
    expect(queue.count()).toBe(0);
    expect(queue.history(1)[0]).toMatchObject({ folder: '/data/media/movies/Never', outcome: 'exhausted' });
    expect(queue.history(1)[0].detail).toContain('exhausted all available checks');
  });

  it('deleted paths skip the existence check', async () => {
    const p = processor([plexTarget()]);
    queue.enqueue({ ...download('/data/media/tv/Gone/S01/e.mkv'), deleted: true });
    clock.advance(180_000);
    await p.drain();
    expect(plex.refreshes).toEqual([{ section: '2', path: '/data/media/tv/Gone/S01' }]);
  });

  it('a folder in no section is recorded as unmatched, not retried', async () => {
    const p = processor([plexTarget()]);
    queue.enqueue({ ...download('/elsewhere/x/e.mkv'), deleted: true });
    clock.advance(180_000);
    await p.drain();
    expect(plex.refreshes).toHaveLength(0);
    expect(queue.count()).toBe(0);
    const h = queue.history(1)[0];
    expect(h.outcome).toBe('unmatched');
    expect(h.detail).toContain('/data/media/tv');
  });

  it('scans every section whose location holds the folder', async () => {
    plex.sections.push({ key: '9', title: 'TV 4K', locations: ['/data/media/tv'] });
    const p = processor([plexTarget()]);
    queue.enqueue({ ...download('/data/media/tv/Show/S01/e.mkv'), deleted: true });
    clock.advance(180_000);
    await p.drain();
    expect(plex.refreshes.map((r) => r.section).sort()).toEqual(['2', '9']);
  });

  it('a 401 keeps the folder, marks Plex down, and resumes within 30 s of Plex coming back', async () => {
    const p = processor([plexTarget()]);
    plex.failure = { status: 401 };
    queue.enqueue({ ...download('/data/media/tv/Show/S01/e.mkv'), deleted: true });
    clock.advance(180_000);
    await p.drain();
    expect(p.health()[0]).toMatchObject({ up: false });
    expect(p.health()[0].lastError).toContain('PLEX_TOKEN');
    // Down for a simulated hour: probes are at most 30 s apart, nothing is lost.
    for (let t = 0; t < 3600; t += 10) {
      clock.advance(10_000);
      await p.drain();
    }
    expect(queue.count()).toBe(1);
    plex.failure = undefined;
    const back = clock.now();
    let scannedAt = 0;
    for (let t = 0; t < 60 && !scannedAt; t++) {
      clock.advance(1_000);
      await p.drain();
      if (plex.refreshes.length) scannedAt = clock.now();
    }
    expect(scannedAt - back).toBeLessThanOrEqual(30_000);
    expect(queue.count()).toBe(0);
  });

  it('a failing folder never blocks the others; retries back off and stay visible', async () => {
    const flaky: Target = {
      name: 'plex',
      kind: 'fake',
      pauseMs: 0,
      async scan(folder) {
        return folder === '/bad' ? { status: 'retry', error: 'HTTP 404', targetDown: false } : { status: 'scanned' };
      },
      async available() {
        return { ok: true };
      },
    };
    const p = processor([flaky], { maxFileChecks: 0 });
    queue.enqueue({ ...download('/bad/x'), folder: '/bad', priority: 0 });
    queue.enqueue({ ...download('/good/x'), folder: '/good', priority: 5 });
    clock.advance(180_000);
    await p.drain();
    expect(queue.get('/good')).toBeUndefined();
    const bad = queue.get('/bad')!;
    expect(queue.deliveries(bad.id)[0]).toMatchObject({ state: 'pending', attempts: 1, lastError: 'HTTP 404' });
    // Backoff grows and is capped.
    let last = 0;
    for (let i = 0; i < 12; i++) {
      const d = queue.deliveries(bad.id)[0];
      clock.set(d.nextAt);
      await p.drain();
      const next = queue.deliveries(bad.id)[0];
      expect(next.nextAt - clock.now()).toBeLessThanOrEqual(300_000);
      last = next.nextAt - clock.now();
    }
    expect(last).toBe(300_000);
  });

  it('keeps the configured pause between scans to one target', async () => {
    const p = processor([plexTarget('plex', 2_000)], { maxFileChecks: 0 });
    for (let i = 0; i < 3; i++) queue.enqueue({ ...download(`/data/media/tv/S${i}/e.mkv`), deleted: true });
    clock.advance(180_000);
    await p.drain();
    expect(plex.refreshes).toHaveLength(1);
    clock.advance(1_999);
    await p.drain();
    expect(plex.refreshes).toHaveLength(1);
    clock.advance(1);
    await p.drain();
    expect(plex.refreshes).toHaveLength(2);
  });

  it('holds every scan while an anchor file is missing', async () => {
    const p = processor([plexTarget()], { anchors: ['/mnt/unionfs/mounted.bin'], maxFileChecks: 0 });
    queue.enqueue({ ...download('/data/media/tv/S/e.mkv'), deleted: true });
    clock.advance(180_000);
    await p.drain();
    expect(plex.refreshes).toHaveLength(0);
    expect(p.held).toContain('mounted.bin');
    existing.add('/mnt/unionfs/mounted.bin');
    await p.drain();
    expect(plex.refreshes).toHaveLength(1);
    expect(p.held).toBeUndefined();
  });
});
