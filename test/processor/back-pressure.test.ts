// Back-pressure from the server: the apps ask three times faster than Plex scans (30 webhooks/s, 10 scans/s, one
// at a time), against the real service and the fake Plex on 127.0.0.1, on one stepped clock. With the default
// cap Plex's backlog stays under it, no folder is sent while its previous scan waits there, every folder is
// scanned after its last request, and every follow-up ends by what Plex did, not by its timeout.
import { describe, expect, it } from 'vitest';
import type { Config } from '../../src/config/schema.js';
import { DEFAULT_MAX_OUTSTANDING } from '../../src/processor/server-backlog.js';
import { FakePlex } from '../fakes/plex.js';
import { runPressure } from '../support/pressure.js';
import { SECRET, testService } from '../support/service.js';
import { until } from '../support/until.js';

const LOAD = { webhooksPerSecond: 30, scansPerSecond: 10, loadSeconds: 20, delaySeconds: 1 };
/**
 * The default cap, 120 folders asked in turn, the socket open: one run on the stepped clock, which two cases read
 * (its backlog and outcomes; Plex never idling while folders are due). Run by the first case that asks.
 */
let withSocket: ReturnType<typeof runPressure> | undefined;
const defaultCapWithSocket = () => (withSocket ??= runPressure({ ...LOAD, maxOutstanding: DEFAULT_MAX_OUTSTANDING, folders: 120, confirmTimeoutSeconds: 30 }));

// Each case steps some 20 s of model time through the whole service: CPU only, so a busy machine takes longer, not
// the model; the time limit is for that, not for the behaviour.
describe('back-pressure from Plex', { timeout: 60_000 }, () => {
  it('apps three times faster than Plex: its backlog stays under the cap, every folder is scanned after its last request, outcomes are confirmed', async () => {
    const r = await defaultCapWithSocket();
    expect(r.webhooks).toBe(600);
    expect(r.peakBacklog).toBeLessThanOrEqual(DEFAULT_MAX_OUTSTANDING);
    expect(r.maxOutstandingSeen).toBeLessThanOrEqual(DEFAULT_MAX_OUTSTANDING);
    expect(r.duplicates).toBe(0);
    expect(r.lost).toBe(0);
    expect(r.notScannedAfterLast).toBe(0);
    // Requests merged in our queue while Plex was busy: fewer refreshes than webhooks.
    expect(r.refreshes).toBeLessThan(r.webhooks);
    // Real outcomes, none run down by a timeout: confirmed, or scanned where nothing could tell more (no
    // database; the socket names no item of a file an earlier scan of its folder already added).
    expect(Object.keys(r.outcomes).filter((o) => o !== 'confirmed' && o !== 'scanned')).toEqual([]);
    expect(r.outcomes.confirmed).toBeGreaterThan(0);
    // The wait moved into our queue, where it shows.
    expect(r.maxDueWaitSeconds).toBeGreaterThan(1);
  });

  it('with the cap set very high (the old behaviour) the same load piles up in Plex and follow-ups run out of time', async () => {
    // Every webhook a new folder, as in the report (899 webhooks, 899 refreshes): nothing can merge.
    // Polling only: with the socket every scan's end is heard and none runs out of time, however long the line.
    const r = await runPressure({ ...LOAD, maxOutstanding: 100_000, folders: 100_000, confirmTimeoutSeconds: 10, notifications: false });
    expect(r.refreshes).toBe(r.webhooks);
    expect(r.peakBacklog).toBeGreaterThan(100);
    expect(r.outcomes.unconfirmed).toBeGreaterThan(0);
  });

  it('the same cap, every webhook a new folder: Plex still holds at most the cap and every scan is confirmed', async () => {
    const r = await runPressure({ ...LOAD, maxOutstanding: DEFAULT_MAX_OUTSTANDING, folders: 100_000, confirmTimeoutSeconds: 10 });
    expect(r.refreshes).toBe(r.webhooks);
    expect(r.peakBacklog).toBeLessThanOrEqual(DEFAULT_MAX_OUTSTANDING);
    expect(r.outcomes).toEqual({ confirmed: r.webhooks });
    expect(r.lost).toBe(0);
  });

  it("with the socket, Plex never idles while folders are due: a scan that changed nothing of its file still ends its follow-up", async () => {
    // 120 folders asked in turn: a folder's next scan often finds its file already added by the one before, so
    // the scan's end names no item of it. Its place in the section's line tells that its scan ended, and the
    // items of the scan ends heard lately show the earlier scan that added it: confirmed, never asked twice.
    const r = await defaultCapWithSocket();
    expect(r.peakBacklog).toBeLessThanOrEqual(DEFAULT_MAX_OUTSTANDING);
    expect(r.outcomes).toEqual({ confirmed: expect.any(Number) });
    // Only the first second idles (SERVER_SCAN_DELAY 1: nothing is due yet): 10 of Plex's scans.
    expect(r.idleWhileQueued).toBeLessThanOrEqual(12);
    expect(r.scansRun).toBeGreaterThanOrEqual(r.scanSlots - 12);
    expect(Object.keys(r.outcomes).filter((o) => o !== 'confirmed' && o !== 'scanned')).toEqual([]);
    expect(r.notScannedAfterLast).toBe(0);
    expect(r.duplicates).toBe(0);
    expect(r.lost).toBe(0);
  });

  it('polling only: a follow-up whose section a poll finds idle frees its slot at that poll, not after the grace', async () => {
    // 120 folders in turn, the socket refused: many scans name nothing new of their file, so their follow-ups wait
    // out the grace (5 s) before their outcome. Their slots are free from the idle poll on (24.1 s to drain when
    // they were held through the grace, 19.1 s now, on this stepped clock).
    const r = await runPressure({ ...LOAD, maxOutstanding: DEFAULT_MAX_OUTSTANDING, folders: 120, confirmTimeoutSeconds: 30, notifications: false });
    expect(r.peakBacklog).toBeLessThanOrEqual(DEFAULT_MAX_OUTSTANDING);
    expect(r.drainSeconds).toBeLessThan(22);
    expect(r.lost).toBe(0);
    expect(r.duplicates).toBe(0);
    expect(r.notScannedAfterLast).toBe(0);
  });

  it('a folder due again while Plex still holds its scan is not sent again until that scan ended', async () => {
    // One folder asked every 2 s; each of Plex's scans takes 5 s; the cap alone would allow 8.
    const r = await runPressure({ webhooksPerSecond: 0.5, scansPerSecond: 0.2, loadSeconds: 20, delaySeconds: 1, maxOutstanding: 8, folders: 1 });
    expect(r.webhooks).toBe(10);
    expect(r.peakBacklog).toBe(1);
    expect(r.duplicates).toBe(0);
    expect(r.refreshes).toBeLessThan(r.webhooks);
    expect(r.notScannedAfterLast).toBe(0);
    expect(r.lost).toBe(0);
  });
});

describe('the cap in config, /metrics and the dashboard', () => {
  it('TARGETS[].MAX_OUTSTANDING caps an entry and PLEX_MAX_OUTSTANDING the first Plex; both show with the due wait on /metrics and the dashboard', async () => {
    const other = await new FakePlex().start();
    const t = await testService({
      config: {
        SERVER_SCAN_DELAY: 0,
        PLEX_MAX_OUTSTANDING: 2,
        // The follower's polls move this clock on: a long timeout keeps the scans outstanding for the whole test.
        PLEX_CONFIRM_TIMEOUT: 3600,
        TARGETS: [{ NAME: 'plex2', TYPE: 'plex', URL: other.url, TOKEN: other.token, MAX_OUTSTANDING: 3 } as Config['TARGETS'][number]],
      },
      pathState: async () => 'file',
    });
    try {
      // Scans Plex never ends: what is outstanding stays so.
      t.plex.scanPolls = Infinity;
      other.scanPolls = Infinity;
      for (let i = 0; i < 6; i++) await t.service.intake.submit([{ path: `/data/media/tv/Show ${i}/Season 01/E01.mkv`, source: 'sonarr', event: 'Download', kind: 'file' }], '127.0.0.1');
      t.service.processor.start();
      await until(() => t.plex.refreshes.length === 2 && other.refreshes.length === 3);
      await until(() => t.service.processor.health().every((h) => h.outstanding === h.maxOutstanding));
      t.clock.advance(30_000);
      t.service.processor.wake();
      await t.service.processor.idle();
      expect([t.plex.refreshes.length, other.refreshes.length]).toEqual([2, 3]);
      const metrics = (await t.service.app.inject({ url: '/metrics' })).body;
      expect(metrics).toContain('scanrelay_target_outstanding{target="plex"} 2');
      expect(metrics).toContain('scanrelay_target_outstanding{target="plex2"} 3');
      const wait = Number(/scanrelay_target_due_wait_seconds\{target="plex"\} (\S+)/.exec(metrics)?.[1]);
      expect(wait).toBeGreaterThanOrEqual(30);
      const page = (await t.service.app.inject({ url: `/${SECRET}/dashboard` })).body;
      expect(page).toContain('Outstanding');
      expect(page).toContain('2 of 2');
      expect(page).toContain('3 of 3');
      expect(page).toContain('Next due waited');
    } finally {
      await t.close();
      await other.stop();
    }
  });
});
