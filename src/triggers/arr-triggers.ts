// The trigger table: every arr app whose webhooks scanrelay reads. A new app is one file (see readarr.ts) and one
// line here; its name, User-Agent, event names and metric labels follow from the table (docs/architecture.md).
import type { ArrTrigger } from './arr-trigger.js';
import { lidarr } from './lidarr.js';
import { radarr } from './radarr.js';
import { readarr } from './readarr.js';
import { sonarr } from './sonarr.js';

/** Tried in this order: the first app whose key object the payload carries reads it. */
export const arrTriggers = [
  sonarr,
  radarr,
  lidarr,
  readarr,
] as const satisfies readonly ArrTrigger[];

/** Apps that send another app's payloads: only their User-Agent tells them apart. */
export const lookalikes = [
  // Whisparr v2 sends Sonarr's payloads, v3 Radarr's.
  { source: 'whisparr', sends: ['sonarr', 'radarr'] },
] as const satisfies readonly { source: string; sends: readonly (typeof arrTriggers)[number]['source'][] }[];

/** The name of every app in the table, as logs, history and metrics show it. */
export type ArrSource = (typeof arrTriggers)[number]['source'] | (typeof lookalikes)[number]['source'];

// The names of the table are the arr sources of src/scan.ts's Source (which imports nothing).
declare module '../request.js' {
  interface ArrApps extends Record<ArrSource, true> {}
}
