// What a trigger asks for: one path to scan (ScanRequest), where it came from (Source) and what it asks beside the
// scan. Every trigger makes these, the intake takes them. It imports only the shared nouns (src/scan.ts).
import type { ExternalIds } from './scan.js';

/**
 * The arr apps of the trigger table (src/triggers/arr-triggers.ts), which adds their names here by declaration
 * merging, so these nouns need not import the table.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface ArrApps {}

/**
 * Where a request came from; shown in logs, history and metrics. `<app>-history`: an event read from the app's own
 * history by the catch-up (src/arr/), whose webhook never reached scanrelay.
 */
export type Source = keyof ArrApps | HistorySource | ReconcileSource | 'manual' | 'drive' | 'cli' | 'api' | 'watch' | 'tdarr';
export type HistorySource = `${keyof ArrApps & string}-history`;
/** `<app>-reconcile`: a file the app has and a media server had no item for, found by the reconcile (src/reconcile/). */
export type ReconcileSource = `${keyof ArrApps & string}-reconcile`;

export interface ScanRequest {
  /** The path as the sender gave it (before SERVER_PATH_MAPPINGS). */
  path: string;
  source: Source;
  /** The sender's event name as received, e.g. "Download", "Rename", "Manual", "Upgrade". */
  event: string;
  /**
   * 'file': the folder to scan is the parent of `path`; the file is checked for existence first.
   * 'folder': `path` itself is the folder to scan.
   * 'auto': decide by looking at the disk (manual requests).
   */
  kind: 'file' | 'folder' | 'auto';
  /** The payload says this path is gone: scan its folder without waiting for it to exist. */
  deleted?: boolean;
  /**
   * Refresh the metadata of the item(s) holding the file after the scan. 'item': asked for by the sender
   * (refresh=item, eventType=Refresh), done by every target that can. 'item-if-enabled': implied by the event
   * (Rename, Upgrade), done only by targets whose REFRESH_ITEMS (or PLEX_REFRESH_ITEMS) is on.
   */
  refresh?: 'item' | 'item-if-enabled';
  /** Sonarr/Radarr downloads: the series'/movie's IDs, for PLEX_FIX_MISMATCHED. */
  ids?: ExternalIds;
  /**
   * A person asked for this folder itself even where it is a library's own folder, which makes the server scan the
   * whole library (the manual page's box, the API's `libraryRoot`). Without it such a folder is refused.
   */
  libraryRoot?: boolean;
  /**
   * The delay this request asks for (ms), over SERVER_SCAN_DELAYS and SERVER_SCAN_DELAY: the history catch-up's,
   * what is left of the delay counted from the app's event.
   */
  delayMs?: number;
}
