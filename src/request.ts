// The value every trigger produces and the queue consumes: one path someone asked us to scan.
import type { ArrSource } from './triggers/families.js';

/** Where a request came from; shown in logs, history and metrics. The arr apps are those of the trigger table. */
export type Source = ArrSource | 'manual' | 'drive' | 'cli' | 'api' | 'watch';

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
}

export interface ExternalIds {
  tvdb?: string;
  tmdb?: string;
  imdb?: string;
  title?: string;
}
