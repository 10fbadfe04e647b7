// Time as the service sees it: injected so tests move time instead of sleeping.

export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /**
   * Waits `ms` of this clock's time: real time for the system clock, simulated (and instant) for a manual one.
   * An aborted `signal` ends the wait at once, and the system clock's timer then neither runs nor keeps the
   * process alive: a stopped socket's backoff must not hold up shutdown.
   */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  /**
   * A signal that aborts with a TimeoutError once `ms` of this clock's time has passed: the per-request timeout
   * of calls to servers, so a test or benchmark can let a hung request run out without waiting for it.
   */
  timeout?(ms: number): AbortSignal;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise((resolve) => {
      if (signal?.aborted) return resolve();
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      signal?.addEventListener('abort', done, { once: true });
    }),
  timeout: (ms) => AbortSignal.timeout(ms),
};

/**
 * A wait of `ms` (Infinity: until woken) that `wake()` ends early, as does `stop` aborting. Each wait has a signal
 * of its own, so waits woken early do not pile listeners on `stop` until their timers run out.
 */
export function wakeableSleep(clock: Clock, ms: number, stop: AbortSignal): { done: Promise<void>; wake: () => void } {
  const own = new AbortController();
  const wake = () => own.abort();
  stop.addEventListener('abort', wake, { once: true });
  const done = new Promise<void>((resolve) => {
    own.signal.addEventListener('abort', () => resolve(), { once: true });
    if (ms !== Infinity) void clock.sleep(ms, own.signal).then(resolve);
    if (stop.aborted) wake();
  }).finally(() => (own.abort(), stop.removeEventListener('abort', wake)));
  return { done, wake };
}

/** The clock's timeout signal, or the wall clock's for a clock that has none. */
export function timeoutSignal(clock: Clock | undefined, ms: number): AbortSignal {
  return clock?.timeout ? clock.timeout(ms) : AbortSignal.timeout(ms);
}

/** A clock tests move by hand. */
export class ManualClock implements Clock {
  private readonly deadlines: { at: number; controller: AbortController }[] = [];
  constructor(private t = Date.UTC(2026, 0, 1)) {}
  now(): number {
    return this.t;
  }
  advance(ms: number): void {
    this.t += ms;
    this.expire();
  }
  set(ms: number): void {
    this.t = ms;
    this.expire();
  }
  /**
   * Aborts when this clock has moved `ms` on, or after `ms` of real time, whichever comes first: tests that
   * never move the clock still see a hung request end, and those that do need not wait for it.
   */
  timeout(ms: number): AbortSignal {
    const controller = new AbortController();
    this.deadlines.push({ at: this.t + ms, controller });
    // Not AbortSignal.any([controller.signal, AbortSignal.timeout(ms)]): Node 20 holds the sources of such a signal
    // weakly, so a garbage collection before the deadline drops the timer and the signal never aborts. A timeout
    // signal with a listener of its own is kept until it fires.
    const real = AbortSignal.timeout(ms);
    real.addEventListener('abort', () => controller.abort(real.reason), { once: true });
    return controller.signal;
  }
  private expire(): void {
    for (let i = this.deadlines.length - 1; i >= 0; i--) {
      const d = this.deadlines[i];
      if (d.controller.signal.aborted || this.t >= d.at) {
        this.deadlines.splice(i, 1);
        d.controller.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError'));
      }
    }
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
        this.expire();
        resolve();
      }),
    );
  }
}
