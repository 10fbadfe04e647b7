// The contract every media server implements: scan one folder, say whether you are reachable.

/** What a target answered for one folder. */
export type ScanOutcome =
  /**
   * The server accepted the scan. `detail` names the sections/libraries it went to. `confirmation` is set by
   * targets that can tell when the scan finished: 'confirmed' (the file is in the library) or 'not-found'.
   */
  | { status: 'scanned'; detail?: string; confirmation?: 'confirmed' | 'not-found' }
  /** No library of this server contains the folder: recorded, not retried. */
  | { status: 'unmatched'; detail: string }
  /**
   * The scan did not happen and should be tried again later. `targetDown` means the server itself is
   * unreachable or refusing us (network error, 5xx, 401/403) rather than this folder being the problem.
   */
  | { status: 'retry'; error: string; targetDown: boolean };

export interface Target {
  /** Unique, stable name used as the delivery key in the queue (e.g. "plex", "jellyfin-4k"). */
  readonly name: string;
  /** Kind of server, for display: plex, plex-scanner, jellyfin, emby. */
  readonly kind: string;
  /** Minimum milliseconds between two scans sent to this target (0 = as fast as it answers). */
  readonly pauseMs: number;
  /** Scan one folder, given as the path the media server uses (after the target's own rewrite). */
  scan(folder: string, context: ScanContext): Promise<ScanOutcome>;
  /** Cheap reachability probe used while the target is marked down. */
  available(): Promise<{ ok: true } | { ok: false; error: string }>;
}

export interface ScanContext {
  /** The event that caused the scan (latest merged), e.g. "Download". */
  event: string;
  source: string;
  /** A file inside the folder the request named, when there was one. */
  file?: string;
  deleted: boolean;
}
