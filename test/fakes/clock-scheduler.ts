// Timers on a ManualClock: what a fake server does "later" (a monitor's timer, the end of a validate) is an event
// at a time of the clock, and tests and benchmarks move the clock through those events instead of sleeping.
// Events run in time order with the clock set to their own time, so a chain of timers (a validate that starts
// the next one) keeps its arithmetic however far the clock is moved at once.
import type { ManualClock } from '../../src/clock.js';

export interface ScheduledEvent {
  readonly at: number;
  cancelled: boolean;
}

interface Entry extends ScheduledEvent {
  seq: number;
  run: () => void | Promise<void>;
}

export class ClockScheduler {
  private entries: Entry[] = [];
  private seq = 0;

  constructor(readonly clock: ManualClock) {}

  now(): number {
    return this.clock.now();
  }

  /** Runs `run` once the clock reaches now + `ms`. */
  after(ms: number, run: () => void | Promise<void>): ScheduledEvent {
    return this.at(this.clock.now() + Math.max(0, ms), run);
  }

  at(at: number, run: () => void | Promise<void>): ScheduledEvent {
    const entry: Entry = { at, seq: this.seq++, run, cancelled: false };
    this.entries.push(entry);
    return entry;
  }

  cancel(event: ScheduledEvent | undefined): void {
    if (event) event.cancelled = true;
  }

  /** Events still to run. */
  get pending(): number {
    return this.entries.filter((e) => !e.cancelled).length;
  }

  /** When the next event is due, if any. */
  nextAt(): number | undefined {
    const next = this.next();
    return next?.at;
  }

  /**
   * Moves the clock `ms` on, running every event due by then in time order (equal times in the order they were
   * scheduled), each with the clock at its own time. An event that returns a promise (a stand-in scan flow that
   * calls the fake over HTTP) is awaited before the next one runs, with the clock still at its time.
   */
  async advance(ms: number): Promise<void> {
    await this.runTo(this.clock.now() + ms);
  }

  async runTo(until: number): Promise<void> {
    for (;;) {
      const next = this.next();
      if (!next || next.at > until) break;
      this.entries.splice(this.entries.indexOf(next), 1);
      if (next.at > this.clock.now()) this.clock.set(next.at);
      await next.run();
    }
    if (until > this.clock.now()) this.clock.set(until);
  }

  /** Runs events until none is left or the clock would pass now + `limitMs`; resolves with the time reached. */
  async runUntilIdle(limitMs = 24 * 3600_000): Promise<number> {
    const limit = this.clock.now() + limitMs;
    for (;;) {
      const at = this.nextAt();
      if (at === undefined || at > limit) return this.clock.now();
      await this.runTo(at);
    }
  }

  private next(): Entry | undefined {
    let best: Entry | undefined;
    for (let i = this.entries.length - 1; i >= 0; i--) {
      const e = this.entries[i];
      if (e.cancelled) {
        this.entries.splice(i, 1);
        continue;
      }
      if (!best || e.at < best.at || (e.at === best.at && e.seq < best.seq)) best = e;
    }
    return best;
  }
}
