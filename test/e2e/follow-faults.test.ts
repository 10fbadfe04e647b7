// The Plex follow-up under the faults that stalled it or fooled it, through the real service and the fake Plex on
// 127.0.0.1, on a stepped clock (test/support/burst.ts). A socket that goes silent 1.5 s into a burst of 60 season
// folders, scans of 100 ms: found dead by its unanswered ping, polled meanwhile, so every folder reaches Plex once
// and every line is final, none not-found. A cut socket, the same.
import { describe, expect, it } from 'vitest';
import type { Service } from '../../src/service.js';
import { runBurst } from '../support/burst.js';

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
