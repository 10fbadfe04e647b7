// One Plex follow-up: what is known of its scan (outstanding at Plex, or how its end became known) and of its
// file (events written by `apply`), the one decision `nextStep`, and the words of the verdict. The follower
// (follower.ts, its polls) and what it hears (scan-ends.ts) only turn what Plex says into events: none decides.
//
//   outstanding ──(its slot passed in its section's queue | its file in an end | sections idle | cross-check)▶ ended
//        │                                                                                              │
//        └── file confirmed: judged at once, unless it holds a trusted slot whose scan has not ended ──┤
//            (the slot is Plex's until then)                                                           ▼
//                          ended: looks under way? wait · not looked up? look · then judge
//                          (a file not found, or an end the socket did not tell of, waits out its section's grace)
import type { FollowUp, Moment, Step } from '../../../follow/engine.js';
import { lookupCandidates } from '../../../paths/sidecar.js';
import type { ExternalIds, FollowResult } from '../../../scan.js';
import type { BatchConfirmation } from '../confirm.js';

/** What the Plex target hands its follower for one accepted scan (stored as JSON with the delivery). */
export interface PlexTicket {
  /** `type` (movie, show, …) picks the items to page through when nothing else can confirm; absent in old tickets. */
  sections: { id: string; title: string; type?: string }[];
  /** The file to confirm in the library, when the request named one and PLEX_CONFIRM_SCANS is on. */
  file?: string;
  /** The folder Plex was asked to scan (its form); absent in old tickets (the file's folder stands in). */
  folder?: string;
  /** The download's series/movie IDs, when PLEX_FIX_MISMATCHED is on. */
  ids?: ExternalIds;
  /**
   * Where each refresh stood in its section's queue of scans at Plex when Plex took it (PlexFollower.accepted):
   * `run` is the follower that counted, so a ticket read back after a restart is not placed in a new count.
   */
  accepted?: { run: string; at: number; seq: Record<string, number> };
}

/** How its scan's end became known: its slot passed, an end's items hold its file, its sections idle at a poll, the cross-check. */
export type EndSeen = 'queue' | 'items' | 'idle' | 'freed';

export interface PlexFollowUp extends FollowUp<PlexTicket> {
  /** The last look whose poll told it what runs (at first, the look it was followed at: only a later poll can find its sections idle). */
  polled: number;
  /** Its slot in each section's queue of scans at Plex, while the count can be trusted for it. */
  slot?: Record<string, number>;
  seenRunning: boolean;
  /** When a poll saw its sections scanning with no earlier followed scan of them ahead: PLEX_CONFIRM_TIMEOUT counts from here. */
  startedAt?: number;
  /** Undefined while its scan is outstanding at Plex (what PLEX_MAX_OUTSTANDING counts). */
  ended?: EndSeen;
  /** What is known of its file: confirmed stays; not-found is final only after its section's grace. */
  evidence?: BatchConfirmation;
  /** Looks under way that may still find its file (the library asked, scan ends' items read): it is not judged before they are done. */
  looking: number;
  /** The library was asked about its file since the last news of its scan. */
  looked?: boolean;
  /** The socket cannot vouch for its scan (the cross-check ended it, or its section's scans ran out of order): the listing is read too. */
  unseen?: boolean;
  /** Plex did not answer the last poll (why): PLEX_CONFIRM_TIMEOUT counts from the delivery. */
  unreachable?: string;
}

export type PlexEvent =
  /** A poll: the sections scanning, the follow-ups the cross-check freed, those behind an earlier followed scan of their section. */
  | { kind: 'polled'; look: number; at: number; running: ReadonlySet<string>; freed: ReadonlySet<string>; behind: ReadonlySet<string> }
  | { kind: 'polled'; look: number; unreachable: string }
  | { kind: 'ended'; by: EndSeen }
  | { kind: 'looking' }
  /** What a look found of files, by follow-up; `library`: the library was asked, not only the items of scan ends (news of the scan). */
  | { kind: 'looked'; evidence: ReadonlyMap<string, BatchConfirmation>; library: boolean }
  /** Plex's events contradicted its section's count: its slot proves nothing, and an end known only by position is no end. */
  | { kind: 'reordered' };

export interface PlexMoment extends Moment {
  timeoutMs: number;
  /** Its sections have been idle for the grace since their latest request. */
  graceOver(f: PlexFollowUp): boolean;
  /** Since when the notification socket has been open; undefined while it is not. */
  socketSince?: number;
}

export function apply(f: PlexFollowUp, e: PlexEvent): void {
  switch (e.kind) {
    case 'polled':
      f.polled = e.look;
      f.unreachable = 'unreachable' in e ? e.unreachable : undefined;
      if ('unreachable' in e) return;
      if (e.freed.has(f.key)) end(f, 'freed');
      else if (f.ticket.sections.some((s) => e.running.has(s.id))) {
        f.seenRunning = true;
        if (!e.behind.has(f.key)) f.startedAt ??= e.at;
        return;
      }
      // Plex took the refresh before this poll and its sections are idle now: the scan is over.
      else end(f, 'idle');
      f.looked = false;
      return;
    case 'ended':
      end(f, e.by);
      f.looked = false;
      return;
    case 'looking':
      f.looking++;
      return;
    case 'looked': {
      Object.assign(f, { looking: f.looking - 1, looked: e.library });
      const evidence = e.evidence.get(f.key);
      // A file seen in the library stays so: a later lookup that cannot tell must not undo it.
      if (evidence && f.evidence?.state !== 'confirmed') f.evidence = evidence;
      return;
    }
    case 'reordered':
      Object.assign(f, { slot: undefined, unseen: true });
      if (f.ended === 'queue') f.ended = undefined;
  }
}

function end(f: PlexFollowUp, by: EndSeen): void {
  f.ended ??= by;
  if (by === 'queue' || by === 'items') f.seenRunning = true;
  if (by === 'freed') f.unseen = true;
}

/** The one decision: what this follow-up does next ('poll': the look at what Plex runs; 'look': the library asked about its file). */
export function nextStep(f: PlexFollowUp, m: PlexMoment): Step<'poll' | 'look'> {
  const from = f.unreachable ? f.item.deliveredAt : f.startedAt;
  const late = from !== undefined && m.now - from >= m.timeoutMs;
  if (f.evidence?.state === 'confirmed' && (!f.slot || f.ended || late)) return 'judge';
  if (late) return 'expire';
  if (f.polled < m.look) return 'poll';
  if (!f.ended || f.looking > 0) return 'wait';
  if (!f.looked) return f.unreachable ? 'wait' : 'look';
  // An end the socket told of had its items read: a file still unknown then is final. A file the database lacks,
  // or an end found by a poll, waits for what Plex may still write.
  if (f.evidence?.state === 'not-found' || (f.ended !== 'queue' && f.ended !== 'items')) return m.graceOver(f) ? 'judge' : 'wait';
  return 'judge';
}

/** The socket has told what Plex created or updated since before this follow-up began. */
export const sawAll = (f: PlexFollowUp, m: PlexMoment): boolean => m.socketSince !== undefined && m.socketSince <= f.followedAt;

/**
 * The words of a follow-up judged: `confirmed` (seen in the library), `not-found` (only the database can say so),
 * `scanned` (Plex finished the scan; nothing could tell more), `unconfirmed` (its end never seen).
 */
export function verdictOf(f: PlexFollowUp, m: PlexMoment, step: 'judge' | 'expire'): FollowResult {
  if (step === 'judge') return verdict({ file: f.ticket.file, waitedMs: m.now - f.item.deliveredAt, seenRunning: f.seenRunning, last: f.evidence, watched: sawAll(f, m) });
  const why = f.unreachable ? `Plex did not say whether the scan ended (${f.unreachable})` : `Plex was still scanning after ${secs(m.now - f.item.deliveredAt)} s (PLEX_CONFIRM_TIMEOUT)`;
  return { state: 'unconfirmed', detail: `${why}; not confirmed, trash and analyze skipped.` };
}

const HOW: Record<'notifications' | 'database' | 'listing', string> = {
  notifications: "among the items Plex's notifications said the scan added or changed",
  database: "in Plex's database",
  listing: "among the section's recently added items",
};

/** What to check when Plex's database says a scanned file is not in the library. */
const NOT_FOUND_ADVICE =
  'Check that Plex sees the file at this path (its mounts, and SERVER_PATH_MAPPINGS or the target\'s PATH_MAPPINGS), that the file is not in a folder Plex ignores (.plexignore), and that its name follows Plex\'s naming rules.';

/** `watched`: the socket told all Plex created or updated through the follow-up; a file with no sign may never have been scanned. */
export function verdict(v: { file?: string; waitedMs: number; seenRunning: boolean; last?: BatchConfirmation; watched?: boolean }): FollowResult {
  const waited = secs(v.waitedMs);
  const last = v.last;
  if (last?.state === 'confirmed') return { state: 'confirmed', detail: `In the library after ${waited} s (${HOW[last.via]}).` };
  const how = v.seenRunning ? 'Plex finished the scan' : 'Plex showed no scan running';
  if (!v.file) return { state: 'scanned', detail: `${how} after ${waited} s.` };
  if (last?.state === 'not-found') return { state: 'not-found', detail: `Not in the library after the scan ended: ${last.reason}. ${NOT_FOUND_ADVICE}` };
  // Not seen is not absent: an unchanged file (a re-sent import, a rename Plex knew) makes no notification. But
  // Plex may also have taken the refresh and never run it (rivenmedia/riven#873): asked once more where the socket
  // saw all Plex created, then as it is.
  const detail = `${how} after ${waited} s; whether the file is in the library is not known (${last?.reason ?? 'no answer'}).`;
  // A subtitle or audio sidecar is no item of its own: no sign of it is no sign of a scan not run.
  const sidecar = lookupCandidates(v.file)[0] !== v.file;
  return { state: 'scanned', detail, ...(v.watched && !sidecar ? { askAgain: true } : {}) };
}

const secs = (ms: number): string => (Math.max(0, ms) / 1000).toFixed(1);

/** The files of these follow-ups found among the items of scan ends (file → its item), as evidence by follow-up. */
export function foundAmong(fs: PlexFollowUp[], items: ReadonlyMap<string, { ratingKey: string; parentRatingKey?: string }>): Map<string, BatchConfirmation> {
  const evidence = new Map<string, BatchConfirmation>();
  for (const f of fs) {
    const item = f.ticket.file === undefined ? undefined : items.get(f.ticket.file);
    if (item) evidence.set(f.key, { state: 'confirmed', via: 'notifications', ratingKey: item.ratingKey, parentRatingKey: item.parentRatingKey });
  }
  return evidence;
}

/** When Plex took the follow-up's refresh (its delivery, for a ticket without the slot). */
export const acceptedAt = (f: PlexFollowUp): number => f.ticket.accepted?.at ?? f.item.deliveredAt;
