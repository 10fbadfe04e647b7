// Back-pressure from the server: a media server that accepts every refresh at once queues what it cannot scan
// yet (Plex held 21,550 of them in a load test), and every follow-up then waited in its queue. A target that can
// tell how many of its scans are outstanding (accepted, not ended: `Target.outstanding`) gets no more than its
// cap; the folders left wait in our queue instead, where new requests for them merge into one scan. A folder
// whose previous scan the server still holds is not sent again until that scan ended: what the server holds is
// its follower's book (src/follow/engine.ts), asked here, not kept twice.
import type { Queue } from '../queue/store.js';
import type { Target } from '../scan.js';
import type { TargetHealth, TargetState } from './availability.js';

/** Scans a server may hold unfinished when MAX_OUTSTANDING is unset: see docs/configuration.md. */
export const DEFAULT_MAX_OUTSTANDING = 8;

/** The cap of a target that can tell its outstanding scans; undefined for one that cannot (no limit). */
export const capOf = (target: Target): number | undefined => (target.outstanding ? (target.maxOutstanding ?? DEFAULT_MAX_OUTSTANDING) : undefined);

/** How many more scans may go to the target now, beyond the `inFlight` deliveries being asked (each may become outstanding). */
export function serverRoom(target: Target, inFlight: number): number {
  const cap = capOf(target);
  return cap === undefined ? Number.POSITIVE_INFINITY : Math.max(0, cap - (target.outstanding?.() ?? 0) - inFlight);
}

/** The target's folders held behind their previous scan: the queue's reads pass over them, so they neither fill the lookahead nor hold others back. */
export const heldFolders = (target: Target): number[] => (target.outstanding ? (target.follower?.heldFolders?.() ?? []) : []);

/** What health shows of it: the server's outstanding scans and cap, and how long our next due folder has waited. */
export function pressure(state: TargetState, queue: Queue, now: number): Pick<TargetHealth, 'outstanding' | 'maxOutstanding' | 'dueWaitMs'> {
  const due = queue.pendingFor(state.target.name, heldFolders(state.target).length + 1, state.inFlight);
  const oldest = due.reduce((t, r) => Math.min(t, r.dueAt), now);
  const cap = capOf(state.target);
  return { ...(cap === undefined ? {} : { outstanding: state.target.outstanding?.() ?? 0, maxOutstanding: cap }), dueWaitMs: Math.max(0, now - oldest) };
}
