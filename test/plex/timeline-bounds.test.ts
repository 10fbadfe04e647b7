// What a Plex's notification socket may make the relay hold (src/targets/plex/follow/notifications.ts, scan-items.ts,
// scan-ends.ts): entries of sections no scan is followed in are dropped as they come (a frame of
// nothing else is not even parsed), those of a followed section are capped, scan activities `started` and never
// `ended` are capped and forgotten once silent (on the injected clock), the ends kept for late follow-ups hold a
// bounded number of items, and ends of scans before the relay asked for one in a section do not move its line.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { silentLogger } from '../../src/log/logger.js';
import { PlexNotifications, unwantedTimeline } from '../../src/targets/plex/follow/notifications.js';
import { MAX_RUNNING, MAX_TOUCHED, RUNNING_SILENT_MS, SectionScans, type PlexNotification, type SectionScanEnded } from '../../src/targets/plex/follow/scan-items.js';
import { ScanQueues } from '../../src/targets/plex/follow/scan-queue.js';
import { scriptedDial } from '../support/fake-socket.js';
import { ownFixtureText } from '../support/fixtures.js';

const entry = (sectionId: string, itemId: string, state = 5, type = 4): PlexNotification => ({ kind: 'timeline', sectionId, itemId, state, type });
const act = (event: 'started' | 'updated' | 'ended', uuid: string, sectionId?: string): PlexNotification => ({ kind: 'activity', event, uuid, type: 'library.update.section', sectionId });

function scans(follows: (id: string) => boolean = () => true) {
  const clock = new ManualClock();
  const ended: SectionScanEnded[] = [];
  const s = new SectionScans((e) => ended.push(e), { follows, now: () => clock.now() });
  return { s, clock, ended, feed: (events: PlexNotification[]) => events.forEach((e) => s.handle(e)) };
}

describe('what the timeline may make the relay hold', () => {
  it('entries of a section no scan is followed in are dropped as they come; what a section held is let go once it is not followed', () => {
    const followed = new Set(['2']);
    const { s, feed, ended } = scans((id) => followed.has(id));
    for (let i = 0; i < 50_000; i++) feed([entry(String(3 + (i % 5)), `x${i}`)]);
    expect(s.held()).toEqual({ running: 0, sections: 0, entries: 0 });
    feed([entry('2', '10', 0), entry('2', '11', 5)]);
    expect(s.held()).toMatchObject({ sections: 1, entries: 2 });
    // The section's scan ends: its items are handed over, nothing else of it stays.
    feed([act('started', 'a', '2'), act('ended', 'a', '2')]);
    expect(ended[0].touched.map((t) => t.ratingKey)).toEqual(['10', '11']);
    expect(s.held().entries).toBe(0);
    // Entries heard while it was followed, then no scan of it any more: dropped with the next entry of it.
    feed([entry('2', '12', 5)]);
    followed.delete('2');
    feed([entry('2', '13', 5)]);
    expect(s.held()).toMatchObject({ sections: 0, entries: 0 });
  });

  it(`a followed section holds at most ${MAX_TOUCHED} items; its scan's own, heard last, are among those handed over`, () => {
    const { s, feed, ended } = scans();
    for (let i = 0; i < 3 * MAX_TOUCHED; i++) feed([entry('2', `agent${i}`, 5)]);
    feed([entry('2', 'mine', 0)]);
    expect(s.held().entries).toBe(MAX_TOUCHED);
    feed([act('started', 'a', '2'), act('ended', 'a', '2')]);
    expect(ended[0].touched).toHaveLength(MAX_TOUCHED);
    expect(ended[0].touched.at(-1)).toEqual({ ratingKey: 'mine', type: 4, created: true });
  });

  it(`scans started and never ended: at most ${MAX_RUNNING} known, and one silent for ${RUNNING_SILENT_MS / 60_000} minutes is forgotten (its section no longer looks busy)`, () => {
    const { s, feed } = scans();
    for (let i = 0; i < 10_000; i++) feed([act('started', `u${i}`, String(100 + i))]);
    expect(s.held().running).toBe(MAX_RUNNING);
    // The newest are kept.
    expect(s.scanning().has(String(100 + 9_999))).toBe(true);
    expect(s.scanning().has('100')).toBe(false);

    const { s: one, feed: feedOne, clock: c } = scans();
    // On the injected clock: silent for a while, a frame, silent again.
    feedOne([act('started', 'long', '2')]);
    c.advance(RUNNING_SILENT_MS - 1_000);
    // A frame of its progress: heard again, so it runs on.
    feedOne([act('updated', 'long', '2'), act('started', 'lost', '3')]);
    c.advance(RUNNING_SILENT_MS - 1_000);
    expect(one.scanning()).toEqual(new Set(['2', '3']));
    c.advance(2_000);
    expect(one.scanning()).toEqual(new Set());
    expect(one.held().running).toBe(0);
  });
});

describe('a frame dropped before it is parsed (unwantedTimeline)', () => {
  const keeps = (id: string) => id === '2';
  const fixture = (name: string) => ownFixtureText(`plex/notifications/${name}.json`);
  const frame = (sections: unknown[]) => JSON.stringify({ NotificationContainer: { type: 'timeline', size: sections.length, TimelineEntry: sections.map((s, i) => ({ identifier: 'com.plexapp.plugins.library', sectionID: s, itemID: String(i), type: 4, state: 5 })) } });

  it('only a timeline frame every entry of which names a section not kept, as a string or a number', () => {
    expect(unwantedTimeline(frame(['5', 6, '7']), keeps)).toBe(true);
    expect(unwantedTimeline(frame(['5', '2', '7']), keeps)).toBe(false);
    expect(unwantedTimeline(frame([5, 2]), keeps)).toBe(false);
    // Plex's own frames (test/fixtures/plex/notifications): section 2's entries are read, others' are not.
    expect(unwantedTimeline(fixture('timeline-created'), keeps)).toBe(false);
    expect(unwantedTimeline(fixture('timeline-created'), () => false)).toBe(true);
  });

  it('anything it cannot read to the end is parsed: other frames, an entry without a readable section, another layout', () => {
    for (const name of ['activity-started', 'activity-updated', 'activity-ended', 'playing']) expect(unwantedTimeline(fixture(name), () => false)).toBe(false);
    expect(unwantedTimeline(frame(['5', null]), keeps)).toBe(false);
    expect(unwantedTimeline(frame(['5', 2.5]), keeps)).toBe(false);
    expect(unwantedTimeline(frame([]), keeps)).toBe(false);
    expect(unwantedTimeline(JSON.stringify({ NotificationContainer: { size: 1, type: 'timeline', TimelineEntry: [{ sectionID: '5' }] } }), keeps)).toBe(false);
    expect(unwantedTimeline('{"NotificationContainer": {"type": "timeline", "TimelineEntry": [{"sectionID" : "5"}]}}', keeps)).toBe(true);
  });
});

/** Plex's notification socket on a dialled socket the test speaks through: each event goes as a frame of its own. */
function fakeNotifications(clock: ManualClock) {
  const { dial, sockets } = scriptedDial();
  const notifications = new PlexNotifications({ url: 'http://plex:32400', token: 't', clock, dial, liveness: false });
  notifications.start();
  sockets[0].open();
  const frame = (e: PlexNotification) =>
    e.kind === 'timeline'
      ? { type: 'timeline', TimelineEntry: [{ sectionID: e.sectionId, itemID: e.itemId, type: e.type, state: e.state }] }
      : { type: 'activity', ActivityNotification: [{ ...e, Activity: { type: 'library.update.section', Context: { librarySectionID: 'sectionId' in e ? e.sectionId : undefined } } }] };
  return { notifications, emit: (e: PlexNotification) => sockets[0].text(JSON.stringify({ NotificationContainer: frame(e) })) };
}

describe('the socket of one Plex (PlexNotifications)', () => {
  it('keeps the entries of sections the follower follows or is about to ask, for a minute before a follow-up of them exists', () => {
    const clock = new ManualClock();
    const { notifications: watch, emit } = fakeNotifications(clock);
    const following = new Set<string>();
    watch.followedBy((id) => following.has(id));
    emit(entry('2', 'early'));
    expect(watch.held().entries).toBe(0);
    watch.expect(['2']);
    emit(entry('2', 'a'));
    clock.advance(59_000);
    emit(entry('2', 'b'));
    expect(watch.held().entries).toBe(2);
    // Past the minute a frame of section 2 alone is dropped unread; what was kept stays until the section's next end.
    clock.advance(2_000);
    emit(entry('2', 'c'));
    expect(watch.held().entries).toBe(2);
    following.add('2');
    emit(entry('2', 'd'));
    expect(watch.held().entries).toBe(3);
  });

  it('the ends kept for late follow-ups hold at most 20,000 items, however many full ends come', () => {
    const clock = new ManualClock();
    const { notifications: watch, emit } = fakeNotifications(clock);
    for (let scan = 0; scan < 40; scan++) {
      for (let i = 0; i < MAX_TOUCHED; i++) emit(entry('2', `s${scan}i${i}`));
      emit(act('ended', `scan${scan}`, '2'));
    }
    const held = watch.held();
    expect(held.endItems).toBeLessThanOrEqual(20_000);
    expect(held.ends).toBeGreaterThanOrEqual(1);
    // The newest end is among them.
    expect(watch.endedSince(new Set(['2']), 0).at(-1)?.uuid).toBe('scan39');
  });
});

describe('the section line (ScanQueues)', () => {
  it('counts no end of a section before a refresh of ours is counted there: earlier scans of others never pass ours', () => {
    const clock = new ManualClock();
    const expected = new Set<string>();
    const watch = { connectedSince: clock.now() - 1, keeps: (id: string) => expected.has(id) };
    const line = new ScanQueues({ clock, watch: watch as unknown as PlexNotifications });
    // Plex's own scans (scheduled, an agent's) end in section 2 before the relay asks for one there: no line.
    for (let i = 0; i < 3; i++) expect(line.ended('2')).toBe(false);
    // The relay is about to ask; an end before Plex took the refresh is still nothing of ours (the follow-up's own
    // checks, not the line, find a scan Plex ran before it answered: docs/targets.md, the order assumption).
    expected.add('2');
    expect(line.ended('2')).toBe(false);
    const accepted = line.accepted('2');
    line.recorded(accepted);
    const f = { ticket: { sections: [{ id: '2', title: 'TV' }], accepted }, slot: line.slotOf(accepted) } as never;
    // Had the earlier ends counted, the refresh would be passed at once; it waits for the next end.
    expect(line.passed([f])).toEqual([]);
    expect(line.ended('2')).toBe(true);
    expect(line.passed([f])).toEqual([f]);
  });
});
