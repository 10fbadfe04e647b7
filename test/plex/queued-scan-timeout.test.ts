// PLEX_CONFIRM_TIMEOUT counts from when a scan started, not from when Plex accepted it: Plex runs a section's
// scans in the order it took them, so a refresh queued behind another of its section has not started and its
// follow-up does not run down its time.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import type { FollowResult } from '../../src/scan.js';
import { PlexTarget } from '../../src/targets/plex/target.js';
import { FakePlex } from '../fakes/plex.js';
import { until } from '../support/until.js';

const episode = (n: number) => ({ folder: `/data/media/tv/Show ${n}/Season 01`, file: `/data/media/tv/Show ${n}/Season 01/E01.mkv` });
let plex: FakePlex;

beforeEach(async () => {
  plex = await new FakePlex().start();
  plex.fifoMs = 0;
  plex.fifoStepped = true;
});
afterEach(() => plex.stop());

describe('a scan waiting in Plex', () => {
  it('a refresh queued behind a stuck one of its section is confirmed once Plex ran it, past PLEX_CONFIRM_TIMEOUT from its acceptance', async () => {
    const clock = new ManualClock();
    const target = new PlexTarget({ url: plex.url, token: plex.token, clock, confirmTimeoutMs: 60_000, followIntervalMs: 1_000, after: { analyze: 'off' } });
    const results = new Map<string, FollowResult & { at: number }>();
    target.follower.start(async (item, result) => void results.set(item.folder, { ...result, at: clock.now() }));
    const acceptedAt = clock.now();
    for (const n of [1, 2]) {
      const { folder, file } = episode(n);
      plex.onDisk.add(file);
      const outcome = await target.scan(folder, { event: 'Download', source: 'sonarr', file, deleted: false });
      if (outcome.status !== 'scanned') throw new Error(outcome.status);
      target.follower.follow({ ref: { folderId: n, generation: 1 }, folder, event: 'Download', deliveredAt: acceptedAt, ticket: outcome.follow });
    }
    expect(target.outstanding()).toBe(2);
    // Each poll moves the follower's clock on (every BLIND_POLL_MS while the scans are young, then one interval):
    // 90 s with the first scan stuck running.
    await until(() => clock.now() - acceptedAt >= 90_000);
    expect(results.get(episode(1).folder)).toMatchObject({ state: 'unconfirmed', detail: expect.stringContaining('PLEX_CONFIRM_TIMEOUT') });
    expect(results.has(episode(2).folder)).toBe(false);
    expect(target.outstanding()).toBe(1);
    plex.stepFifo(2); // the stuck scan ends, then the queued one runs and ends
    await until(() => results.has(episode(2).folder));
    const second = results.get(episode(2).folder)!;
    expect(second.state).toBe('confirmed');
    expect(second.at - acceptedAt).toBeGreaterThan(60_000);
    expect(target.outstanding()).toBe(0);
    await target.follower.stop();
  });
});
