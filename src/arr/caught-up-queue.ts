// What a catch-up hands the intake, as a webhook's requests: each batch's requests whose folder no request asked for
// at or after the batch's event (asked.ts), due as SERVER_SCAN_DELAY(S) would have them, in chunks, a path the gate
// refuses left out rather than the rest.
import { delayOf, type Intake } from '../intake/intake.js';
import { PathRefused } from '../paths/gate.js';
import { routeKnown } from '../paths/route.js';
import type { ScanRequest } from '../request.js';
import type { AskedFolders } from './asked.js';

/**
 * The delay of a caught-up request (or SERVER_SCAN_DELAY, when shorter): the chunks of one catch-up are queued within
 * it, so a folder whose events fall into two chunks is still one scan.
 */
export const SETTLE_MS = 5_000;

export interface CaughtUpBatch {
  requests: ScanRequest[];
  /** When its event happened (ms): a folder asked for at or after it already has its scan. */
  date: number;
}

export interface CaughtUpQueueDeps {
  intake: Intake;
  asked: AskedFolders;
  /** SERVER_SCAN_DELAY (ms) and SERVER_SCAN_DELAYS. */
  scanDelayMs: number;
  scanDelays?: Record<string, number>;
  /** The most requests handed to the intake at once. */
  chunk: number;
  /** "sonarr 'sonarr' history": the client the intake names. */
  client: string;
}

export async function queueCaughtUp(deps: CaughtUpQueueDeps, batches: CaughtUpBatch[], now: number): Promise<void> {
  const requests: ScanRequest[] = [];
  for (const { requests: asks, date } of batches) {
    for (const request of asks) {
      const folder = routeKnown(request.path, request.kind === 'folder' ? 'folder' : 'file', deps.intake.settings).folder;
      if (!deps.asked.askedSince(folder, date)) requests.push({ ...request, delayMs: caughtUpDelay(deps, request, now - date) });
    }
  }
  for (let at = 0; at < requests.length; at += deps.chunk) await queue(deps, requests.slice(at, at + deps.chunk));
}

/** Through the intake as a webhook; a path the gate refuses (logged there with its rule) is left out, not the rest. */
async function queue(deps: CaughtUpQueueDeps, requests: ScanRequest[]): Promise<void> {
  try {
    await deps.intake.submit(requests, deps.client);
  } catch (err) {
    if (!(err instanceof PathRefused)) throw err;
    const refused = new Set(err.refusals.map((r) => r.request));
    const rest = requests.filter((r) => !refused.has(r));
    if (rest.length) await deps.intake.submit(rest, deps.client);
  }
}

/**
 * SETTLE_MS (or SERVER_SCAN_DELAY, when shorter): SERVER_SCAN_DELAY gathers a burst of webhooks into one scan, and a
 * catch-up reads the burst whole. A SERVER_SCAN_DELAYS entry that names the request (`sonarr-history`, `upgrade`)
 * is kept, counted from the event as its webhook's would have been.
 */
function caughtUpDelay(deps: CaughtUpQueueDeps, request: ScanRequest, ageMs: number): number {
  const own = delayOf(request, deps.scanDelays).delayMs;
  if (own === undefined) return Math.min(deps.scanDelayMs, SETTLE_MS);
  return Math.max(own - ageMs, Math.min(own, SETTLE_MS));
}
