// The contract every media server implements: take a scan of one folder, say whether you are reachable, and,
// for servers whose scans run after they are accepted, follow those scans to their end.
import type { DeliveryRef, FinalDeliveryState } from '../queue/store.js';
import type { ExternalIds } from '../request.js';

/** What a target answered for one folder. */
export type ScanOutcome =
  /**
   * The server accepted the scan. `detail` names the sections/libraries it went to (`sections`: their ids).
   * `follow` is set when there is something to do once the scan has ended (confirm the file, empty the trash,
   * analyze): the target's follower takes it from there, from this JSON-safe value, after a restart too.
   */
  | { status: 'scanned'; detail?: string; sections?: string[]; follow?: unknown }
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
  /** Scans sent at once while no pause is set (PLEX_SCAN_CONCURRENCY / SCAN_CONCURRENCY; default 8). */
  readonly concurrency?: number;
  /** Watches accepted scans to their end; absent when a scan is finished once the server accepted it. */
  readonly follower?: Follower;
  /** Scan one folder, given as the path the media server uses (after the target's own rewrite). */
  scan(folder: string, context: ScanContext): Promise<ScanOutcome>;
  /** Cheap reachability probe used while the target is marked down. */
  available(): Promise<{ ok: true } | { ok: false; error: string }>;
  /** The libraries holding a folder, for RUN_COMMAND_BEFORE_SCAN's SCANRELAY_SECTION, where cheap to tell. */
  sectionsOf?(folder: string): Promise<string[]>;
}

export interface ScanContext {
  /** The event that caused the scan (latest merged), e.g. "Download". */
  event: string;
  source: string;
  /** A file inside the folder the request named, when there was one. */
  file?: string;
  deleted: boolean;
  /** The series'/movie's IDs a Sonarr/Radarr download carried (PLEX_FIX_MISMATCHED). */
  ids?: ExternalIds;
}

/** A delivery handed to a follower: the scan the server accepted, and what the target said to follow. */
export interface FollowItem {
  ref: DeliveryRef;
  folder: string;
  event: string;
  deliveredAt: number;
  /** The `follow` value of the target's ScanOutcome. */
  ticket: unknown;
}

export interface FollowResult {
  state: Extract<FinalDeliveryState, 'confirmed' | 'not-found' | 'unconfirmed' | 'scanned'>;
  /** One short sentence for people; the technical part after it. */
  detail: string;
}

/** Follows the scans of one server. One per server, whatever the number of folders followed. */
export interface Follower {
  /** Begins following; `done` is called once per item with what its follow-up found. */
  start(done: (item: FollowItem, result: FollowResult) => Promise<void>): void;
  follow(item: FollowItem): void;
  /** Items currently followed (health, tests). */
  readonly size: number;
  stop(): Promise<void>;
}
