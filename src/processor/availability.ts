// Whether each target answers: its slot state, marked down when it fails, probed with backoff while down, and
// asked again when it has been idle (so a wrong token or a stopped server shows before a scan is due).
import type { Activity } from '../activity.js';
import type { Clock } from '../clock.js';
import type { Logger } from '../log.js';
import type { Queue } from '../queue/store.js';
import type { Target } from '../scan.js';

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
}

const PROBE_MAX_MS = 30_000; // a target that comes back is used again within this
export const IDLE_PROBE_MS = 60_000;

export function newTargetState(target: Target): TargetState {
  return { target, up: true, probeDelayMs: 0, nextProbeAt: 0, probing: false, lastHeardAt: -Infinity, inFlight: new Set(), lastFinishedAt: 0, scanned: 0, failed: 0 };
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
  };
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
      if (state.up && !state.probing && state.inFlight.size === 0 && now - state.lastHeardAt >= everyMs) this.probe(state);
    }
  }

  markDown(state: TargetState, error: string): void {
    const now = this.deps.clock.now();
    state.probeDelayMs = Math.min(PROBE_MAX_MS, Math.max(1_000, state.probeDelayMs * 2));
    state.nextProbeAt = now + Math.round(state.probeDelayMs * (0.8 + 0.2 * this.deps.random()));
    state.lastError = error;
    if (state.up) {
      state.up = false;
      state.downSince = now;
      this.deps.logger.error(
        { target: state.target.name },
        `Target ${state.target.name} is unavailable: ${sentence(error)} Its folders stay queued and are retried when it answers again.`,
      );
      this.deps.activity?.emit('target', { target: state.target.name, up: false, error });
    }
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
      state.lastHeardAt = this.deps.clock.now();
      if (!result.ok) {
        this.markDown(state, result.error);
        return;
      }
      if (state.up) return; // an idle check that found nothing wrong
      state.up = true;
      state.probeDelayMs = 0;
      state.downSince = undefined;
      state.lastError = undefined;
      const woken = this.deps.queue.wakeTarget(state.target.name);
      this.deps.logger.info({ target: state.target.name }, `Target ${state.target.name} is available again; ${woken} folder(s) resume.`);
      this.deps.activity?.emit('target', { target: state.target.name, up: true });
    };
    this.deps.track(run());
  }
}

/** An error as a sentence: its own ending kept ("…?"), a full stop added otherwise. */
function sentence(text: string): string {
  return /[.!?]$/.test(text.trim()) ? text.trim() : `${text.trim()}.`;
}
