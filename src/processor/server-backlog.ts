// Back-pressure from the server: a media server that accepts every refresh at once queues what it cannot scan
// yet (Plex held 21,550 of them in a load test), and every follow-up then waited in its queue. A target that can
// tell how many of its scans are outstanding (accepted, not ended: `Target.outstanding`) gets no more than its
// cap; the folders left wait in our queue instead, where new requests for them merge into one scan. A folder
// whose previous scan the server still holds is not sent again until that scan ended.
import type { Queue } from '../queue/store.js';
import type { Target } from '../scan.js';
import type { TargetHealth, TargetState } from './availability.js';

/** Scans a server may hold unfinished when MAX_OUTSTANDING is unset: see docs/configuration.md. */
export const DEFAULT_MAX_OUTSTANDING = 8;

export class ServerBacklog {
  /** Per target: the folders whose accepted scan is still followed (sending one again would queue a duplicate there). */
  private readonly held = new Map<string, Set<number>>();

  /** The cap of a target that can tell its outstanding scans; undefined for one that cannot (no limit). */
  cap(target: Target): number | undefined {
    return target.outstanding ? (target.maxOutstanding ?? DEFAULT_MAX_OUTSTANDING) : undefined;
  }

  /** Scans the server holds unfinished (0 for a target that cannot tell). */
  outstanding(target: Target): number {
    return target.outstanding?.() ?? 0;
  }

  /**
   * How many more scans may go to the target now, beyond the `inFlight` deliveries already being asked (each may
   * become outstanding): Infinity for a target without the capability.
   */
  room(target: Target, inFlight: number): number {
    const cap = this.cap(target);
    if (cap === undefined) return Number.POSITIVE_INFINITY;
    return Math.max(0, cap - this.outstanding(target) - inFlight);
  }

  /** The server accepted a scan of the folder that its follower now follows. */
  accepted(target: Target, folderId: number): void {
    if (!target.outstanding) return;
    let folders = this.held.get(target.name);
    if (!folders) this.held.set(target.name, (folders = new Set()));
    folders.add(folderId);
  }

  /** Scans followed since before a restart are still outstanding on their server. */
  resume(targets: Target[], queue: Queue): void {
    for (const target of targets) if (target.outstanding) for (const row of queue.following(target.name)) this.accepted(target, row.ref.folderId);
  }

  /** The follow-up of the folder's scan ended (whatever its outcome, or superseded because re-requested). */
  ended(target: string, folderId: number): void {
    this.held.get(target)?.delete(folderId);
  }

  /**
   * The target's folders held behind their previous scan: the queue's reads pass over them, so however many there
   * are they neither fill the checks' lookahead nor keep the folders behind them from the server.
   */
  heldFolders(target: string): number[] {
    return [...(this.held.get(target) ?? [])];
  }

  /** What health shows of it: the server's outstanding scans and cap, and how long our next due folder has waited. */
  pressure(state: TargetState, queue: Queue, now: number): Pick<TargetHealth, 'outstanding' | 'maxOutstanding' | 'dueWaitMs'> {
    const name = state.target.name;
    const due = queue.pendingFor(name, (this.held.get(name)?.size ?? 0) + 1, state.inFlight);
    const oldest = due.reduce((t, r) => Math.min(t, r.dueAt), now);
    const cap = this.cap(state.target);
    return { ...(cap === undefined ? {} : { outstanding: this.outstanding(state.target), maxOutstanding: cap }), dueWaitMs: Math.max(0, now - oldest) };
  }
}
