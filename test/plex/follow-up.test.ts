// One Plex follow-up as a state machine (src/targets/plex/follow/follow-up.ts): every entry point only tells it events,
// and `nextStep` alone says whether it may be judged. One table per entry point (the socket's end with the section
// line, the poll, the late path, the cross-check) and per fault (a uncertain line, a timeout); then when the verdict
// asks Plex once more.
import { describe, expect, it } from 'vitest';
import { apply, nextStep, type FollowEvent, type FollowUp, type Moment } from '../../src/targets/plex/follow/follow-up.js';
import { verdict } from '../../src/targets/plex/follow/verdict.js';

const T = Date.UTC(2026, 0, 1);
const unknown = { state: 'unknown', reason: 'no database' } as const;
const notFound = { state: 'not-found', reason: 'not in media_parts' } as const;
const confirmed = { state: 'confirmed', via: 'notifications' } as const;

function followUp(place?: Record<string, number>): FollowUp {
  return {
    key: '1:1',
    item: { ref: { folderId: 1, generation: 1 }, folder: '/tv/Show/Season 01', event: 'Download', deliveredAt: T, ticket: {} },
    ticket: { sections: [{ id: '2', title: 'TV' }], file: '/tv/Show/Season 01/e1.mkv' },
    followedAt: T,
    addedAtPoll: 0,
    seenRunning: false,
    ...(place ? { place } : {}),
  };
}

const at = (over: Partial<Moment> = {}): Moment => ({ now: T + 1_000, timeoutMs: 300_000, graceOver: false, looked: false, ...over });
const told = (f: FollowUp, ...events: FollowEvent[]) => (events.forEach((e) => apply(f, e)), f);

describe('the socket: a scan end, and its place passed in the line', () => {
  it('a file among the end\'s items, its own place passed: judged at once', () => {
    const f = told(followUp({ '2': 1 }), { kind: 'evidence', evidence: confirmed }, { kind: 'ended', by: 'line' });
    expect(nextStep(f, at())).toBe('judge');
    expect(f.seenRunning).toBe(true);
  });

  it("a file among an earlier end's items while its own scan is still in Plex's line: it waits, holding its place", () => {
    const f = told(followUp({ '2': 2 }), { kind: 'evidence', evidence: confirmed });
    expect(nextStep(f, at())).toBe('wait');
    apply(f, { kind: 'ended', by: 'line' });
    expect(nextStep(f, at())).toBe('judge');
  });

  it('no sign among the items once its place passed: looked up; unknown then is final (the items were read), not-found waits for the grace', () => {
    const f = told(followUp({ '2': 1 }), { kind: 'ended', by: 'line' });
    expect(nextStep(f, at())).toBe('look');
    apply(f, { kind: 'evidence', evidence: unknown });
    expect(nextStep(f, at({ looked: true }))).toBe('judge');
    const g = told(followUp({ '2': 1 }), { kind: 'ended', by: 'line' }, { kind: 'evidence', evidence: notFound });
    expect(nextStep(g, at({ looked: true }))).toBe('wait');
    expect(nextStep(g, at({ looked: true, graceOver: true }))).toBe('judge');
  });

  it('reads of ended scans\' items under way: not judged before they are done', () => {
    let done!: () => void;
    const reads = new Promise<void>((resolve) => (done = resolve));
    const f = told(followUp({ '2': 1 }), { kind: 'reading', reads }, { kind: 'ended', by: 'line' });
    expect(nextStep(f, at())).toBe('wait');
    done();
    return reads.then(() => expect(nextStep(f, at())).toBe('look'));
  });
});

describe('the poll', () => {
  it('its sections seen scanning: running, the timeout counts from the first such poll; its sections idle: ended, looked up, judged after the grace', () => {
    const f = told(followUp(), { kind: 'running', at: T + 1_000, first: true }, { kind: 'running', at: T + 2_000, first: true });
    expect(f.startedAt).toBe(T + 1_000);
    expect(nextStep(f, at())).toBe('wait');
    apply(f, { kind: 'ended', by: 'idle' });
    expect(nextStep(f, at())).toBe('look');
    apply(f, { kind: 'evidence', evidence: unknown });
    expect(nextStep(f, at({ looked: true }))).toBe('wait');
    expect(nextStep(f, at({ looked: true, graceOver: true }))).toBe('judge');
  });

  it('a follow-up behind an earlier one of its section does not start its timeout', () => {
    const f = told(followUp(), { kind: 'running', at: T, first: false });
    expect(f.startedAt).toBeUndefined();
    expect(nextStep(f, at({ now: T + 10 * 300_000 }))).toBe('wait');
  });
});

describe('the late path (ends heard before the follow-up was recorded)', () => {
  it('a file among those ends is judged at once when it holds no place, or once its place is passed', () => {
    expect(nextStep(told(followUp(), { kind: 'evidence', evidence: confirmed }), at())).toBe('judge');
    expect(nextStep(told(followUp({ '2': 3 }), { kind: 'evidence', evidence: confirmed }), at())).toBe('wait');
  });

  it('a file seen stays confirmed: a later lookup that cannot tell does not undo it', () => {
    const f = told(followUp(), { kind: 'evidence', evidence: confirmed }, { kind: 'evidence', evidence: unknown });
    expect(f.evidence).toEqual(confirmed);
  });
});

describe('the cross-check', () => {
  it('a release ends the follow-up though no end was heard: the socket cannot vouch for it, so its file waits for the grace', () => {
    const f = told(followUp({ '2': 1 }), { kind: 'ended', by: 'released' });
    expect(f.unheard).toBe(true);
    expect(nextStep(f, at())).toBe('look');
    apply(f, { kind: 'evidence', evidence: unknown });
    expect(nextStep(f, at({ looked: true }))).toBe('wait');
    expect(nextStep(f, at({ looked: true, graceOver: true }))).toBe('judge');
  });
});

describe('faults', () => {
  it('a uncertain line: an end known only by position is undone, the place dropped; a file seen is judged at once', () => {
    const f = told(followUp({ '2': 3 }), { kind: 'ended', by: 'line' }, { kind: 'uncertain' });
    expect([f.ended, f.place, f.unheard]).toEqual([undefined, undefined, true]);
    expect(nextStep(f, at())).toBe('wait');
    const g = told(followUp({ '2': 4 }), { kind: 'evidence', evidence: confirmed }, { kind: 'uncertain' });
    expect(nextStep(g, at())).toBe('judge');
  });

  it('an end found by a poll stays so when uncertain', () => {
    const f = told(followUp(), { kind: 'ended', by: 'idle' }, { kind: 'uncertain' });
    expect(f.ended).toBe('idle');
  });

  it('PLEX_CONFIRM_TIMEOUT from its start: expired; from its delivery while Plex does not answer; a file seen is judged, not expired', () => {
    const started = told(followUp(), { kind: 'running', at: T, first: true });
    expect(nextStep(started, at({ now: T + 300_000 }))).toBe('expire');
    expect(nextStep(followUp(), at({ now: T + 300_000 }))).toBe('wait');
    expect(nextStep(followUp(), at({ now: T + 300_000, unreachable: true }))).toBe('expire');
    const placed = told(followUp({ '2': 9 }), { kind: 'running', at: T, first: true }, { kind: 'evidence', evidence: confirmed });
    expect(nextStep(placed, at({ now: T + 300_000 }))).toBe('judge');
  });
});

describe('the verdict: asked once more only where a miss may be a scan never run', () => {
  const judged = (file: string | undefined, last: FollowUp['evidence'], watched: boolean) => verdict({ file, waitedMs: 1_000, seenRunning: true, last, watched }).result;

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
