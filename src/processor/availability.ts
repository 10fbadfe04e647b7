// Whether each target answers: its slot state, marked down when it gives no answer, probed with backoff while
// down, and asked again when it has been idle (so a wrong token or a stopped server shows before a scan is due).
// Down is per server and only for silence: an answer that refuses one folder's scan is that folder's to back off.
import type { Activity } from '../activity.js';
import type { Clock } from '../clock.js';
import type { Logger } from '../log/logger.js';
import type { Queue } from '../queue/store.js';
import type { SocketState, Target } from '../scan.js';
import { isHeld, type ServerHold } from './server-hold.js';

export interface TargetHealth {
  name: string;
  kind: string;
  up: boolean;
  lastError?: string;
  downSince?: number;
  nextProbeAt?: number;
  inFlight: number;
  scanned: number;
  failed: number;
  /** Scans the server accepted and has not ended, and its cap (targets that can tell: Plex). */
  outstanding?: number;
  maxOutstanding?: number;
  /** How long the next due folder for this target has waited since it was due (0: none waits). */
  dueWaitMs?: number;
  /** The server asked to be left alone (a 429 or 503 with Retry-After): nothing goes to it before this. */
  heldUntil?: number;
  /** What it said, e.g. "Retry-After: 20". */
  heldAsked?: string;
  /** Its follower's notification socket (Plex, Jellyfin, Emby): its state and how long ago the server last sent a frame. */
  socket?: { state: SocketState; lastFrameAgeMs?: number; why?: string };
  /** What people should know of the server's own settings (Target.serverNotes): Jellyfin's real-time monitor. */
  notes?: string[];
}

/** One target's slots and health, as the processor keeps them. */
export interface TargetState {
  target: Target;
  up: boolean;
  lastError?: string;
  downSince?: number;
  probeDelayMs: number;
  nextProbeAt: number;
  probing: boolean;
  /** When the target last showed it answers (a probe or a scan); idle targets are probed a minute after. */
  lastHeardAt: number;
  inFlight: Set<number>;
  lastFinishedAt: number;
  scanned: number;
  failed: number;
  /** The last pass found it at its cap of outstanding scans, or with only folders whose scan it still holds. */
  waitingOnServer: boolean;
  /** The server asked for a while without requests (Retry-After; src/processor/server-hold.ts). */
  hold?: ServerHold;
}

const PROBE_FIRST_MS = 1_000;
const PROBE_MAX_MS = 30_000; // a target that comes back is used again within this
/** The "folders resume" count stops here: counting a backlog of 100,000 for a log line is not worth it. */
const DUE_COUNT_LIMIT = 10_000;
export const IDLE_PROBE_MS = 60_000;

export function newTargetState(target: Target): TargetState {
  return { target, up: true, probeDelayMs: 0, nextProbeAt: 0, probing: false, lastHeardAt: -Infinity, inFlight: new Set(), lastFinishedAt: 0, scanned: 0, failed: 0, waitingOnServer: false };
}

export function healthOf(s: TargetState): TargetHealth {
  return {
    name: s.target.name,
    kind: s.target.kind,
    up: s.up,
    lastError: s.lastError,
    downSince: s.downSince,
    nextProbeAt: s.up ? undefined : s.nextProbeAt,
    inFlight: s.inFlight.size,
    scanned: s.scanned,
    failed: s.failed,
    ...notesOf(s.target),
  };
}

/** What health shows of a target's notification socket, once its follower opened one. */
export function socketShown(target: Target, now: number): Pick<TargetHealth, 'socket'> {
  const status = target.follower?.socketStatus?.();
  if (!status) return {};
  const age = status.lastFrameAt === undefined ? {} : { lastFrameAgeMs: Math.max(0, now - status.lastFrameAt) };
  return { socket: { state: status.state, ...age, ...(status.why ? { why: status.why } : {}) } };
}

function notesOf(target: Target): { notes?: string[] } {
  const notes = target.serverNotes?.() ?? [];
  return notes.length ? { notes } : {};
}

export interface AvailabilityDeps {
  queue: Queue;
  clock: Clock;
  logger: Logger;
  random: () => number;
  activity?: Activity;
  /** Keeps the probe's promise among the processor's work in flight. */
  track: (p: Promise<void>) => void;
}

export class Availability {
  constructor(private readonly deps: AvailabilityDeps) {}

  /** Probes every target that is up, idle and not heard from for `everyMs` (all of them at start). */
  probeIdle(states: TargetState[], everyMs: number): void {
    const now = this.deps.clock.now();
    for (const state of states) {
      // A server that asked to be left alone is not asked whether it is there either: it just said so.
      if (state.up && !state.probing && state.inFlight.size === 0 && now - state.lastHeardAt >= everyMs && !isHeld(state, now)) this.probe(state);
    }
  }

  /**
   * A scan got no answer. Several scans in flight time out together when a server hangs: the first marks it down,
   * the rest only update the error, so the probe's backoff takes one step for them all, not one each.
   */
  noAnswer(state: TargetState, error: string): void {
    state.lastError = error;
    if (state.up) this.goDown(state, error);
  }

  /** A probe failed, or the first probe (done by the readiness check) did: down, and the probe backs off. */
  probeFailed(state: TargetState, error: string): void {
    state.lastError = error;
    if (state.up) return this.goDown(state, error);
    state.probeDelayMs = Math.min(PROBE_MAX_MS, state.probeDelayMs * 2);
    this.scheduleProbe(state);
  }

  /** A probe's answer, wherever it was asked (this class, or the readiness check at start). */
  probed(state: TargetState, result: { ok: true } | { ok: false; error: string }): void {
    state.lastHeardAt = this.deps.clock.now();
    if (!result.ok) return this.probeFailed(state, result.error);
    if (state.up) return; // an idle check that found nothing wrong
    state.up = true;
    state.probeDelayMs = 0;
    state.downSince = undefined;
    state.lastError = undefined;
    // Folders that waited for the server are due already; those in their own backoff keep it.
    const due = this.deps.queue.pendingCount(state.target.name, DUE_COUNT_LIMIT);
    const count = due >= DUE_COUNT_LIMIT ? `${DUE_COUNT_LIMIT} or more` : String(due);
    this.deps.logger.info({ target: state.target.name }, `Target ${state.target.name} is available again; ${count} folder(s) due resume.`);
    this.deps.activity?.emit('target', { target: state.target.name, up: true });
  }

  /** A refused token: ask the server now whether the token works at all, unless a probe is already on its way. */
  probeSoon(state: TargetState): void {
    if (state.up && !state.probing) this.probe(state);
  }

  probe(state: TargetState): void {
    state.probing = true;
    const run = async () => {
      let result: { ok: true } | { ok: false; error: string };
      try {
        result = await state.target.available();
      } catch (err) {
        result = { ok: false, error: String(err) };
      }
      state.probing = false;
      this.probed(state, result);
    };
    this.deps.track(run());
  }

  private goDown(state: TargetState, error: string): void {
    const now = this.deps.clock.now();
    state.up = false;
    state.downSince = now;
    state.probeDelayMs = PROBE_FIRST_MS;
    this.scheduleProbe(state);
    this.deps.logger.error(
      { target: state.target.name },
      `Target ${state.target.name} is unavailable: ${sentence(error)} Its folders stay queued and are retried when it answers again.`,
    );
    this.deps.activity?.emit('target', { target: state.target.name, up: false, error });
  }

  private scheduleProbe(state: TargetState): void {
    state.nextProbeAt = this.deps.clock.now() + Math.round(state.probeDelayMs * (0.8 + 0.2 * this.deps.random()));
  }
}

/** An error as a sentence: its own ending kept ("…?"), a full stop added otherwise. */
function sentence(text: string): string {
  return /[.!?]$/.test(text.trim()) ? text.trim() : `${text.trim()}.`;
}
