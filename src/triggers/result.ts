// What parsing a scan body can come to, for the HTTP layer to turn into a status code.
import type { ScanRequest, Source } from '../request.js';

export type TriggerResult =
  | { kind: 'scan'; source: Source; event: string; requests: ScanRequest[] }
  | { kind: 'test'; source: Source | 'unknown'; event: string }
  /** Well-formed, nothing to scan: answered 200 so the app keeps calling us. */
  | { kind: 'ignored'; source: Source | 'unknown'; event: string; reason: string }
  /** Not a scan request we understand: answered 400. */
  | { kind: 'invalid'; reason: string };

/**
 * What one app's module decides about one event; the dispatcher adds the source, and says why an `unhandled`
 * event (one the app's module does not scan for) is answered without a scan.
 */
export type AppOutcome =
  | { kind: 'scan'; event: string; requests: ScanRequest[] }
  | { kind: 'ignored'; event: string; reason: string }
  | { kind: 'unhandled'; event: string };

export function ignored(event: string, reason: string): AppOutcome {
  return { kind: 'ignored', event, reason };
}

export function unhandled(event: string): AppOutcome {
  return { kind: 'unhandled', event };
}
