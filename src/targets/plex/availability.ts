// PLEX_CHECK_BEFORE_SCAN: wait, briefly and with backoff, for Plex to answer before sending it a scan.
//
// plex_autoscan looped every 15 s until Plex answered, holding its global scan lock the whole time. Here the
// wait is bounded: when Plex stays silent the scan comes back as "target down" and the processor's own probe
// (which never blocks other targets) decides when to try again.
import { SERVER_STATUS } from '../../http/answer-caps.js';
import type { Clock } from '../../clock.js';
import { ApiRefusal } from '../../http/api-call.js';
import type { PlexApi } from './api.js';

export interface AvailabilityOptions {
  clock: Clock;
  sleep: Clock['sleep'];
  /** Total time to keep asking. */
  budgetMs?: number;
  firstDelayMs?: number;
  maxDelayMs?: number;
}

export type Availability = { ok: true; attempts: number } | { ok: false; attempts: number; error: string; status: number };

/** Asks GET / (needs the token, so a refused token shows up here rather than as a failed scan). */
export async function waitUntilPlexAnswers(api: PlexApi, opts: AvailabilityOptions): Promise<Availability> {
  const budget = opts.budgetMs ?? 15_000;
  const start = opts.clock.now();
  let delay = opts.firstDelayMs ?? 500;
  let slept = 0;
  for (let attempts = 1; ; attempts++) {
    try {
      const res = await api.request('GET', '/', SERVER_STATUS);
      await res.body?.cancel();
      return { ok: true, attempts };
    } catch (err) {
      const status = err instanceof ApiRefusal ? err.status : 0;
      const error = (err as Error).message;
      // A refused token won't fix itself within seconds.
      if (status === 401 || status === 403) return { ok: false, attempts, error, status };
      const elapsed = Math.max(slept, opts.clock.now() - start);
      if (elapsed + delay > budget) return { ok: false, attempts, error, status };
      await opts.sleep(delay);
      slept += delay;
      delay = Math.min(opts.maxDelayMs ?? 4_000, delay * 2);
    }
  }
}
