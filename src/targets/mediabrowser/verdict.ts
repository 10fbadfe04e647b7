// The words a Jellyfin or Emby follow-up ends with, from what is known of the file. They match what is known:
// `confirmed` (seen in the library), `not-found` (the refresh was over and the refreshed folder, listed in full,
// has no such file: with what to check), `scanned` (the server took the scan; nothing could tell more), shown
// neutral. The ticket a delivery stores for its follow-up is defined here too, so the target and the follower
// share one JSON shape.
import type { FollowResult } from '../../scan.js';
import type { Listed } from './confirm.js';

/** What the target hands its follower for one accepted scan (stored as JSON with the delivery; resumed after a restart). */
export interface MediaBrowserTicket {
  /** The delivered file, as the server sees it. */
  file: string;
  /** The folder scanned, as the server sees it. */
  folder: string;
  /** How the scan reached the server: an item refreshed at once, the plugin, or the library monitor's delayed refresh. */
  via: 'item' | 'library' | 'plugin' | 'monitor';
  /** The item refreshed (its id and path), when one was. */
  item?: { id: string; path: string };
  /** The libraries holding the folder (their ids, as RefreshStatus names them). */
  libraries: string[];
  /**
   * A deleted folder's (a series', season's or artist's): the server's item at the path, looked up before the
   * refresh. `file` and `folder` are then the folder itself: the queue keeps no file for a delete.
   */
  removed?: { ids: string[] };
}

export function isTicket(v: unknown): v is MediaBrowserTicket {
  const t = v as MediaBrowserTicket | undefined;
  return typeof t?.file === 'string' && typeof t.folder === 'string' && Array.isArray(t.libraries);
}

/** What to check when the refreshed folder does not hold the file. */
export const NOT_FOUND_ADVICE =
  "Check that one of the server's library folders holds this path as the server sees it (its mounts, and SERVER_PATH_MAPPINGS or the target's PATH_MAPPINGS), " +
  'that the server can read the file (permissions of the file and its folders for the user the server runs as), and that its name follows the naming rules of the library type.';

export type Seen =
  | { how: 'socket' }
  | { how: 'listing'; listed: Listed }
  /** A delete's: LibraryChanged named the item removed, or the item looked up once the refresh was over. */
  | { how: 'removed'; by: 'socket' | 'lookup' }
  | { how: 'still-listed'; path: string };

export function mediaBrowserVerdict(server: string, waitedMs: number, seen: Seen, late?: string): FollowResult {
  const waited = (Math.max(0, waitedMs) / 1000).toFixed(1);
  if (seen.how === 'removed') {
    const by = seen.by === 'socket' ? `among the items ${server}'s LibraryChanged said were removed` : 'its item is gone once the refresh was over';
    return { state: 'confirmed', detail: `Removed from the library after ${waited} s (${by}).` };
  }
  // A server may keep a deleted folder's item until its next scan of the library: not a problem to flag.
  if (seen.how === 'still-listed') return { state: 'scanned', detail: `${server} took the scan; the deleted folder is still listed (item at '${seen.path}', ${waited} s after the scan) and may go at the server's next library scan.` };
  if (seen.how === 'socket') return { state: 'confirmed', detail: `In the library after ${waited} s (among the items ${server}'s LibraryChanged said were added or updated).` };
  const l = seen.listed;
  if (l.state === 'found') return { state: 'confirmed', detail: `In the library after ${waited} s (found among ${l.where} once the refresh was over).` };
  // A listing made while the server still refreshed (past the follow-up's time limit) cannot say the file is absent.
  if (l.state === 'absent' && !late) return { state: 'not-found', detail: `Not in the library after the refresh was over: none of ${l.where} has this path (${waited} s after the scan). ${NOT_FOUND_ADVICE}` };
  const why = l.state === 'absent' ? `${late}; none of ${l.where} has it yet` : l.why;
  return { state: 'scanned', detail: `${server} took the scan; whether the file is in the library is not known (${why}).` };
}
