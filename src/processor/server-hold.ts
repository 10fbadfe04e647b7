// A server that says "later": its 429 or 503 with Retry-After holds every delivery to that server (all its
// folders, not only the one that got the answer) until the time it named, bounded by SERVER_SCAN_RETRY_MAX_DELAY.
// Without the header, or with one that cannot be read, the folder backs off on its own as for any failure. The hold
// lives in memory only: after a restart the answered folder still waits in the queue until then, the others may
// be sent early once, and the server's next "later" holds them again.
import type { Logger } from '../log/logger.js';
import { retryAfterMs } from '../http/retry-after.js';
import type { ScanOutcome, Target } from '../scan.js';

export interface ServerHold {
  /** Nothing is sent to the server before this (ms since the epoch). */
  until: number;
  /** What the server said, for people: "Retry-After: 20". */
  asked: string;
}

/** What the processor keeps of a target that a hold concerns. */
interface Holdable {
  target: Target;
  hold?: ServerHold;
}

/** The hold an answer asks for, or undefined for an answer that asks none (or none that can be read). */
export function askedHold(outcome: ScanOutcome, now: number, maxMs: number): ServerHold | undefined {
  if (outcome.status !== 'retry' || outcome.targetDown || outcome.retryAfter === undefined) return undefined;
  const ms = retryAfterMs(outcome.retryAfter, now);
  return ms === undefined ? undefined : { until: now + Math.min(ms, maxMs), asked: `Retry-After: ${outcome.retryAfter.trim()}` };
}

/** Is the server being left alone now? */
export function isHeld(state: Holdable, now: number): boolean {
  return state.hold !== undefined && now < state.hold.until;
}

/**
 * Holds the server. A hold already running is extended, not said again: several scans in flight answered "later"
 * together make one hold and one log line, whatever the number of folders.
 */
export function holdServer(state: Holdable, hold: ServerHold, now: number, error: string, logger: Logger): void {
  const running = isHeld(state, now);
  state.hold = running && state.hold!.until >= hold.until ? state.hold : hold;
  if (running) return;
  logger.warn(
    { target: state.target.name, until: new Date(hold.until).toISOString(), asked: hold.asked },
    `${state.target.name} asked to be left alone (${hold.asked}): nothing is sent to it until ${clockTime(hold.until)}, then its folders go again. ${error}`,
  );
}

/** When the holds now running end: the loop wakes then, not for the held servers' due folders. */
export function holdEnds(states: Holdable[], now: number): number[] {
  return states.filter((s) => isHeld(s, now)).map((s) => s.hold!.until);
}

/** What health (the dashboard, /health, the API) shows of a hold. */
export function holdShown(state: Holdable, now: number): { heldUntil?: number; heldAsked?: string } {
  return isHeld(state, now) ? { heldUntil: state.hold!.until, heldAsked: state.hold!.asked } : {};
}

/** HH:MM:SS in the relay's own time zone, as its console log lines give the time. */
export function clockTime(at: number): string {
  return new Date(at).toTimeString().slice(0, 8);
}
