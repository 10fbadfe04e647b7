// The Plex follower on the notification socket, against the fake Plex and its socket on 127.0.0.1: a scan's end
// confirms its file with one metadata request per new item and no section listing; the fallbacks in order (the
// database for what the events did not show; /activities while the socket is refused; the paged recently-added
// listing only when both fail); a dropped socket is reopened and polled once; stop() ends a pending backoff.
import { afterEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.js';
import type { FollowItem, FollowResult, ScanContext } from '../../src/scan.js';
import { PlexTarget, type PlexTargetOptions } from '../../src/targets/plex/target.js';
import { FakePlex } from '../fakes/plex.js';
import { attachPlexNotifications, type FakePlexNotifications } from '../fakes/plex-notifications.js';
import { until } from '../support/until.js';

let plex: FakePlex;
let socket: FakePlexNotifications;
let target: PlexTarget | undefined;

afterEach(async () => {
  await target?.follower.stop();
  target = undefined;
  await socket?.close();
  await plex?.stop();
});

const episode = (n: number) => ({ folder: `/data/media/tv/Show ${n}/Season 01`, file: `/data/media/tv/Show ${n}/Season 01/Show ${n} S01E01.mkv` });
const ctx = (file: string): ScanContext => ({ event: 'Download', source: 'sonarr', file, deleted: false });

/** `watching`: the socket opened at once, as after a first scan (default); false: as a relay that has sent nothing. */
async function setUp(extra: Partial<PlexTargetOptions> = {}, beforeSocket?: (plex: FakePlex) => void, watching = true) {
  plex = await new FakePlex().start();
  plex.fifoMs = 20;
  socket = attachPlexNotifications(plex);
  beforeSocket?.(plex);
  target = new PlexTarget({
    url: plex.url,
    token: plex.token,
    clock: systemClock,
    timeoutMs: 2000,
    followIntervalMs: 20,
    followGraceMs: 150,
    after: { analyze: 'off' },
    notifications: { firstBackoffMs: 10, maxBackoffMs: 40 },
    ...extra,
  });
  const results = new Map<string, FollowResult>();
  target.follower.start(async (item: FollowItem, result) => void results.set(item.folder, result));
  if (watching) target.follower.watchScans();
  let id = 0;
  const deliver = async (n: number, onDisk = true) => {
    const e = episode(n);
    if (onDisk) plex.onDisk.add(e.file);
    const outcome = await target!.scan(e.folder, ctx(e.file));
    if (outcome.status !== 'scanned' || outcome.follow === undefined) throw new Error(`not followed: ${JSON.stringify(outcome)}`);
    target!.follower.follow({ ref: { folderId: ++id, generation: 1 }, folder: e.folder, event: 'Download', deliveredAt: Date.now(), ticket: outcome.follow });
  };
  return { results, deliver };
}

const paths = (pred: (p: string) => boolean) => plex.requests.filter((r) => pred(r.path));

describe('the Plex follower on notifications', () => {
  it('a Plex that has been sent nothing gets no socket; the first scan opens it, and its follow-up is confirmed', async () => {
    const { results, deliver } = await setUp({}, undefined, false);
    await new Promise((r) => setTimeout(r, 200));
    expect(socket.upgrades).toHaveLength(0);
    await deliver(1);
    await until(() => socket.clients === 1, { what: 'the socket opened by the first scan' });
    await until(() => results.size === 1);
    expect([...results.values()][0].state).toBe('confirmed');
    // It stays open: a second scan opens no second one.
    await deliver(2);
    await until(() => results.size === 2);
    expect(socket.upgrades.filter((u) => u.accepted)).toHaveLength(1);
  });

  it('a library scan begun before the socket opened keeps its section busy: /activities is asked until it ends, no follow-up is judged meanwhile', async () => {
    // The socket never hears the scan start; only /activities shows it. Trusting the events alone would find the
    // section idle and end the follow-up (and free its slot) while the scan still runs.
    const { results, deliver } = await setUp({}, (p) => p.startLibraryScan('2', 1_500));
    await until(() => socket.clients === 1);
    await deliver(1);
    const polled = paths((p) => p === '/activities').length;
    await until(() => paths((p) => p === '/activities').length >= polled + 5, { what: '/activities asked while the library scan runs' });
    expect(plex.activities.some((a) => a.type === 'library.update.section' && a.path === '/data/media/tv')).toBe(true);
    expect(results.size).toBe(0);
    expect(target!.follower.outstanding()).toBe(1);
    await until(() => results.size === 1);
    expect(results.get(episode(1).folder)).toMatchObject({ state: 'confirmed' });
  });

  it('a scan end confirms its files with one metadata request per new item: no section listing, no file filter, /activities once after connecting', async () => {
    const { results, deliver } = await setUp();
    await until(() => socket.clients === 1);
    for (let i = 0; i < 4; i++) await deliver(i);
    await until(() => results.size === 4);
    for (const r of results.values()) expect(r).toMatchObject({ state: 'confirmed', detail: expect.stringContaining("Plex's notifications") });
    expect(paths((p) => p.endsWith('/all'))).toEqual([]);
    expect(paths((p) => p.startsWith('/library/metadata/'))).toHaveLength(4);
    expect(paths((p) => p === '/activities').length).toBeLessThanOrEqual(1);
    // The token went in a header, never in the socket's URL.
    expect(socket.upgrades.map((u) => u.tokenVia)).toEqual(['header']);
    expect(target!.follower.outstanding()).toBe(0);
  });

  it("a scan that changed nothing of its file (already in the library) ends its follow-up when that scan ends, not when the section goes idle", async () => {
    // A grace and a timeout far beyond the test: only the scan's end, heard on the socket, can end it.
    const { results, deliver } = await setUp({ followGraceMs: 600_000, timeoutMs: 600_000 });
    await until(() => socket.clients === 1);
    plex.addToLibrary(episode(1).file);
    await deliver(1);
    await until(() => results.size === 1);
    expect(results.get(episode(1).folder)).toMatchObject({ state: 'scanned', detail: expect.stringContaining('Plex finished the scan') });
    expect(target!.follower.outstanding()).toBe(0);
  });

  it('Plex runs the scans of a section in the order it took them: a follow-up is outstanding until its own scan ended, however early its file was seen', async () => {
    const { results, deliver } = await setUp({ followGraceMs: 600_000, timeoutMs: 600_000 });
    plex.fifoStepped = true;
    await until(() => socket.clients === 1);
    // Two scans of one folder in Plex's line; the first adds the files of both deliveries.
    plex.onDisk.add(`${episode(1).folder}/Show 1 S01E02.mkv`);
    await deliver(1);
    const second = await target!.scan(episode(1).folder, ctx(`${episode(1).folder}/Show 1 S01E02.mkv`));
    if (second.status !== 'scanned' || second.follow === undefined) throw new Error('not followed');
    target!.follower.follow({ ref: { folderId: 99, generation: 1 }, folder: 'second', event: 'Download', deliveredAt: Date.now(), ticket: second.follow });
    // A third Plex took whose follow-up was superseded (its folder asked again meanwhile): Plex holds it all the same.
    const third = await target!.scan(episode(2).folder, ctx(episode(2).file));
    if (third.status !== 'scanned') throw new Error('not scanned');
    target!.follower.superseded!(third.follow);
    expect(target!.follower.outstanding()).toBe(3);
    plex.stepFifo(1);
    await until(() => results.size === 1);
    expect(results.get(episode(1).folder)?.state).toBe('confirmed');
    // The second file is in the library now, but its own scan still waits in Plex's line.
    await new Promise((r) => setTimeout(r, 100));
    expect(results.has('second')).toBe(false);
    expect(target!.follower.outstanding()).toBe(2);
    plex.stepFifo(1);
    await until(() => results.size === 2);
    expect(results.get('second')?.state).toBe('confirmed');
    expect(target!.follower.outstanding()).toBe(1);
    plex.stepFifo(1);
    await until(() => target!.follower.outstanding() === 0);
  });

  it("scans Plex ended while the socket was down do not hold back the next: a scan's end whose items hold its file gives its place back at that end", async () => {
    // After an outage: two scans taken and ended before the socket opened, their ends unheard, so the line counts
    // them still ahead. Polls, grace and timeout far beyond the test: only the third scan's own end can end it.
    const { results, deliver } = await setUp({ followIntervalMs: 600_000, followGraceMs: 600_000, timeoutMs: 600_000 }, () => (socket.refuseUpgrades = 503));
    await deliver(1);
    await deliver(2);
    await until(() => plex.finishedScans.length === 2);
    socket.refuseUpgrades = undefined;
    await until(() => socket.clients === 1, { what: 'the socket opened' });
    await deliver(3);
    await until(() => results.has(episode(3).folder), { ms: 3_000, what: 'the third follow-up judged at its own end' });
    expect(results.get(episode(3).folder)?.state).toBe('confirmed');
    expect(target!.follower.outstanding()).toBeLessThanOrEqual(2);
  });

  it('when the socket reopens /activities is asked at once: scans that ended unheard end then, and the count is exact again for the next scan', async () => {
    // Polls, grace and timeout far beyond the test: only the poll the reopening asks for can end the first two, and
    // the third (its file already in the library: no item of it created) only by its slot in a count that is exact.
    const { results, deliver } = await setUp({ followIntervalMs: 600_000, followGraceMs: 600_000, timeoutMs: 600_000 }, () => (socket.refuseUpgrades = 503));
    await deliver(1);
    await deliver(2);
    await until(() => plex.finishedScans.length === 2);
    socket.refuseUpgrades = undefined;
    await until(() => results.size === 2, { ms: 3_000, what: 'the two scans that ended unheard judged after the reopening' });
    expect([...results.values()].map((r) => r.state)).toEqual(['confirmed', 'confirmed']);
    expect(target!.follower.outstanding()).toBe(0);
    plex.addToLibrary(episode(3).file);
    await deliver(3);
    await until(() => results.size === 3, { ms: 3_000, what: 'the third judged at its own end, by its slot' });
    expect(target!.follower.outstanding()).toBe(0);
  });

  it("between two of a section's scans (the next one not named yet) the section is not idle: the follow-ups queued behind stay outstanding", async () => {
    // Polls every 200 ms; Plex names the next scan's section 80 ms after it starts. Trusting the events at that
    // instant, a poll in the gap ended every follow-up still queued (and freed their places under the cap). The
    // gap is well inside one interval (the window a recent end keeps a section running), so a busy machine's late
    // timers do not stretch it past the window.
    const { results, deliver } = await setUp({ followIntervalMs: 200, followGraceMs: 600_000, timeoutMs: 600_000 });
    plex.fifoStepped = true;
    socket.sectionNamedAfterMs = 80;
    await until(() => socket.clients === 1);
    for (let i = 1; i <= 6; i++) await deliver(i);
    await until(() => socket.frames.some((f) => f.includes('"event":"updated"')), { what: 'the first scan named' });
    let fewest = Number.POSITIVE_INFINITY;
    for (let step = 1; step <= 5; step++) {
      plex.stepFifo(1);
      await until(() => results.size === step, { what: `follow-up ${step} confirmed` });
      // Through the gap and past it: never fewer outstanding than the scans Plex holds.
      for (let t = 0; t < 25; t++) {
        fewest = Math.min(fewest, target!.follower.outstanding() - plex.scansQueued);
        await new Promise((r) => setTimeout(r, 5));
      }
    }
    expect(fewest).toBeGreaterThanOrEqual(0);
    plex.stepFifo(1);
    await until(() => results.size === 6);
    for (const r of results.values()) expect(r.state).toBe('confirmed');
  });

  it("a file the scan did not show is judged by the database when readable: not-found, with what to check", async () => {
    const { results, deliver } = await setUp({ fileInLibrary: async (p) => plex.library.has(p) });
    await until(() => socket.clients === 1);
    await deliver(1, false);
    await until(() => results.size === 1);
    expect(results.get(episode(1).folder)).toMatchObject({ state: 'not-found', detail: expect.stringContaining('PATH_MAPPINGS') });
    expect(paths((p) => p.endsWith('/all'))).toEqual([]);
  });

  it('without a database, a file the scan did not show ends scanned (neutral), not unconfirmed, and nothing is listed', async () => {
    const { results, deliver } = await setUp();
    await until(() => socket.clients === 1);
    await deliver(1, false);
    await until(() => results.size === 1);
    expect(results.get(episode(1).folder)).toMatchObject({ state: 'scanned', detail: expect.stringContaining('Plex finished the scan') });
    expect(paths((p) => p.endsWith('/all'))).toEqual([]);
  });

  it('a refused upgrade (a proxy that drops websockets): /activities is polled, and without a database the newest items are paged', async () => {
    const { results, deliver } = await setUp();
    socket.refuseUpgrades = 404;
    socket.dropAll();
    await until(() => socket.upgrades.some((u) => !u.accepted));
    for (let i = 0; i < 2; i++) await deliver(i);
    await until(() => results.size === 2);
    for (const r of results.values()) expect(r).toMatchObject({ state: 'confirmed', detail: expect.stringContaining('recently added') });
    expect(paths((p) => p === '/activities').length).toBeGreaterThan(1);
    for (const r of paths((p) => p.endsWith('/all'))) expect(r.query).toMatchObject({ sort: 'addedAt:desc', 'X-Plex-Container-Size': '50' });
  });

  it('a dropped socket is reopened; /activities is asked once after, and the follow-ups end', async () => {
    const { results, deliver } = await setUp();
    await until(() => socket.clients === 1);
    socket.dropAll();
    await until(() => socket.upgrades.filter((u) => u.accepted).length === 2 && socket.clients === 1);
    const before = paths((p) => p === '/activities').length;
    for (let i = 0; i < 3; i++) await deliver(i);
    await until(() => results.size === 3);
    expect([...results.values()].map((r) => r.state)).toEqual(['confirmed', 'confirmed', 'confirmed']);
    expect(paths((p) => p === '/activities').length - before).toBeLessThanOrEqual(1);
  });

  it('stop() ends at once though a 30 s backoff is pending', async () => {
    await setUp({ notifications: { firstBackoffMs: 30_000, maxBackoffMs: 30_000 } });
    socket.refuseUpgrades = 503;
    socket.dropAll();
    await until(() => socket.upgrades.some((u) => !u.accepted) || socket.clients === 0);
    const t0 = Date.now();
    await target!.follower.stop();
    expect(Date.now() - t0).toBeLessThan(1000);
  });
});
