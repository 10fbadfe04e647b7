// The arr event names we know, spelled the way the apps send them today, and why the ones that
// name no changed file are answered 200 without a scan.
import { arrTriggers, lookalikes } from './arr-triggers.js';

/** The events every arr app sends; each app's own are in its entry of the trigger table. */
const commonEvents = [
  'Test',
  'Grab',
  'Download',
  'Rename',
  'Health',
  'HealthRestored',
  'ApplicationUpdate',
  'ManualInteractionRequired',
  'DownloadFailure',
  'ImportFailure',
];

const knownEvents = [...new Set(['Manual', 'Refresh', ...commonEvents, ...arrTriggers.flatMap((f) => f.events)])];

const byLowerCase = new Map<string, string>(knownEvents.map((name) => [name.toLowerCase(), name]));

/** "series, movie, artist or author": the key objects of the trigger table. */
const payloadKeys = arrTriggers.map((f) => f.key).join(', ').replace(/, ([^,]*)$/, ' or $1');

/**
 * The PascalCase spelling of a known event, so that Lidarr's old lower-case "download" is logged and
 * counted as "Download"; unknown names are kept as sent (trimmed).
 */
export function canonicalEvent(sent: string): string {
  const trimmed = sent.trim();
  return byLowerCase.get(trimmed.toLowerCase()) ?? trimmed;
}

const silentReasons: Record<string, string> = {
  Grab: 'Grab events carry no file on disk yet',
  SeriesAdd: 'SeriesAdd events come before any file is imported',
  MovieAdded: 'MovieAdded events come before any file is imported',
  ArtistAdd: 'ArtistAdd events come before any file is imported',
  AuthorAdded: 'AuthorAdded events come before any file is imported',
  Health: "Health events are about the app's own state, not media files",
  HealthRestored: "HealthRestored events are about the app's own state, not media files",
  ApplicationUpdate: 'ApplicationUpdate events are about the app itself, not media files',
  ManualInteractionRequired: 'ManualInteractionRequired events mean the download still waits to be imported',
  DownloadFailure: 'DownloadFailure events mean nothing reached the disk',
  ImportFailure: 'ImportFailure events mean nothing was imported',
};

/**
 * Why an event is answered without a scan. `family` is the media object the payload carries
 * ("series", "movie"…), absent for Health-like payloads and broken ones.
 */
export function ignoredReason(event: string, family: string | undefined): string {
  const silent = silentReasons[event];
  if (silent !== undefined) return silent;
  if (!byLowerCase.has(event.toLowerCase())) return `${event} is not an event scanrelay scans for`;
  if (family === undefined) return `${event} event names no ${payloadKeys}`;
  return `${event} events do not apply to a ${family} payload`;
}

// What each app's webhooks can be reported as (after canonicalEvent; an upgrading Download is "Upgrade").
const arrCommon = [...commonEvents, 'Upgrade'];
const ownEvents = (source: string): readonly string[] => arrTriggers.find((f) => f.source === source)?.events ?? [];

/**
 * The closed set of event names per source, for metric labels: a name outside it is counted as "other", so
 * a sender cannot mint a new time series with every made-up eventType.
 */
const arrEvents: [string, string[]][] = [
  ...arrTriggers.map((f): [string, string[]] => [f.source, [...arrCommon, ...f.events]]),
  ...lookalikes.map((l): [string, string[]] => [l.source, [...arrCommon, ...l.sends.flatMap(ownEvents)]]),
];

export const eventsBySource: Readonly<Record<string, readonly string[]>> = {
  ...Object.fromEntries(arrEvents),
  // What the history catch-up (src/arr/) queued: the webhook's names, and Lidarr's deleted track file, which no
  // webhook of Lidarr's tells.
  ...Object.fromEntries(arrEvents.map(([source, events]) => [`${source}-history`, [...events, 'TrackFileDelete']])),
  // What the reconcile (src/reconcile/) found missing from a media server.
  ...Object.fromEntries(arrEvents.map(([source]) => [`${source}-reconcile`, ['Reconcile']])),
  manual: ['Manual', 'Test'],
  tdarr: ['Transcoded', 'Started'],
  api: ['Manual', 'Retry'],
  drive: ['Drive'],
  watch: ['Changed', 'Deleted'],
  cli: ['Manual'],
  unknown: [...knownEvents, 'Upgrade', 'unknown'],
};
