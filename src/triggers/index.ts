// Turns a decoded scan body (arr webhook JSON or manual form fields) into the scans it asks for.
import { canonicalEvent, ignoredReason } from './events.js';
import type { ArrTrigger } from './arr-trigger.js';
import { arrTriggers } from './arr-triggers.js';
import { manualRequest } from './manual.js';
import { isPlainObject, objectAt } from './payload.js';
import { type TriggerResult } from './result.js';
import { sourceFromUserAgent } from './source.js';
import { isTdarrNotification, tdarrNotification } from './tdarr.js';

export type { TriggerResult } from './result.js';

const noEventType = 'not a scan request: no eventType; expected an arr webhook or eventType=Manual&filepath=...';

export function parseScanBody(body: unknown, userAgent?: string): TriggerResult {
  if (!isPlainObject(body)) {
    return { kind: 'invalid', reason: 'not a scan request: the body is not a JSON object or form fields' };
  }
  const sent = body.eventType;
  if (sent !== undefined && typeof sent !== 'string') {
    return { kind: 'invalid', reason: 'eventType must be a single string' };
  }
  // Tdarr's notification plugin sends a Discord body, without eventType.
  if (sent === undefined && isTdarrNotification(body)) return tdarrNotification(body);
  const event = sent === undefined || sent.trim() === '' ? undefined : canonicalEvent(sent);
  const fromAgent = sourceFromUserAgent(userAgent);
  // The key object decides; without it (an older release, a script, another relay), the app the User-Agent
  // names, else the app whose own file fields the payload carries: the paths are read wherever they are.
  const trigger =
    arrTriggers.find((f) => objectAt(body, f.key) !== undefined) ??
    arrTriggers.find((f) => f.source === fromAgent) ??
    arrTriggers.find((f) => (f as ArrTrigger).marks?.some((m) => body[m] !== undefined && body[m] !== null));
  const source = fromAgent ?? trigger?.source;

  // plex_autoscan also answered Test under the key "EventType".
  const aliased = body.EventType;
  if (event === 'Test' || (typeof aliased === 'string' && canonicalEvent(aliased) === 'Test')) {
    return { kind: 'test', source: source ?? 'unknown', event: 'Test' };
  }
  if (event === 'Manual' || event === 'Refresh') return manualRequest(body, event);
  if (event === undefined) return { kind: 'invalid', reason: noEventType };

  if (trigger === undefined) {
    return { kind: 'ignored', source: source ?? 'unknown', event, reason: ignoredReason(event, undefined) };
  }
  // The payload's shape decides how it is read; the User-Agent only decides what it is reported as.
  const reportedAs = source ?? trigger.source;
  const outcome = trigger.parse(body, event, reportedAs);
  if (outcome.kind === 'unhandled') return { kind: 'ignored', source: reportedAs, event: outcome.event, reason: ignoredReason(outcome.event, trigger.key) };
  return { ...outcome, source: reportedAs };
}
