// One Plex follow-up as a small state machine: what is known of its scan (outstanding at Plex, or how its end
// became known) and of its file. Events change it (`apply`, through the record in follow-ups.ts, the only
// writer); `nextStep` is the one function that says whether it may be judged now, or what it waits for. The
// four entry points (the socket's scan ends, the /activities poll, the late path of a follow-up recorded after
// its scan ended, the section line) only turn what they learn into events: none of them decides.
//
//   outstanding ──(line passed its place | its file in an end | sections idle | cross-check)▶ ended
//        │                                                                                    │
//        └── file confirmed: judged at once, unless it holds a trusted place whose scan ──────┤
//            has not ended (its slot is Plex's until then)                                    ▼
//                                        ended: reads under way? wait · not looked up? look · then judge
//                                        (a file not found, or an end the socket did not tell of, waits out
//                                        its section's grace first)
import type { FollowItem } from '../../../scan.js';
import type { BatchConfirmation } from '../confirm.js';
import type { PlexTicket } from './follow-state.js';

/**
 * How its scan's end became known: its place passed in the line, an end whose items hold its file under its folder
 * (the items' own Part.file, whatever the line's count), its sections idle at a poll, or the cross-check.
 */
export type EndSeen = 'line' | 'items' | 'idle' | 'released';

export interface FollowUp {
  readonly key: string;
  readonly item: FollowItem;
  readonly ticket: PlexTicket;
  /** When follow() was called: the socket watched it only if it was open since. */
  readonly followedAt: number;
  /** The poll count when it was added: only a poll that began later can find its sections idle. */
  readonly addedAtPoll: number;
  /** Its place in each section's line at Plex, while the line can be trusted for it. */
  place?: Record<string, number>;
  seenRunning: boolean;
  /** When a poll saw its sections scanning with no earlier followed scan of them ahead: PLEX_CONFIRM_TIMEOUT counts from here. */
  startedAt?: number;
  /** Undefined while its scan is outstanding at Plex (what PLEX_MAX_OUTSTANDING counts). */
  ended?: EndSeen;
  /** What is known of its file: confirmed stays; not-found is final only after its section's grace. */
  evidence?: BatchConfirmation;
  /** Reads of scan ends' items under way that may still find its file: it is not judged before they are done. */
  reading?: Promise<void>;
  /** The socket cannot vouch for its scan (the cross-check ended it, or its place was uncertain): the listing is read too. */
  unheard?: boolean;
}

export type FollowEvent =
  /** A poll saw its sections scanning; `first`: no earlier followed scan of them was ahead of it. */
  | { kind: 'running'; at: number; first: boolean }
  | { kind: 'ended'; by: EndSeen }
  | { kind: 'evidence'; evidence: BatchConfirmation }
  | { kind: 'reading'; reads: Promise<void> }
  /**
   * Plex's events contradicted its section's line: its place proves nothing, and an end known only by position
   * is no end. It is judged by its file once its sections are idle.
   */
  | { kind: 'uncertain' };

export function apply(f: FollowUp, e: FollowEvent): void {
  switch (e.kind) {
    case 'running':
      f.seenRunning = true;
      if (e.first) f.startedAt ??= e.at;
      return;
    case 'ended':
      f.ended ??= e.by;
      if (e.by === 'line' || e.by === 'items') f.seenRunning = true;
      if (e.by === 'released') f.unheard = true;
      return;
    case 'evidence':
      // A file seen in the library stays so: a later lookup that cannot tell must not undo it.
      if (f.evidence?.state !== 'confirmed') f.evidence = e.evidence;
      return;
    case 'reading': {
      const reads = f.reading ? Promise.all([f.reading, e.reads]).then(() => undefined) : e.reads;
      f.reading = reads;
      void reads.finally(() => f.reading === reads && (f.reading = undefined));
      return;
    }
    case 'uncertain':
      f.place = undefined;
      f.unheard = true;
      if (f.ended === 'line') f.ended = undefined;
  }
}

/** What a follow-up does next. */
export type Step =
  | 'wait'
  /** Ask the library about its file (the database; the listing too when the socket cannot vouch for its scan). */
  | 'look'
  | 'judge'
  /** PLEX_CONFIRM_TIMEOUT ran out before anything could be told of its file: `unconfirmed`. */
  | 'expire';

export interface Moment {
  now: number;
  timeoutMs: number;
  /** Its sections have been idle for the grace since their latest request (idle-sections.ts). */
  graceOver: boolean;
  /** The library was asked about its file in this round, after its scan ended. */
  looked: boolean;
  /** Plex stopped answering: PLEX_CONFIRM_TIMEOUT counts from the delivery, not from a start never seen. */
  unreachable?: boolean;
}

/** The one decision: may this follow-up be judged now? */
export function nextStep(f: FollowUp, m: Moment): Step {
  const late = timedOut(f, m);
  if (f.evidence?.state === 'confirmed') return !f.place || f.ended || late ? 'judge' : 'wait';
  if (late) return 'expire';
  if (!f.ended || f.reading) return 'wait';
  if (!m.looked) return 'look';
  // An end the socket heard had its items read: a file still unknown then is final. A file the database lacks,
  // or an end found by a poll, waits for what Plex may still write.
  if (f.evidence?.state === 'not-found' || (f.ended !== 'line' && f.ended !== 'items')) return m.graceOver ? 'judge' : 'wait';
  return 'judge';
}

function timedOut(f: FollowUp, m: Moment): boolean {
  const from = m.unreachable ? f.item.deliveredAt : f.startedAt;
  return from !== undefined && m.now - from >= m.timeoutMs;
}
