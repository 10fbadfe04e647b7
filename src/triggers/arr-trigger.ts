// What one arr app brings to the trigger table (src/triggers/arr-triggers.ts): its name, its payload's key object,
// its own event names and the function that reads its payloads.
import type { Source } from '../request.js';
import type { Payload } from './payload.js';
import type { AppOutcome } from './result.js';

export interface ArrTrigger<S extends string = string> {
  /** The app's name, lower-case, as its User-Agent spells it ("Sonarr/4.0.17") and as logs, history and metrics show it. */
  source: S;
  /** The object every payload of this app carries (except Health and ApplicationUpdate), e.g. "series". */
  key: string;
  /**
   * Fields only this app's payloads carry, by which a payload without its key object is still read as this app's:
   * a Rename or file delete from an older release, a script or a relay that sends only the files' paths.
   */
  marks?: readonly string[];
  /** The event names only this app sends; the ones every arr app sends are listed in src/triggers/events.ts. */
  events: readonly string[];
  /** Which scans an event asks for; an event it does not scan for is answered `unhandled(event)`. */
  parse: (payload: Payload, event: string, source: Source) => AppOutcome;
}
