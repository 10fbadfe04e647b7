// Time as the service sees it: injected so tests move time instead of sleeping.

export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Waits `ms` of this clock's time: real time for the system clock, simulated (and instant) for a manual one. */
  sleep(ms: number): Promise<void>;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

/** A clock tests move by hand. */
export class ManualClock implements Clock {
  constructor(private t = Date.UTC(2026, 0, 1)) {}
  now(): number {
    return this.t;
  }
  advance(ms: number): void {
    this.t += ms;
  }
  set(ms: number): void {
    this.t = ms;
  }
  /**
   * Moves time to `ms` after the call and resolves on the next turn of the event loop (setImmediate, so pending
   * I/O such as a fake server's answer still gets through between polls). Sleeps that overlap end at their own
   * deadline rather than adding up, as they would in real time; a clock already past the deadline stays put.
   */
  sleep(ms: number): Promise<void> {
    const until = this.t + Math.max(0, ms);
    return new Promise((resolve) =>
      setImmediate(() => {
        if (this.t < until) this.t = until;
        resolve();
      }),
    );
  }
}
