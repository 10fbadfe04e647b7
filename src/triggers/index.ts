// Turns a decoded scan body (arr webhook JSON or manual form fields) into the scans it asks for.
import type { Source } from '../request.js';
import { canonicalEvent, ignoredReason } from './events.js';
import { lidarrEvent } from './lidarr.js';
import { manualRequest } from './manual.js';
import { isPlainObject, objectAt, type Payload } from './payload.js';
import { radarrEvent } from './radarr.js';
import { readarrEvent } from './readarr.js';
import { type AppOutcome, type TriggerResult } from './result.js';
import { sonarrEvent } from './sonarr.js';
import { sourceFromUserAgent } from './source.js';

export type { TriggerResult } from './result.js';

interface Family {
  /** The object every payload of this app carries (except Health and ApplicationUpdate). */
  key: string;
  source: Source;
  parse: (payload: Payload, event: string, source: Source) => AppOutcome;
}

const families: Family[] = [
  { key: 'series', source: 'sonarr', parse: sonarrEvent },
  { key: 'movie', source: 'radarr', parse: radarrEvent },
  { key: 'artist', source: 'lidarr', parse: lidarrEvent },
  { key: 'author', source: 'readarr', parse: readarrEvent },
];

const noEventType = 'not a scan request: no eventType; expected an arr webhook or eventType=Manual&filepath=...';

export function parseScanBody(body: unknown, userAgent?: string): TriggerResult {
  if (!isPlainObject(body)) {
    return { kind: 'invalid', reason: 'not a scan request: the body is not a JSON object or form fields' };
  }
  const sent = body.eventType;
  if (sent !== undefined && typeof sent !== 'string') {
    return { kind: 'invalid', reason: 'eventType must be a single string' };
  }
  const event = sent === undefined || sent.trim() === '' ? undefined : canonicalEvent(sent);
  const family = families.find((f) => objectAt(body, f.key) !== undefined);
  const source = sourceFromUserAgent(userAgent) ?? family?.source;

  // plex_autoscan also answered Test under the key "EventType".
  const aliased = body.EventType;
  if (event === 'Test' || (typeof aliased === 'string' && canonicalEvent(aliased) === 'Test')) {
    return { kind: 'test', source: source ?? 'unknown', event: 'Test' };
  }
  if (event === 'Manual' || event === 'Refresh') return manualRequest(body, event);
  if (event === undefined) return { kind: 'invalid', reason: noEventType };

  if (family === undefined) {
    return { kind: 'ignored', source: source ?? 'unknown', event, reason: ignoredReason(event, undefined) };
  }
  // The payload's shape decides how it is read; the User-Agent only decides what it is reported as.
  const reportedAs = source ?? family.source;
  return { ...family.parse(body, event, reportedAs), source: reportedAs };
}
