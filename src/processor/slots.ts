// How many folders each target may be sent now, and which: its slots (one while a pause is set, else its
// concurrency), the room its server's own queue leaves under the cap, and the checks kept that far ahead.
import type { Queue } from '../queue/store.js';
import type { DueDelivery, Target } from '../scan.js';
import type { TargetState } from './availability.js';
import { heldFolders, serverRoom } from './server-backlog.js';

/** Folders checked ahead of delivery, in multiples of a target's slots (the rest wait, unchecked). */
const LOOKAHEAD = 4;

/** Deliveries in flight per target when the target sets no concurrency and no pause. */
export const DEFAULT_CONCURRENCY = 8;

export function slotsOf(target: Target): number {
  return target.pauseMs > 0 ? 1 : Math.max(1, target.concurrency ?? DEFAULT_CONCURRENCY);
}

/**
 * How many more folders to check now: enough to keep every reachable target LOOKAHEAD × its slots ahead.
 * With no target reachable the checks go on as before (a missing file still runs out of checks meanwhile).
 */
export function checkRoom(states: TargetState[], queue: Queue): number {
  let room = 0;
  let anyUp = false;
  for (const state of states) {
    if (!state.up) continue;
    anyUp = true;
    const want = LOOKAHEAD * slotsOf(state.target);
    room = Math.max(room, want - queue.pendingCount(state.target.name, want, heldFolders(state.target)));
  }
  return anyUp ? room : Number.POSITIVE_INFINITY;
}

/** Launches the due folders a reachable target has room for now, and marks it waiting when its server is full. */
export function fillSlots(state: TargetState, now: number, queue: Queue, launch: (row: DueDelivery) => void): void {
  state.waitingOnServer = false;
  const pause = state.target.pauseMs;
  const limit = slotsOf(state.target);
  // Beside the slots, the server's own queue: no more scans than its cap may be accepted and not ended.
  const room = serverRoom(state.target, state.inFlight.size);
  if (room <= 0) state.waitingOnServer = true;
  let free = Math.min(limit - state.inFlight.size, room);
  if (free <= 0) return;
  if (pause > 0 && now < state.lastFinishedAt + pause) return;
  const held = heldFolders(state.target);
  const rows = queue.pendingFor(state.target.name, free, [...state.inFlight, ...held]);
  for (const row of rows) launch(row);
  // Nothing could go but folders held behind their previous scan: the end of one of those scans wakes the loop.
  if (rows.length === 0 && held.length > 0 && queue.pendingCount(state.target.name, 1, state.inFlight) > 0) state.waitingOnServer = true;
}
