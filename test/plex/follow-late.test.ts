// A follow-up and the scan ends heard before it is judged. One recorded after its scan already ended (Plex
// scanned the small folder before the relay had written the delivery down) finds that end among the ones the
// socket heard lately. Under load those are hundreds, all of one section: the follow-up looks through them
// newest first and stops at its file, so it reads its own scan's items and not every recent scan's. One look per
// recent end for every follow-up was most of the relay's CPU per scan in benchmarks 5 and 7a (the follow-ups that
// free the places under PLEX_MAX_OUTSTANDING). And a read of an earlier end's items that may still find the file
// (a scan of a parent folder added it) is waited for once the follow-up's own scan ended, rather than raced by
// the lookup that says "scanned".
import { afterEach, describe, expect, it } from 'vitest';
import type { Clock } from '../../src/clock.js';
import { silentLogger } from '../../src/log/logger.js';
import { NO_AFTER_SCAN } from '../../src/targets/plex/after-scan.js';
import { PlexApi } from '../../src/targets/plex/api.js';
import { PlexFollower } from '../../src/targets/plex/follow/follower.js';
import { plexGet, type PlexGet } from '../../src/targets/plex/follow/scan-items.js';
import { PlexNotifications } from '../../src/targets/plex/follow/notifications.js';
import type { FollowResult } from '../../src/scan.js';
import { FakePlex } from '../fakes/plex.js';
import { attachPlexNotifications, type FakePlexNotifications } from '../fakes/plex-notifications.js';
import { settle } from '../support/fake-socket.js';
import { until } from '../support/until.js';

let plex: FakePlex;
let socket: FakePlexNotifications;
let follower: PlexFollower | undefined;
/** Lets held item reads go, so a failed test still stops. */
let releaseReads = () => {};

afterEach(async () => {
  releaseReads();
  await follower?.stop();
  follower = undefined;
  await socket?.close();
  await plex?.stop();
});

/** Time stands still: a sleep ends only when its signal aborts (a stop), so no poll comes after the first one. */
const T = Date.UTC(2026, 0, 1);
const still: Clock = {
  now: () => T,
  sleep: (_ms, signal) => new Promise<void>((resolve) => (signal?.aborted ? resolve() : signal?.addEventListener('abort', () => resolve(), { once: true }))),
};

const episode = (n: number) => ({ folder: `/data/media/tv/Show ${n}/Season 01`, file: `/data/media/tv/Show ${n}/Season 01/Show ${n} S01E01.mkv` });

/** A follower on the fake Plex's socket; `held` keeps its item reads waiting until set false. */
async function setUp(fake: (plex: FakePlex) => void) {
  plex = await new FakePlex().start();
  fake(plex);
  socket = attachPlexNotifications(plex);
  const api = new PlexApi({ url: plex.url, token: plex.token, timeoutMs: 2_000, clock: still });
  const watch = new PlexNotifications({ url: plex.url, token: plex.token, clock: still });
  const ends = { heard: 0 };
  watch.onEnded(() => ends.heard++);
  const waiting: (() => void)[] = [];
  const gate = { held: false, release: () => ((gate.held = false), waiting.splice(0).forEach((go) => go())) };
  releaseReads = gate.release;
  const read = plexGet(api);
  const get: PlexGet = async (path) => {
    if (gate.held) await new Promise<void>((resolve) => waiting.push(resolve));
    return read(path);
  };
  follower = new PlexFollower({ api, clock: still, logger: silentLogger, pollMs: 1_000, graceMs: 5_000, timeoutMs: 300_000, after: NO_AFTER_SCAN, analyze: false, watch, get });
  const results = new Map<string, FollowResult>();
  follower.start(async (item, result) => void results.set(item.folder, result));
  // As after the relay's first scan: the socket opens with it (src/targets/plex/follow/follower.ts, watchScans).
  follower.watchScans();
  await until(() => watch.connected, { what: 'the socket open' });
  /** A refresh Plex takes from the relay, counted in the section's line as the target does. */
  const scan = async (folder: string, file?: string) => {
    if (file) plex.onDisk.add(file);
    // Its entries are kept from before Plex can answer, as the target has it (src/targets/plex/target.ts).
    follower!.watchScans(['2']);
    await api.refresh('2', folder);
    return { folder, file, accepted: follower!.queues.accepted('2') };
  };
  let id = 0;
  const follow = (s: Awaited<ReturnType<typeof scan>>) =>
    follower!.follow({ ref: { folderId: ++id, generation: 1 }, folder: s.folder, event: 'Download', deliveredAt: T, ticket: { sections: [{ id: '2', title: 'TV Shows' }], file: s.file, accepted: s.accepted } });
  const metadataReads = () => plex.requests.filter((r) => r.path.startsWith('/library/metadata/')).map((r) => r.path);
  return { results, ends, gate, scan, follow, metadataReads };
}

describe('a follow-up and the scan ends heard before it is judged', () => {
  it("recorded after its scan ended, it reads its own scan's items, not those of every scan that ended in the seconds before", async () => {
    // Each scan ends the moment Plex takes it, before the refresh is answered.
    const { results, ends, scan, follow, metadataReads } = await setUp((p) => (p.scanPolls = 0));
    // A first follow-up, so the follower's one poll is behind us: from here on only the socket ends follow-ups.
    follow(await scan(episode(0).folder, episode(0).file));
    await until(() => results.size === 1, { what: 'the first follow-up' });
    // 99 more scans end (their follow-ups ended or were superseded): their items are never read.
    for (let n = 1; n < 100; n++) await scan(episode(n).folder, episode(n).file);
    const mine = await scan(episode(100).folder, episode(100).file);
    await until(() => ends.heard === 101, { what: () => `101 scan ends heard, ${ends.heard} so far` });

    const before = metadataReads().length;
    follow(mine);
    await until(() => results.has(mine.folder), { what: 'the late follow-up' });
    expect(results.get(mine.folder)).toMatchObject({ state: 'confirmed', detail: expect.stringContaining("Plex's notifications") });
    // One metadata request, for the item its own scan created; the 99 other scans' items stay unread.
    expect(metadataReads().slice(before)).toEqual([`/library/metadata/${plex.library.get(mine.file!)!.ratingKey}`]);
    expect(follower!.outstanding()).toBe(0);
  });

  it('whose file an earlier scan added is confirmed by that scan\'s items, though its own scan ends while they are still being read', async () => {
    // Plex's line, stepped by the test: one scan at a time, in the order taken.
    const { results, ends, gate, scan, follow } = await setUp((p) => ((p.fifoMs = 0), (p.fifoStepped = true)));
    // The relay has Plex scan the whole show folder, then the season: the first scan adds the season's file.
    await scan('/data/media/tv/Show 1');
    const mine = await scan(episode(1).folder, episode(1).file);
    follow(mine);
    // Its one poll sees the section scanning: nothing is judged by it.
    await until(() => plex.requests.some((r) => r.path === '/activities'));
    await settle();
    gate.held = true;
    plex.stepFifo(1); // the show folder's scan ends, its new item the delivered file: that item's read waits
    await until(() => ends.heard === 1);
    plex.stepFifo(1); // the season's own scan ends, touching nothing (the file is in the library already)
    await until(() => ends.heard === 2);
    for (let i = 0; i < 5; i++) await settle();
    expect(results.has(mine.folder)).toBe(false);
    gate.release();
    await until(() => results.has(mine.folder), { what: 'the follow-up' });
    expect(results.get(mine.folder)).toMatchObject({ state: 'confirmed', detail: expect.stringContaining("Plex's notifications") });
    expect(follower!.outstanding()).toBe(0);
  });
});
