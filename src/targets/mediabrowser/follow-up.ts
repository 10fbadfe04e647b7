// One Jellyfin or Emby follow-up: what is known of its refresh and its file (events written by `apply`), and the
// one decision `nextStep`: wait, read the libraries' refresh states, list the refreshed folder, or judge. The
// follower (follower.ts) only turns what the socket and its looks at the server say into events.
//
//   wait until the refresh can be over ──▶ ask (RefreshStatus) ──busy──▶ wait (listed anyway past the time limit)
//        │                                      └─ idle ─▶ list ──▶ found / absent / unknown ──▶ judge
//        └── LibraryChanged names its file or item ──▶ judge     └─ missing while the server's queue is busy:
//                                                                   listed again at a later look
import type { FollowUp, Moment, Step } from '../../follow/engine.js';
import type { FollowResult } from '../../scan.js';
import { mediaBrowserVerdict, type MediaBrowserTicket, type Seen } from './verdict.js';

/** How long each step may take, with the server's own defaults they follow. */
export const FOLLOW_TIMINGS = {
  /** Between two looks at the server while follow-ups wait. */
  pollMs: 2_000,
  /** After the scan was sent, before a listing: the refresh was only queued (ProviderManager.QueueRefresh). */
  settleMs: 10_000,
  /** SCAN_METHOD media-updated: the library monitor refreshes after LibraryMonitorDelay, 60 s by default. */
  monitorDelayMs: 60_000,
  /** Jellyfin's LibraryUpdateDuration: LibraryChanged goes out 30 s after the last change (ServerConfiguration.cs L178). */
  libraryUpdateMs: 30_000,
  /** How much longer a LibraryChanged is waited for before the listing takes over. */
  socketGraceMs: 15_000,
  /** The longest a follow-up waits for the refresh to be over before it lists anyway. */
  timeoutMs: 600_000,
};

export interface MediaBrowserFollowUp extends FollowUp<MediaBrowserTicket> {
  looking?: boolean;
  /** The last look that listed: its number and when it began. */
  lookedAt?: { look: number; at: number };
  /** Its libraries' refresh states as read at look number `look`; `queueBusy`: any library of the server's. */
  refresh?: { look: number; busy: boolean; queueBusy: boolean };
  /** What was seen of its file (or of a deleted folder's item). */
  seen?: Seen;
  /** The listing did not find the file (or, for a folder with no item of its own, not among the newest). */
  missing?: boolean;
  /** The server's queue was busy when the listing ended: a missing file says nothing yet. */
  queueBusy?: boolean;
  /** When the first listing that found the file missing while the server's queue was busy began. */
  busySince?: number;
  failed?: { error: string; at: number };
}

export type MediaBrowserEvent =
  | { kind: 'refresh'; look: number; busy: boolean; queueBusy: boolean }
  | { kind: 'looking'; look: number; at: number }
  | { kind: 'seen'; seen: Seen; missing?: boolean; queueBusy?: boolean }
  | { kind: 'failed'; error: string; at: number };

export interface MediaBrowserMoment extends Moment {
  timings: typeof FOLLOW_TIMINGS;
  /** When the follower started: a delivery made before it was made by an earlier run, while no socket listened. */
  startedAt: number;
  /** Since when a socket that can hear LibraryChanged has been open; undefined while none is. */
  socketSince?: number;
  /** When a change under these libraries last went to the library monitor (media-updated). */
  lastMonitorChange(libraries: string[]): number | undefined;
}

export function apply(f: MediaBrowserFollowUp, e: MediaBrowserEvent): void {
  switch (e.kind) {
    case 'refresh':
      f.refresh = { look: e.look, busy: e.busy, queueBusy: e.queueBusy };
      return;
    case 'looking':
      // A new listing: what the last one said is no longer what is known.
      Object.assign(f, { looking: true, lookedAt: { look: e.look, at: e.at }, seen: undefined, missing: undefined, queueBusy: undefined, failed: undefined });
      return;
    case 'seen':
      Object.assign(f, { looking: false, seen: e.seen, missing: e.missing, queueBusy: e.queueBusy });
      if (e.missing && e.queueBusy) f.busySince ??= f.lookedAt?.at;
      return;
    case 'failed':
      Object.assign(f, { looking: false, failed: { error: e.error, at: e.at } });
  }
}

export function nextStep(f: MediaBrowserFollowUp, m: MediaBrowserMoment): Step<'ask' | 'list'> {
  const t = m.timings;
  const lateAt = (at: number) => at - f.item.deliveredAt >= t.timeoutMs;
  const listedNow = f.lookedAt?.look === m.look;
  if (f.seen) {
    // A file missing while the server's queue was busy (a refresh of ours may still wait behind a walk: its queue is
    // not first in first out) is no verdict before the time limit: listed again at a later look.
    const unsure = f.seen.how === 'listing' && f.missing && f.queueBusy && !lateAt(f.lookedAt?.at ?? m.now);
    if (!unsure) return 'judge';
    if (listedNow) return 'wait';
  }
  if (f.looking) return 'wait';
  if (f.failed) {
    if (lateAt(f.failed.at)) return 'judge';
    if (listedNow) return 'wait'; // asked again at the next look
  }
  if (m.now < listFrom(f, m)) return 'wait';
  if (f.refresh?.look !== m.look) return 'ask';
  // Its libraries still Active or Queued: the refresh is not over; past the time limit it is listed anyway.
  return f.refresh.busy && !lateAt(m.now) ? 'wait' : 'list';
}

/**
 * The listing waits for LibraryChanged when the socket watches the follow-up: the token may hear it, and the
 * socket has been open since before the message could go out (LibraryUpdateDuration after the refresh's last
 * change, so never sooner than that after the refresh began). A follow-up resumed after a restart is not watched:
 * the message may have gone out while nothing listened.
 */
function listFrom(f: MediaBrowserFollowUp, m: MediaBrowserMoment): number {
  const t = m.timings;
  // When the server has started the refresh: at once, or LibraryMonitorDelay after the last change nearby, since
  // every change to the same path, a child, a parent or a sibling restarts the monitor's timer (LibraryMonitor.cs
  // L383-425, FileRefresher.cs L63-86): counted from the last change we sent under the follow-up's libraries.
  const from = f.ticket.via !== 'monitor' ? f.item.deliveredAt : Math.max(f.item.deliveredAt, m.lastMonitorChange(f.ticket.libraries) ?? -Infinity) + t.monitorDelayMs;
  const watched = m.socketSince !== undefined && f.item.deliveredAt >= m.startedAt && m.socketSince <= from + t.libraryUpdateMs;
  return from + (watched ? t.libraryUpdateMs + t.socketGraceMs : t.settleMs);
}

/** The words of a follow-up judged: what was seen, or why the listing could not say. */
export function verdictOf(server: string, f: MediaBrowserFollowUp, m: MediaBrowserMoment): FollowResult {
  const t = m.timings;
  const seen: Seen = f.seen ?? { how: 'listing', listed: { state: 'unknown', why: `the server did not answer the listing: ${f.failed?.error}` } };
  const late = f.lookedAt && f.lookedAt.at - f.item.deliveredAt >= t.timeoutMs;
  // A listing past the time limit waited for the library, unless an earlier one found the server's queue busy.
  const busy = f.busySince !== undefined && f.busySince < (f.lookedAt?.at ?? m.now);
  const waited = `the ${busy ? "server's refresh queue" : 'library'} was still ${busy ? 'busy' : 'refreshing'} after ${Math.round(t.timeoutMs / 1000)} s`;
  return mediaBrowserVerdict(server, m.now - f.item.deliveredAt, seen, late ? waited : undefined);
}
