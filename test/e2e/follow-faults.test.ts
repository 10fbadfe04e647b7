// The Plex follow-up under the faults that stalled it or fooled it, through the real service and the fake Plex on
// 127.0.0.1, on a stepped clock (test/support/burst.ts). A socket that goes silent 1.5 s into a burst of 60 season
// folders, scans of 100 ms: found dead by its unanswered ping, polled meanwhile, so every folder reaches Plex once
// and every line is final, none not-found. A cut socket, the same.
import { describe, expect, it } from 'vitest';
import type { Service } from '../../src/service.js';
import { folderOf, runBurst } from '../support/burst.js';

const BURST = { folders: 60, scanMs: 100, limitMs: 60_000 };

describe('a burst of 60 folders when the Plex socket fails 1.5 s in', () => {
  it.each([
    { fault: 'goes silent, and so does every socket opened after', strike: 'silent' as const },
    { fault: 'goes silent; a socket opened after is live', strike: 'live' as const },
  ])('$fault: all 60 reach Plex within 45 s, none twice; every line final within 60 s, none not-found', async ({ strike }) => {
    const shown: Record<string, unknown>[] = [];
    const onStep = async (service: Service, atMs: number) => {
      if (atMs % 1_000 !== 0) return;
      const health = (await service.app.inject({ url: '/health' })).json() as { targets: { socket?: Record<string, unknown> }[] };
      shown.push({ atMs, ...health.targets[0].socket });
    };
    const r = await runBurst({ ...BURST, onStep, fault: { atMs: 1_500, strike: (_plex, socket) => socket.silence(strike) } });
    expect(r.allReachedMs).toBeLessThanOrEqual(45_000);
    expect(r.sentTwice).toEqual([]);
    expect(r.allFinalMs).toBeLessThanOrEqual(60_000);
    expect(r.outcomes['not-found']).toBeUndefined();
    expect(r.notInLibrary).toBe(0);
    // /health shows the socket open with a fresh frame, then its last frame ageing, then reconnecting with why.
    expect(shown[0]).toMatchObject({ state: 'open', lastFrameAgeMs: expect.any(Number) });
    expect(shown.find((s) => s.state === 'open' && (s.lastFrameAgeMs as number) >= 3_000)).toBeDefined();
    expect(shown.find((s) => s.state === 'reconnecting')).toMatchObject({ why: expect.stringMatching(/it went silent: no frame and no pong within 5 s of a ping|answered no ping/) });
    console.log(`silent (${strike}): all reached in ${r.allReachedMs} ms, all final in ${r.allFinalMs} ms, outcomes ${JSON.stringify(r.outcomes)}, refreshes ${r.refreshes}`);
  });

  it('is cut (closed): all 60 reach Plex within 20 s, none twice, every line final', async () => {
    const r = await runBurst({ ...BURST, fault: { atMs: 1_500, strike: (_plex, socket) => socket.dropAll() } });
    expect(r.allReachedMs).toBeLessThanOrEqual(20_000);
    expect(r.sentTwice).toEqual([]);
    expect(r.allFinalMs).toBeLessThanOrEqual(60_000);
    expect(r.outcomes['not-found']).toBeUndefined();
    console.log(`cut: all reached in ${r.allReachedMs} ms, all final in ${r.allFinalMs} ms, outcomes ${JSON.stringify(r.outcomes)}, refreshes ${r.refreshes}`);
  });
});

describe('a socket cut mid-scan and reopened before the scan ends', () => {
  it("6 folders, scans of 3 s, the socket cut at 1 s: each follow-up ends once its own scan ended, none asked twice, all confirmed", async () => {
    const r = await runBurst({ folders: 6, scanMs: 3_000, limitMs: 60_000, fault: { atMs: 1_000, strike: (_plex, socket) => socket.dropAll() } });
    expect(r.outcomes).toEqual({ confirmed: 6 });
    expect(r.refreshes).toBe(6);
    for (const line of r.lines) expect(line.atMs).toBeGreaterThanOrEqual(r.ended.find((e) => e.path === line.folder)!.atMs);
    expect(r.allFinalMs).toBeLessThanOrEqual(6 * 3_000 + 2_000);
  });
});

describe('the cross-check that cannot stall', () => {
  it("a socket whose pings are still answered but which tells nothing (Plex's notifier hung): scans outstanding past the limit with their section idle in /activities are released; all 60 reach Plex, none twice, every line confirmed", async () => {
    const r = await runBurst({ ...BURST, limitMs: 120_000, fault: { atMs: 1_500, strike: (_plex, socket) => socket.silence('silent', 'answered') } });
    // 8 at a time, each released once it is outstanding for over RELEASE_AFTER_MS (10 s) at a poll.
    expect(r.allReachedMs).toBeLessThanOrEqual(90_000);
    expect(r.sentTwice).toEqual([]);
    expect(r.outcomes).toEqual({ confirmed: 60 });
    console.log(`hung notifier: all reached in ${r.allReachedMs} ms, all final in ${r.allFinalMs} ms, outcomes ${JSON.stringify(r.outcomes)}, refreshes ${r.refreshes}`);
  });
});

describe("Plex's scan order contradicted: 6 imports 150 ms apart in one section, no database", () => {
  const SIX = { folders: 6, spacingMs: 150, limitMs: 60_000 };

  it('one partial scan taken and never run: the line is uncertain, the dropped folder is asked once more, all 6 are items and confirmed within 40 s, 7 refreshes', async () => {
    let dropped = 0;
    const r = await runBurst({ ...SIX, scanMs: 100, plex: (plex) => (plex.faults.drop = (_section, path) => path === folderOf(2) && dropped++ === 0) });
    expect(r.plex.swallowed).toEqual([{ section: '2', path: folderOf(2), how: 'dropped' }]);
    expect(r.notInLibrary).toBe(0);
    expect(r.allFinalMs).toBeLessThanOrEqual(40_000);
    expect(r.outcomes).toEqual({ confirmed: 6 });
    expect(r.refreshes).toBeLessThanOrEqual(7);
    expect(r.sentTwice).toEqual([folderOf(2)]);
    // Not judged one scan early: the dropped folder is asked again only once every other scan of its section ran,
    // not when the next scan's end passed its place.
    const again = r.sent.filter((s) => s.path === folderOf(2))[1];
    expect(again.atMs).toBeGreaterThan(Math.max(...r.ended.filter((e) => e.path !== folderOf(2)).map((e) => e.atMs)));
    // No follow-up judged before its own scan ended, none left waiting.
    for (const line of r.lines) expect(line.atMs).toBeGreaterThanOrEqual(Math.max(...r.ended.filter((e) => e.path === line.folder).map((e) => e.atMs)));
    console.log(`dropped: all final in ${r.allFinalMs} ms, refreshes ${r.refreshes}, outcomes ${JSON.stringify(r.outcomes)}`);
  });

  it('partial scans merged while they wait (one end for several folders): each follow-up is judged by its file, all 6 confirmed, none asked twice', async () => {
    const r = await runBurst({ ...SIX, scanMs: 500, plex: (plex) => (plex.faults.merge = true) });
    expect(r.plex.swallowed.filter((s) => s.how === 'merged').length).toBeGreaterThan(0);
    expect(r.notInLibrary).toBe(0);
    expect(r.outcomes).toEqual({ confirmed: 6 });
    expect(r.refreshes).toBe(6);
    expect(r.allFinalMs).toBeLessThanOrEqual(40_000);
    // None judged before the scan that carried its folder ended, none left waiting after it (by position, a merged
    // folder's place is passed one end late, and the last waited for the section to go idle).
    for (const line of r.lines) {
      const carrier = r.plex.swallowed.find((s) => s.path === line.folder)?.into ?? line.folder;
      const end = r.ended.find((e) => e.path === carrier)!.atMs;
      expect(line.atMs - end, line.folder).toBeGreaterThanOrEqual(0);
      expect(line.atMs - end, line.folder).toBeLessThanOrEqual(200);
    }
    console.log(`merged (${r.plex.swallowed.length}): all final in ${r.allFinalMs} ms, refreshes ${r.refreshes}, outcomes ${JSON.stringify(r.outcomes)}`);
  });
});
