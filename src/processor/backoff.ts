// How long to wait before trying again: exponential, capped, with jitter so retries don't arrive in lockstep.

export interface BackoffOptions {
  baseMs: number;
  capMs: number;
  random?: () => number;
}

/** Delay before attempt `attempt + 1`, given `attempt` failures so far (1 = first failure). */
export function backoffDelay(attempt: number, { baseMs, capMs, random = Math.random }: BackoffOptions): number {
  const exp = Math.min(capMs, baseMs * 2 ** Math.max(0, Math.min(attempt - 1, 30)));
  // Full value to 75% of it: spreads retries without ever exceeding the cap.
  return Math.round(exp * (0.75 + 0.25 * random()));
}
