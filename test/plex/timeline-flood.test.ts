// A Plex whose notification socket never stops sending timeline entries (agents' and scheduled tasks' refreshes
// all day; a hostile server, without end), against the fake Plex on 127.0.0.1: what the relay holds stays
// bounded while the follower still confirms a real scan in another section from its own entries.
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.js';
import { silentLogger } from '../../src/log/logger.js';
import { NO_AFTER_SCAN } from '../../src/targets/plex/after-scan.js';
import { PlexApi } from '../../src/targets/plex/api.js';
import { PlexFollower } from '../../src/targets/plex/follow/follower.js';
import { PlexNotifications } from '../../src/targets/plex/follow/notifications.js';
import { defaultDial, type Dial, type SocketLike } from '../../src/http/media-socket.js';
import { MAX_RUNNING } from '../../src/targets/plex/follow/scan-items.js';
import type { FollowResult } from '../../src/scan.js';
import { PlexTarget } from '../../src/targets/plex/target.js';
import { FakePlex } from '../fakes/plex.js';
import { attachPlexNotifications, type FakePlexNotifications } from '../fakes/plex-notifications.js';
import { until } from '../support/until.js';

let plex: FakePlex;
let socket: FakePlexNotifications;
let stop: (() => Promise<void>) | undefined;

afterEach(async () => {
  await stop?.();
  stop = undefined;
  await socket?.close();
  await plex?.stop();
});

const FRAMES = 200;
const PER_FRAME = 1_000;

/** One frame of `n` processing entries (state 5, as an agent's refresh sends) in `section`, ids from `first`. */
function timelineFrame(section: string, first: number, n: number): string {
  const entries = [];
  for (let i = 0; i < n; i++) entries.push({ identifier: 'com.plexapp.plugins.library', sectionID: section, itemID: String(first + i), type: 4, title: `Episode ${first + i}`, state: 5, updatedAt: 1767225600 });
  return JSON.stringify({ NotificationContainer: { type: 'timeline', size: n, TimelineEntry: entries } });
}

/** A scan activity `started` in `section`, never ended. */
const startedFrame = (uuid: string, section: string) =>
  JSON.stringify({ NotificationContainer: { type: 'activity', size: 1, ActivityNotification: [{ event: 'started', uuid, Activity: { uuid, type: 'library.update.section', title: 'Scanning', progress: 0, Context: { librarySectionID: section } } }] } });

/** The real `ws` dial, loaded once for this file. */
let dialed: Dial | undefined;
beforeAll(async () => {
  dialed = await defaultDial();
});

/** The relay's socket as it runs, counting the frames it has read (each counted once handled). */
function countingDial(): { dial: Dial; read: () => number } {
  let read = 0;
  const dial: Dial = (url, headers) => {
    const ws = dialed!(url, headers);
    const on = ws.on.bind(ws) as (event: string, fn: (arg: string) => void) => void;
    ws.on = ((event: string, fn: (arg: string) => void) => on(event, event === 'text' ? (t: string) => (fn(t), read++) : fn)) as SocketLike['on'];
    return ws;
  };
  return { dial, read: () => read };
}

describe('a Plex that floods its notification socket with timeline entries', () => {
  it('entries of sections with no followed scan are dropped; a real scan in another section is still confirmed from its own', async () => {
    plex = await new FakePlex({
      sections: [
        { key: '2', title: 'TV', type: 'show', locations: ['/data/media/tv'] },
        { key: '5', title: 'Movies', type: 'movie', locations: ['/data/media/movies'] },
      ],
    }).start();
    plex.fifoMs = 20;
    socket = attachPlexNotifications(plex);
    const api = new PlexApi({ url: plex.url, token: plex.token, timeoutMs: 2_000, clock: systemClock });
    const reading = countingDial();
    const notifications = new PlexNotifications({ url: plex.url, token: plex.token, clock: systemClock, dial: reading.dial });
    const watch = notifications;
    // The default grace: under the flood a metadata read can take longer than a short one, and a poll judging an
    // idle section does not wait for reads in flight (the follower's own matter, not this test's).
    const follower = new PlexFollower({ api, clock: systemClock, logger: silentLogger, pollMs: 20, graceMs: 5_000, timeoutMs: 10_000, after: NO_AFTER_SCAN, analyze: false, watch });
    stop = () => follower.stop();
    const results = new Map<string, FollowResult>();
    follower.start(async (item, result) => void results.set(item.folder, result));
    follower.watchScans();
    await until(() => socket.clients === 1, { what: 'the socket open' });

    // The flood: 200,000 entries for sections 5, 6 and 7 (none followed) and 1,000 scans started, never ended,
    // at the pace the relay reads them (a few frames ahead): a socket lagging seconds behind would hold back
    // the real scan's frames too, which is not what this test is about. `sent`: frames sent, all told.
    let sent = 0;
    const flood = (async () => {
      for (let f = 0; f < FRAMES; f++) {
        await until(() => reading.read() >= sent - 20, { every: 1 });
        await socket.sendRaw(timelineFrame(String(5 + (f % 3)), f * PER_FRAME, PER_FRAME));
        for (let a = 0; a < 5; a++) await socket.sendRaw(startedFrame(`hostile-${f}-${a}`, String(5 + (a % 3))));
        sent += 6;
      }
    })();
    // Meanwhile a delivery in section 2, as the target sends it: the section named before the refresh.
    const folder = '/data/media/tv/Show 1/Season 01';
    const file = `${folder}/Show 1 S01E01.mkv`;
    plex.onDisk.add(file);
    follower.watchScans(['2']);
    await api.refresh('2', folder);
    const accepted = follower.queues.accepted('2');
    follower.follow({ ref: { folderId: 1, generation: 1 }, folder, event: 'Download', deliveredAt: Date.now(), ticket: { sections: [{ id: '2', title: 'TV' }], file, accepted } });
    await flood;
    await until(() => reading.read() >= sent, { what: () => `the flood read (${reading.read()} of ${sent} frames so far)` });
    await until(() => results.has(folder), { what: 'the follow-up in section 2' });

    expect(results.get(folder)).toMatchObject({ state: 'confirmed', detail: expect.stringContaining("Plex's notifications") });
    const held = watch.held();
    // Nothing of the 200,000 entries stays; at most what section 2's scan sent after its end (its state-5 entries).
    expect(held.sections).toBeLessThanOrEqual(1);
    expect(held.entries).toBeLessThanOrEqual(2);
    expect(held.running).toBeLessThanOrEqual(MAX_RUNNING);
    expect(held.endItems).toBeLessThanOrEqual(2);
  });

  it('a scan Plex runs before it answers the refresh is confirmed from its entries: the target names the section before it asks', async () => {
    plex = await new FakePlex().start();
    // Each scan ends the moment Plex takes it: its entries come before the refresh is answered.
    plex.scanPolls = 0;
    socket = attachPlexNotifications(plex);
    const { dial, read } = countingDial();
    const target = new PlexTarget({ url: plex.url, token: plex.token, clock: systemClock, timeoutMs: 2_000, followIntervalMs: 20, followGraceMs: 150, after: { analyze: 'off' }, notifications: { dial, firstBackoffMs: 10, maxBackoffMs: 40 } });
    stop = () => target.follower.stop();
    const results = new Map<string, FollowResult>();
    target.follower.start(async (item, result) => void results.set(item.folder, result));
    target.follower.watchScans();
    await until(() => socket.clients === 1, { what: 'the socket open' });
    const folder = '/data/media/tv/Show 1/Season 01';
    const file = `${folder}/Show 1 S01E01.mkv`;
    plex.onDisk.add(file);
    const outcome = await target.scan(folder, { event: 'Download', source: 'sonarr', file, deleted: false });
    if (outcome.status !== 'scanned' || !outcome.follow) throw new Error(`not followed: ${JSON.stringify(outcome)}`);
    // Every frame of the scan (started, updated, its entries, ended) read before its follow-up is recorded.
    await until(() => socket.frames.length >= 4 && read() >= socket.frames.length, { what: () => `${read()} of ${socket.frames.length} frames read` });
    target.follower.follow({ ref: { folderId: 1, generation: 1 }, folder, event: 'Download', deliveredAt: Date.now(), ticket: outcome.follow });
    await until(() => results.has(folder));
    expect(results.get(folder)).toMatchObject({ state: 'confirmed', detail: expect.stringContaining("Plex's notifications") });
  });
});
