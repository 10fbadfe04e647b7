// The one decision of a Jellyfin or Emby follow-up (src/targets/mediabrowser/follow-up.ts `nextStep`): for each
// state and moment, whether it waits, reads the libraries' refresh states, lists the refreshed folder, or is
// judged, each row from what the server does (references: servers-code J4, J6, J7 and the model's citations).
// Then `apply` and the words a late listing ends with.
import { describe, expect, it } from 'vitest';
import { apply, FOLLOW_TIMINGS, nextStep, verdictOf, type MediaBrowserFollowUp, type MediaBrowserMoment } from '../../src/targets/mediabrowser/follow-up.js';
import type { MediaBrowserTicket } from '../../src/targets/mediabrowser/verdict.js';

const LOOK = 5;
const ticket: MediaBrowserTicket = { file: '/tv/Show/Season 01/e01.mkv', folder: '/tv/Show/Season 01', via: 'item', libraries: ['tv'] };

function followUp(more: Partial<MediaBrowserFollowUp> = {}, via: MediaBrowserTicket['via'] = 'item'): MediaBrowserFollowUp {
  return { key: '1:1', item: { ref: { folderId: 1, generation: 1 }, folder: ticket.folder, event: 'Download', deliveredAt: 0, ticket }, ticket: { ...ticket, via }, followedAt: 0, ...more };
}

function moment(now: number, more: Partial<MediaBrowserMoment> = {}): MediaBrowserMoment {
  return { now, look: LOOK, timings: FOLLOW_TIMINGS, startedAt: -1_000, lastMonitorChange: () => undefined, ...more };
}

const readNow = (busy: boolean) => ({ refresh: { look: LOOK, busy, queueBusy: busy } });
const found = { how: 'listing', listed: { state: 'found', where: 'the files under /tv/Show' } } as const;
const absent = { how: 'listing', listed: { state: 'absent', where: 'the files under /tv/Show' } } as const;
const LIMIT = FOLLOW_TIMINGS.timeoutMs;

describe('when a follow-up may be listed (nextStep)', () => {
  it.each([
    // An item refresh is only queued (ItemRefreshController.cs L90-91 QueueRefresh High): nothing to list before the settle.
    ['an item refresh before the settle', followUp(), moment(9_999), 'wait'],
    ['an item refresh once settled: the refresh states are read first', followUp(), moment(10_000), 'ask'],
    // RefreshStatus Active while a folder is validated, Queued while the library waits (LibraryManager.cs L1331-1335).
    ['its library Active or Queued at this look', followUp(readNow(true)), moment(10_000), 'wait'],
    ['states read at an earlier look are read again', followUp({ refresh: { look: LOOK - 1, busy: true, queueBusy: true } }), moment(12_000), 'ask'],
    ['its library Idle at this look', followUp(readNow(false)), moment(10_000), 'list'],
    ['its library still busy at the time limit: listed anyway', followUp(readNow(true)), moment(LIMIT), 'list'],
    // LibraryChanged goes out LibraryUpdateDuration (30 s) after the last change (LibraryChangedNotifier.cs L176-202,
    // ServerConfiguration.cs L178): a socket that watched it is given that and the grace before the listing.
    ['a socket open since the delivery: the message is waited for', followUp(), moment(44_999, { socketSince: 0 }), 'wait'],
    ['a socket open since the delivery, message time and grace over', followUp(), moment(45_000, { socketSince: 0 }), 'ask'],
    ['a socket opened after the message could have gone out', followUp(), moment(10_000, { socketSince: 30_001 }), 'ask'],
    ['a follow-up resumed after a restart: the message may have gone to no one', followUp(), moment(10_000, { socketSince: 0, startedAt: 5_000 }), 'ask'],
    // The monitor refreshes LibraryMonitorDelay (60 s) after the last change nearby, each restarting its timer
    // (LibraryMonitor.cs L383-425, FileRefresher.cs L63-86, ServerConfiguration.cs L172).
    ['media-updated: the monitor delay after the delivery', followUp({}, 'monitor'), moment(69_999), 'wait'],
    ['media-updated: monitor delay and settle over', followUp({}, 'monitor'), moment(70_000), 'ask'],
    ['media-updated: a later change under the library restarted the timer', followUp({}, 'monitor'), moment(70_000, { lastMonitorChange: () => 20_000 }), 'wait'],
    ['media-updated: counted from that later change', followUp({}, 'monitor'), moment(90_000, { lastMonitorChange: () => 20_000 }), 'ask'],
  ] as const)('%s: %s', (_what, f, m, step) => {
    expect(nextStep(f, m)).toBe(step);
  });
});

describe('when a follow-up is judged (nextStep)', () => {
  const listedNow = { lookedAt: { look: LOOK, at: 10_000 } };
  const listedBefore = { lookedAt: { look: LOOK - 1, at: 10_000 } };
  it.each([
    ['a listing under way', followUp({ looking: true, ...listedNow }), moment(12_000), 'wait'],
    // An added or updated item whose Path is the file, or the deleted folder's item among ItemsRemoved (J4).
    ['LibraryChanged named its file, even while a listing runs', followUp({ looking: true, seen: { how: 'socket' } }), moment(12_000), 'judge'],
    ['LibraryChanged named its item removed', followUp({ seen: { how: 'removed', by: 'socket' } }), moment(12_000), 'judge'],
    ['the deleted folder still listed once the refresh is over', followUp({ seen: { how: 'still-listed', path: '/tv/Show' }, ...listedNow }), moment(12_000), 'judge'],
    ['the listing found its file', followUp({ seen: found, ...listedNow }), moment(12_000), 'judge'],
    ['the listing did not find it and the queue is idle', followUp({ seen: absent, missing: true, queueBusy: false, ...listedNow }), moment(12_000), 'judge'],
    // The queue is not first in first out, and a walk the monitor queued reads Idle until it runs (J6): a missing
    // file while the queue is busy says nothing yet.
    ['missing while the queue is busy, at the look that listed', followUp({ seen: absent, missing: true, queueBusy: true, ...listedNow }), moment(12_000), 'wait'],
    ['missing while the queue was busy, at a later look: listed again', followUp({ seen: absent, missing: true, queueBusy: true, ...listedBefore }), moment(12_000), 'ask'],
    ['missing while the queue was busy, listed again once idle', followUp({ seen: absent, missing: true, queueBusy: true, ...listedBefore, ...readNow(false) }), moment(12_000), 'list'],
    ['missing while the queue is busy, listed past the time limit', followUp({ seen: absent, missing: true, queueBusy: true, lookedAt: { look: LOOK, at: LIMIT } }), moment(LIMIT), 'judge'],
    ['nothing to list without the whole library (not missing) while the queue is busy', followUp({ seen: { how: 'listing', listed: { state: 'unknown', why: 'x' } }, missing: false, queueBusy: true, ...listedNow }), moment(12_000), 'judge'],
    ['the listing failed at this look', followUp({ failed: { error: 'HTTP 500', at: 10_000 }, ...listedNow }), moment(10_000), 'wait'],
    ['the listing failed at an earlier look: asked again', followUp({ failed: { error: 'HTTP 500', at: 10_000 }, ...listedBefore }), moment(12_000), 'ask'],
    ['the listing failed past the time limit', followUp({ failed: { error: 'HTTP 500', at: LIMIT }, lookedAt: { look: LOOK, at: LIMIT } }), moment(LIMIT), 'judge'],
  ] as const)('%s: %s', (_what, f, m, step) => {
    expect(nextStep(f, m)).toBe(step);
  });
});

describe('what a follow-up learns (apply) and its words (verdictOf)', () => {
  it("a new listing forgets the last one's answer; the first listing that met a busy queue is kept", () => {
    const f = followUp();
    apply(f, { kind: 'looking', look: 1, at: 10_000 });
    apply(f, { kind: 'seen', seen: absent, missing: true, queueBusy: true });
    expect(f).toMatchObject({ looking: false, missing: true, busySince: 10_000 });
    apply(f, { kind: 'looking', look: 2, at: 12_000 });
    expect(f).toMatchObject({ looking: true, seen: undefined, missing: undefined, busySince: 10_000 });
    apply(f, { kind: 'seen', seen: absent, missing: true, queueBusy: true });
    expect(f.busySince).toBe(10_000);
  });

  it('a listing past the time limit says scanned with what it waited for, never not-found', () => {
    const late = followUp({ seen: absent, missing: true, queueBusy: true, lookedAt: { look: 9, at: LIMIT } });
    expect(verdictOf('Jellyfin', late, moment(LIMIT))).toMatchObject({ state: 'scanned', detail: expect.stringContaining('the library was still refreshing after 600 s') });
    const queued = { ...late, busySince: 20_000 };
    expect(verdictOf('Jellyfin', queued, moment(LIMIT)).detail).toContain("the server's refresh queue was still busy after 600 s");
    expect(verdictOf('Jellyfin', { ...late, lookedAt: { look: 9, at: 20_000 } }, moment(20_000)).state).toBe('not-found');
  });

  it('a listing the server never answered, past the time limit: scanned, with its error', () => {
    const f = followUp({ failed: { error: 'HTTP 500', at: LIMIT }, lookedAt: { look: 9, at: LIMIT } });
    expect(verdictOf('Emby', f, moment(LIMIT))).toMatchObject({ state: 'scanned', detail: expect.stringContaining('the server did not answer the listing: HTTP 500') });
  });
});
