// One Plex follow-up as a state machine (src/targets/plex/follow/follow-up.ts): every entry point only tells it events,
// and `nextStep` alone says whether it waits, is polled, looked up or judged. One table per entry point (the socket's
// end with the section's queue of scans, the poll, the late path, the cross-check) and per fault (scans run out of
// order, a timeout); then when the verdict asks Plex once more.
import { describe, expect, it } from 'vitest';
import type { BatchConfirmation } from '../../src/targets/plex/confirm.js';
import { apply, nextStep, verdict, type PlexEvent, type PlexFollowUp as FollowUp, type PlexMoment as Moment } from '../../src/targets/plex/follow/follow-up.js';

const T = Date.UTC(2026, 0, 1);
const unknown = { state: 'unknown', reason: 'no database' } as const;
const notFound = { state: 'not-found', reason: 'not in media_parts' } as const;
const confirmed = { state: 'confirmed', via: 'notifications' } as const;
const FILE = '/tv/Show/Season 01/e1.mkv';

function followUp(slot?: Record<string, number>): FollowUp {
  return {
    key: '1:1',
    item: { ref: { folderId: 1, generation: 1 }, folder: '/tv/Show/Season 01', event: 'Download', deliveredAt: T, ticket: {} },
    ticket: { sections: [{ id: '2', title: 'TV' }], file: FILE },
    followedAt: T,
    polled: 0,
    looking: 0,
    seenRunning: false,
    ...(slot ? { slot } : {}),
  };
}

const at = (over: Partial<Omit<Moment, 'graceOver'>> & { graceOver?: boolean } = {}): Moment => {
  const { graceOver, ...rest } = over;
  return { now: T + 1_000, look: 0, timeoutMs: 300_000, ...rest, graceOver: () => graceOver ?? false };
};
const told = (f: FollowUp, ...events: PlexEvent[]) => (events.forEach((e) => apply(f, e)), f);
/** The library asked about its file, and what it said. */
const looked = (evidence: BatchConfirmation): PlexEvent => ({ kind: 'looked', evidence: new Map([['1:1', evidence]]), library: true });
/** The items of scan ends read (news of its scan, not the library asked): its file among them or not. */
const read = (found: boolean): PlexEvent => ({ kind: 'looked', evidence: new Map(found ? [['1:1', { ...confirmed, ratingKey: '9' }]] : []), library: false });
const polled = (look: number, running: boolean, over: { first?: boolean; freed?: boolean } = {}): PlexEvent => ({
  kind: 'polled',
  look,
  at: T + look * 1_000,
  running: new Set(running ? ['2'] : []),
  freed: new Set(over.freed ? ['1:1'] : []),
  behind: new Set(over.first === false ? ['1:1'] : []),
});

describe('the socket: a scan end, and its slot passed in its section\'s queue', () => {
  it("a file among the end's items, its own slot passed: judged at once", () => {
    const f = told(followUp({ '2': 1 }), { kind: 'looking' }, read(true), { kind: 'ended', by: 'queue' });
    expect(nextStep(f, at())).toBe('judge');
    expect(f.seenRunning).toBe(true);
  });

  it("a file among an earlier end's items while its own scan is still queued at Plex: it waits, holding its slot", () => {
    const f = told(followUp({ '2': 2 }), { kind: 'looking' }, read(true));
    expect(nextStep(f, at())).toBe('wait');
    apply(f, { kind: 'ended', by: 'queue' });
    expect(nextStep(f, at())).toBe('judge');
  });

  it('no sign among the items once its slot passed: looked up; unknown then is final (the items were read), not-found waits for the grace', () => {
    const f = told(followUp({ '2': 1 }), { kind: 'ended', by: 'queue' });
    expect(nextStep(f, at())).toBe('look');
    apply(f, { kind: 'looking' });
    expect(nextStep(f, at())).toBe('wait');
    apply(f, looked(unknown));
    expect(nextStep(f, at())).toBe('judge');
    const g = told(followUp({ '2': 1 }), { kind: 'ended', by: 'queue' }, looked(notFound));
    expect(nextStep(g, at())).toBe('wait');
    expect(nextStep(g, at({ graceOver: true }))).toBe('judge');
  });

  it("reads of ended scans' items under way: not judged before they are done; news of its scan asks the library again", () => {
    const f = told(followUp({ '2': 1 }), { kind: 'looking' }, { kind: 'looking' }, { kind: 'ended', by: 'queue' });
    expect(nextStep(f, at())).toBe('wait');
    apply(f, read(false));
    expect(nextStep(f, at())).toBe('wait');
    apply(f, read(false));
    expect(nextStep(f, at())).toBe('look');
    apply(f, looked(notFound));
    expect(nextStep(f, at())).toBe('wait');
    apply(f, { kind: 'ended', by: 'items' });
    expect(nextStep(f, at())).toBe('look');
  });
});

describe('the poll', () => {
  it('asked once per look; its sections seen scanning: running, the timeout counts from the first such poll; idle: ended, looked up, judged after the grace', () => {
    const f = followUp();
    expect(nextStep(f, at())).toBe('wait');
    expect(nextStep(f, at({ look: 1 }))).toBe('poll');
    told(f, polled(1, true), polled(2, true));
    expect(f.startedAt).toBe(T + 1_000);
    expect(nextStep(f, at({ look: 2 }))).toBe('wait');
    apply(f, polled(3, false));
    expect(f.ended).toBe('idle');
    expect(nextStep(f, at({ look: 3 }))).toBe('look');
    apply(f, looked(unknown));
    expect(nextStep(f, at({ look: 3 }))).toBe('wait');
    expect(nextStep(f, at({ look: 3, graceOver: true }))).toBe('judge');
    // The next poll finds the sections idle again: the library is asked again.
    apply(f, polled(4, false));
    expect(nextStep(f, at({ look: 4 }))).toBe('look');
  });

  it('a follow-up behind an earlier one of its section does not start its timeout', () => {
    const f = told(followUp(), polled(1, true, { first: false }));
    expect(f.startedAt).toBeUndefined();
    expect(nextStep(f, at({ now: T + 10 * 300_000, look: 1 }))).toBe('wait');
  });
});

describe('the late path (ends seen before the follow-up was recorded)', () => {
  it('a file among those ends is judged at once when it holds no slot, or once its slot is passed', () => {
    expect(nextStep(told(followUp(), { kind: 'looking' }, read(true)), at())).toBe('judge');
    expect(nextStep(told(followUp({ '2': 3 }), { kind: 'looking' }, read(true)), at())).toBe('wait');
  });

  it('a file seen stays confirmed: a later lookup that cannot tell does not undo it', () => {
    const f = told(followUp(), looked(confirmed), looked(unknown));
    expect(f.evidence).toEqual(confirmed);
  });
});

describe('the cross-check', () => {
  it('a scan freed ends the follow-up though no end was seen: the socket cannot vouch for it, so its file waits for the grace', () => {
    const f = told(followUp({ '2': 1 }), polled(1, true, { freed: true }));
    expect([f.ended, f.unseen]).toEqual(['freed', true]);
    expect(nextStep(f, at({ look: 1 }))).toBe('look');
    apply(f, looked(unknown));
    expect(nextStep(f, at({ look: 1 }))).toBe('wait');
    expect(nextStep(f, at({ look: 1, graceOver: true }))).toBe('judge');
  });
});

describe('faults', () => {
  it('scans run out of order: an end known only by its slot is undone, the slot dropped; a file seen is judged at once', () => {
    const f = told(followUp({ '2': 3 }), { kind: 'ended', by: 'queue' }, { kind: 'reordered' });
    expect([f.ended, f.slot, f.unseen]).toEqual([undefined, undefined, true]);
    expect(nextStep(f, at())).toBe('wait');
    const g = told(followUp({ '2': 4 }), looked(confirmed), { kind: 'reordered' });
    expect(nextStep(g, at())).toBe('judge');
  });

  it('an end found by a poll stays so when the scans ran out of order', () => {
    const f = told(followUp(), { kind: 'ended', by: 'idle' }, { kind: 'reordered' });
    expect(f.ended).toBe('idle');
  });

  it('PLEX_CONFIRM_TIMEOUT from its start: expired; from its delivery while Plex does not answer; a file seen is judged, not expired', () => {
    const started = told(followUp(), polled(1, true));
    expect(nextStep(started, at({ now: T + 301_000, look: 1 }))).toBe('expire');
    expect(nextStep(followUp(), at({ now: T + 300_000 }))).toBe('wait');
    const unanswered = told(followUp(), { kind: 'polled', look: 1, unreachable: 'connection refused' });
    expect(nextStep(unanswered, at({ now: T + 300_000, look: 1 }))).toBe('expire');
    const placed = told(followUp({ '2': 9 }), polled(1, true), looked(confirmed));
    expect(nextStep(placed, at({ now: T + 301_000, look: 1 }))).toBe('judge');
  });

  it('Plex not answering: an ended follow-up is not looked up until it answers again', () => {
    const f = told(followUp(), { kind: 'ended', by: 'queue' }, { kind: 'polled', look: 1, unreachable: 'connection refused' });
    expect(nextStep(f, at({ look: 1 }))).toBe('wait');
    apply(f, polled(2, false));
    expect(nextStep(f, at({ look: 2 }))).toBe('look');
  });
});

describe('the verdict: asked once more only where a miss may be a scan never run', () => {
  const judged = (file: string | undefined, last: FollowUp['evidence'], watched: boolean) => verdict({ file, waitedMs: 1_000, seenRunning: true, last, watched });

  it('no sign of the file where the socket saw all Plex created: scanned, asked once more', () => {
    expect(judged('/tv/S/e1.mkv', unknown, true)).toMatchObject({ state: 'scanned', askAgain: true });
  });

  it('not where nothing showed what Plex created (polling only), nor for a sidecar (no item of its own), nor with no file, nor when seen or not-found', () => {
    expect(judged('/tv/S/e1.mkv', unknown, false).askAgain).toBeUndefined();
    expect(judged('/tv/S/e1.en.srt', unknown, true).askAgain).toBeUndefined();
    expect(judged(undefined, undefined, true).askAgain).toBeUndefined();
    expect(judged('/tv/S/e1.mkv', confirmed, true)).toMatchObject({ state: 'confirmed' });
    expect(judged('/tv/S/e1.mkv', notFound, true)).toMatchObject({ state: 'not-found' });
    expect(judged('/tv/S/e1.mkv', notFound, true).askAgain).toBeUndefined();
  });
});
