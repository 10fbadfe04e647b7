// The section line's count: when the notification socket opens, a scan Plex took whose delivery is still being
// recorded (a group commit away from its follow-up) is still ahead in the line, so a later follow-up is not passed
// one scan early, and a scan with nothing to follow counts as ended. An end with nothing of ours left to end is
// not counted; a uncertain section gives no place that proves anything until a resync from /activities.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import type { PlexFollowUp as FollowUp, PlexTicket } from '../../src/targets/plex/follow/follow-up.js';
import type { PlexNotifications } from '../../src/targets/plex/follow/notifications.js';
import { ScanQueues } from '../../src/targets/plex/follow/scan-queue.js';

function setup() {
  const clock = new ManualClock();
  const watch = { connectedSince: undefined as number | undefined, connected: false };
  const line = new ScanQueues({ clock, watch: watch as unknown as PlexNotifications });
  const followed = (accepted: PlexTicket['accepted']): FollowUp =>
    ({ key: String(accepted?.at), item: {}, ticket: { sections: [{ id: '2', title: 'TV' }], file: '/tv/a.mkv', accepted }, polled: 0, reading: 0, seenRunning: false, followedAt: clock.now() }) as unknown as FollowUp;
  /** The socket opens now: the line is rebased on what is followed. */
  const connect = (items: FollowUp[]) => {
    [watch.connectedSince, watch.connected] = [clock.now(), true];
    line.rebase(items);
  };
  /** A follow-up placed after the socket opened (its place counts). */
  const placedFollowUp = () => {
    const f = followed(line.accepted('2'));
    line.recorded(f.ticket.accepted);
    f.slot = line.slotOf(f.ticket.accepted);
    return f;
  };
  return { clock, line, followed, connect, placedFollowUp };
}

describe('the section line when the socket opens', () => {
  // Plex took a first scan (followed) and a second; the socket opens; a third is placed. How many scan ends pass
  // the third depends on what was known of the second when the socket opened.
  it.each([
    { second: 'its delivery not recorded yet: still ahead', recordSecond: false, beforeConnectMs: 5, endsToPass: 3 },
    { second: 'nothing to follow: counted as ended', recordSecond: true, beforeConnectMs: 5, endsToPass: 2 },
    { second: 'unrecorded for over a minute (its delivery ended some way not seen here): forgotten', recordSecond: false, beforeConnectMs: 61_000, endsToPass: 2 },
  ])('the second scan $second', ({ recordSecond, beforeConnectMs, endsToPass }) => {
    const { clock, line, followed, connect, placedFollowUp } = setup();
    const first = followed(line.accepted('2'));
    line.recorded(first.ticket.accepted);
    const second = line.accepted('2');
    if (recordSecond) line.recorded(second);
    clock.advance(beforeConnectMs);
    connect([first]);
    const third = placedFollowUp();
    expect(third.slot).toEqual({ '2': 3 });
    for (let end = 1; end < endsToPass; end++) {
      expect(line.ended('2')).toBe(true);
      expect(line.passed([third]), `passed after ${end} ends`).toEqual([]);
    }
    line.ended('2');
    expect(line.passed([third])).toEqual([third]);
  });
});

describe('the section line when Plex contradicts it', () => {
  it('an end with nothing counted left to end is not counted (the count cannot go below nothing)', () => {
    const { line, connect, placedFollowUp } = setup();
    connect([]);
    const first = placedFollowUp();
    expect(line.ended('2')).toBe(true);
    expect(line.passed([first])).toEqual([first]);
    // A scan someone else asked for (Plex's own, another tool): nothing of ours is left to end.
    expect(line.ended('2')).toBe(false);
    const second = placedFollowUp();
    expect(second.slot).toEqual({ '2': 2 });
    expect(line.passed([second])).toEqual([]);
    expect(line.ended('2')).toBe(true);
    expect(line.passed([second])).toEqual([second]);
  });

  it('uncertain (an end\'s items held a later place\'s file): no place is given until /activities shows the section idle, then the count is exact', () => {
    const { line, connect, placedFollowUp } = setup();
    connect([]);
    placedFollowUp();
    placedFollowUp();
    line.distrust('2');
    expect([...line.untrusted.keys()]).toEqual(['2']);
    expect(placedFollowUp().slot).toBeUndefined();
    // /activities, asked when Plex had taken 3, shows the section idle: all three are over.
    line.recount('2', 3);
    expect(line.untrusted.size).toBe(0);
    const fourth = placedFollowUp();
    expect(fourth.slot).toEqual({ '2': 4 });
    expect(line.ended('2')).toBe(true);
    expect(line.passed([fourth])).toEqual([fourth]);
  });

  it('after a reopen the count is guessed until /activities shows the section idle; then the late end of a scan begun before the socket opened passes no later slot', () => {
    const { clock, line, followed, connect, placedFollowUp } = setup();
    // Two scans taken while the socket was down, both followed: counted as still ahead at the reopening.
    const before = [followed(line.accepted('2')), followed(line.accepted('2'))];
    for (const f of before) line.recorded(f.ticket.accepted);
    clock.advance(5);
    connect(before);
    expect([...line.untrusted.keys()]).toEqual(['2']);
    // /activities, asked when Plex had taken the two, shows the section idle: both are over.
    line.recount('2', 2);
    expect(line.untrusted.size).toBe(0);
    const third = placedFollowUp();
    // The end of one of the two, on its way while Plex was asked: its start came before the socket opened.
    expect(line.ended('2', false)).toBe(false);
    expect(line.passed([third])).toEqual([]);
    // The third scan's own end (its start seen on the socket).
    expect(line.ended('2', true)).toBe(true);
    expect(line.passed([third])).toEqual([third]);
  });

  it("refreshes of a section are sent one at a time; Plex ends a scan before it answers the refresh: the end heard meanwhile counts for that scan, and one heard with nothing sent does not", async () => {
    const { line, connect } = setup();
    connect([]);
    const answers: (() => void)[] = [];
    const refresh = () => new Promise<void>((r) => answers.push(r));
    const sending = line.send('2', refresh);
    const second = line.send('2', refresh);
    await new Promise((r) => setImmediate(r));
    // One at a time: the second is sent once Plex answered the first (answers may come back in another order).
    expect(answers).toHaveLength(1);
    expect(line.ended('2')).toBe(false);
    answers[0]();
    const placed = await sending;
    await new Promise((r) => setImmediate(r));
    expect(answers).toHaveLength(2);
    answers[1]();
    expect((await second).seq).toEqual({ '2': 2 });
    const f = { slot: placed.seq, ticket: { sections: [{ id: '2', title: 'TV' }] } } as unknown as Parameters<typeof line.passed>[0] extends Iterable<infer F> ? F : never;
    expect(line.passed([f])).toEqual([f]);
    // The second's end; then, nothing being sent, an end with nothing of ours to end is not kept for the next refresh.
    expect(line.ended('2')).toBe(true);
    expect(line.ended('2')).toBe(false);
    const next = line.accepted('2');
    expect(line.passed([{ ...f, slot: next.seq }])).toEqual([]);
  });

  it('a refresh Plex sits on lets the next of its section go after a second, and the section is counted again only when idle; without the socket, refreshes go at once', async () => {
    const { clock, line, connect } = setup();
    const answers: (() => void)[] = [];
    const refresh = () => new Promise<void>((r) => answers.push(r));
    const tick = () => new Promise((r) => setImmediate(r));
    // No socket: the count gives no slots, and nothing waits.
    void line.send('2', refresh);
    void line.send('2', refresh);
    await tick();
    expect(answers).toHaveLength(2);
    for (const answer of answers.splice(0)) answer();
    await tick();
    connect([]);
    const hung = line.send('2', refresh);
    void line.send('2', refresh);
    await tick();
    expect(answers).toHaveLength(1);
    clock.advance(1_000);
    await tick();
    expect(answers).toHaveLength(2);
    // The first answers after the second went: which Plex took first is not known.
    answers[0]();
    await hung;
    expect([...line.untrusted.keys()]).toEqual(['2']);
  });

  it("the follower's word on a reordered section is asked, when it gives one (it also undoes the section's slots and says so)", async () => {
    const clock = new ManualClock();
    const reordered: string[] = [];
    const line = new ScanQueues({ clock, watch: { connectedSince: clock.now(), connected: true } as unknown as PlexNotifications, reordered: (id, why) => void reordered.push(`${id}: ${why}`) });
    const answers: (() => void)[] = [];
    const refresh = () => new Promise<void>((r) => answers.push(r));
    const hung = line.send('2', refresh);
    void line.send('2', refresh);
    await new Promise((r) => setImmediate(r));
    clock.advance(1_000);
    await new Promise((r) => setImmediate(r));
    answers[0]();
    await hung;
    expect(reordered).toEqual(['2: a refresh was answered after the next one of the section had gone']);
  });

  it('a uncertain section gives no place, and an end passes no place of it, until it is resynchronised', () => {
    const { line, connect, placedFollowUp } = setup();
    connect([]);
    const first = placedFollowUp();
    line.distrust('2');
    expect(line.lastPassed('2')).toBeUndefined();
    line.ended('2');
    expect(line.lastPassed('2')).toBeUndefined();
    expect(line.slotOf(first.ticket.accepted)).toBeUndefined();
  });
});
