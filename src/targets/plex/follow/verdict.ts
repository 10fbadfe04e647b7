// The word a Plex follow-up ends with, and its detail, from what is known of the file once its scan ended. Words
// match what is known: `confirmed` (seen in the library), `not-found` (only the database can say so, with what
// to do about it), `scanned` (Plex took and finished the scan; nothing could tell more, even after asking once
// more). `unconfirmed` is left for a scan whose end was never seen (PLEX_CONFIRM_TIMEOUT, or Plex stopped answering).
import { lookupCandidates } from '../../../paths/sidecar.js';
import type { FollowResult } from '../../../scan.js';
import type { BatchConfirmation } from '../confirm.js';

const HOW: Record<'notifications' | 'database' | 'listing', string> = {
  notifications: "among the items Plex's notifications said the scan added or changed",
  database: "in Plex's database",
  listing: "among the section's recently added items",
};

/** What to check when Plex's database says a scanned file is not in the library. */
export const NOT_FOUND_ADVICE =
  'Check that Plex sees the file at this path (its mounts, and SERVER_PATH_MAPPINGS or the target\'s PATH_MAPPINGS), that the file is not in a folder Plex ignores (.plexignore), and that its name follows Plex\'s naming rules.';

/**
 * `watched`: the socket told what Plex created or updated all through the follow-up, so a file with no sign there
 * (nor in the database or the listing) may never have been scanned, and is asked for once more (FollowResult.askAgain).
 */
export function verdict(v: { file?: string; waitedMs: number; seenRunning: boolean; last?: BatchConfirmation; watched?: boolean }): {
  result: FollowResult;
  ratingKey?: string;
  parentRatingKey?: string;
} {
  const waited = secs(v.waitedMs);
  const last = v.last;
  if (last?.state === 'confirmed') {
    return { result: { state: 'confirmed', detail: `In the library after ${waited} s (${HOW[last.via]}).` }, ratingKey: last.ratingKey, parentRatingKey: last.parentRatingKey };
  }
  const how = v.seenRunning ? 'Plex finished the scan' : 'Plex showed no scan running';
  if (!v.file) return { result: { state: 'scanned', detail: `${how} after ${waited} s.` } };
  if (last?.state === 'not-found') return { result: { state: 'not-found', detail: `Not in the library after the scan ended: ${last.reason}. ${NOT_FOUND_ADVICE}` } };
  // Not seen is not absent: an unchanged file (a re-sent import, a rename Plex knew) makes no notification. But
  // Plex may also have taken the refresh and never run it (rivenmedia/riven#873): asked once more where the socket
  // saw all Plex created, then as it is.
  const detail = `${how} after ${waited} s; whether the file is in the library is not known (${last?.reason ?? 'no answer'}).`;
  // A subtitle or audio sidecar is no item of its own: no sign of it is no sign of a scan not run.
  const sidecar = lookupCandidates(v.file)[0] !== v.file;
  return { result: { state: 'scanned', detail, ...(v.watched && !sidecar ? { askAgain: true } : {}) } };
}

export const secs = (ms: number): string => (Math.max(0, ms) / 1000).toFixed(1);
