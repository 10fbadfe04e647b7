// Without a notification socket that answers, only a poll of /activities sees a scan end, and the slots under
// PLEX_MAX_OUTSTANDING stay taken until one does: at one poll per PLEX_FOLLOW_INTERVAL, a Plex whose partial scans
// take tens of ms sat idle most of each second (benchmark 19, socket silent).
// While a scan sent lately is outstanding and no socket vouches for it, the follower asks every BLIND_POLL_MS instead. On the
// fake Plex over 127.0.0.1, on a clock the test moves (its sleeps move it), so the interval is model time.
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { silentLogger } from '../../src/log/logger.js';
import type { FollowResult } from '../../src/scan.js';
import { NO_AFTER_SCAN } from '../../src/targets/plex/after-scan.js';
import { PlexApi } from '../../src/targets/plex/api.js';
import { BLIND_FAST_MS, BLIND_POLL_MS, PlexFollower } from '../../src/targets/plex/follow/follower.js';
import { FakePlex } from '../fakes/plex.js';

import { until } from '../support/until.js';

let plex: FakePlex;
let follower: PlexFollower | undefined;

afterEach(async () => {
  await follower?.stop();
  follower = undefined;
  await plex?.stop();
});

describe('the Plex follower without a socket that answers', () => {
  it(`asks /activities every ${BLIND_POLL_MS} ms while a scan sent lately is outstanding, not once a PLEX_FOLLOW_INTERVAL; a long one at the interval`, async () => {
    plex = await new FakePlex().start();
    // Plex's scan runs until the test ends it: its section stays busy in /activities meanwhile.
    plex.fifoMs = 1;
    plex.fifoStepped = true;
    const clock = new ManualClock();
    const api = new PlexApi({ url: plex.url, token: plex.token, timeoutMs: 2_000, clock });
    follower = new PlexFollower({ api, clock, logger: silentLogger, pollMs: 1_000, graceMs: 5_000, timeoutMs: 300_000, after: NO_AFTER_SCAN, analyze: false });
    const results = new Map<string, FollowResult>();
    follower.start(async (item, result) => void results.set(item.folder, result));
    const folder = '/data/media/tv/Show 1/Season 01';
    plex.onDisk.add(`${folder}/Show 1 S01E01.mkv`);
    await api.refresh('2', folder);
    const accepted = follower.queues.accepted('2');
    const activities = () => plex.requests.filter((r) => r.path === '/activities').length;
    const from = clock.now();
    follower.follow({ ref: { folderId: 1, generation: 1 }, folder, event: 'Download', deliveredAt: from, ticket: { sections: [{ id: '2', title: 'TV Shows' }], accepted } });
    await until(() => activities() >= 9, { what: '/activities asked nine times' });
    // Nine polls, the first at once: eight intervals of model time.
    expect(clock.now() - from).toBeLessThan(8 * 1_000);
    expect(clock.now() - from).toBeGreaterThanOrEqual(8 * BLIND_POLL_MS);
    expect(follower.outstanding()).toBe(1);
    // A scan still running BLIND_FAST_MS after Plex took it is a long one: polled once a PLEX_FOLLOW_INTERVAL again.
    await until(() => clock.now() - from >= BLIND_FAST_MS + 1_000, { what: 'past the fast polls' });
    // A poll may be on its way to Plex as they are counted: of the polls after, all but that one waited an interval.
    const [n0, t0] = [activities(), clock.now()];
    await until(() => activities() >= n0 + 4, { what: 'four more polls' });
    const polls = activities() - n0;
    expect(clock.now() - t0).toBeGreaterThanOrEqual((polls - 1) * 1_000);
    // Plex ends the scan: the next poll finds the section idle and the slot free.
    plex.stepFifo();
    await until(() => follower!.outstanding() === 0, { what: 'the slot freed' });
  });
});
