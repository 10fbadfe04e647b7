// The nouns every part of scanrelay shares: the folder the queue keeps (FolderRequest) for what a trigger asks
// (ScanRequest, src/request.ts), the deliveries of it to each target and their states, the Target contract with its
// capabilities and ScanOutcome, the follow-up after a scan, and what the disk says of a path. The queue's rows
// (src/queue/rows.ts) are its storage form, and what it answers of deliveries and history src/queue/records.ts;
// everything else speaks in these. This file imports nothing: every other part may import it.

export interface ExternalIds {
  tvdb?: string;
  tmdb?: string;
  imdb?: string;
  title?: string;
}

/** One folder to scan, as intake hands it to the queue (after mapping, ignore list and priorities). */
export interface FolderRequest {
  /** The folder to scan, as the media server sees it. */
  folder: string;
  priority: number;
  source: string;
  event: string;
  /** A file inside the folder whose existence is checked before scanning. */
  fileHint?: string;
  deleted: boolean;
  /** Refresh the item holding the file after the scan: asked for ('item') or where the target wants it. */
  refresh?: 'item' | 'item-if-enabled';
  /** The series'/movie's IDs from a Sonarr/Radarr download (PLEX_FIX_MISMATCHED). */
  ids?: ExternalIds;
  /** The path as the sender sent it (before SERVER_PATH_MAPPINGS); the latest request's is kept. */
  received?: string;
  /** SERVER_SCAN_DELAYS: this request's own delay (ms), when its source or event has one; else SERVER_SCAN_DELAY. */
  delayMs?: number;
  /** A whole-library scan of a library's own folder was asked for (ScanRequest.libraryRoot). */
  libraryRoot?: boolean;
}

/** A folder in the queue: what was asked for it (merged over its requests) and where it stands. */
export interface Folder {
  id: number;
  folder: string;
  priority: number;
  dueAt: number;
  firstAt: number;
  lastAt: number;
  /** Requests merged into it. */
  requests: number;
  /** The latest request's source and event. */
  source: string;
  event: string;
  /** A file inside the folder whose existence is checked before scanning. */
  fileHint?: string;
  /** Every request said its path is gone / at least one did. */
  allDeleted: boolean;
  anyDeleted: boolean;
  /** Existence checks done. */
  checks: number;
  /** Bumped by every new request: an answer for an older generation is superseded. */
  generation: number;
  state: 'waiting' | 'dispatching';
  lastError?: string;
  refresh?: 'item' | 'item-if-enabled';
  ids?: ExternalIds;
  /** The path as the sender sent it (before SERVER_PATH_MAPPINGS). */
  received?: string;
  /** One of its requests asked for a whole-library scan where the folder is a library's own (ScanRequest.libraryRoot). */
  libraryRoot?: boolean;
  /** The files its requests named (src/queue/files.ts), when any did. */
  files?: FolderFiles;
}

/** The files a folder's requests named: new or changed (`live`), deleted (`gone`); `more`: some were left out. */
export interface FolderFiles {
  live: string[];
  gone: string[];
  more?: true;
}

/** A folder due for one target: with that delivery's attempts and rescans so far. */
export interface DueDelivery extends Folder {
  attempts: number;
  rescans: number;
}

/** What the disk this service sees says of a path (src/paths/disk.ts asks it). */
export type PathState = 'file' | 'folder' | 'missing';

/** A delivery is one folder to one target: pending, then following (a follower watches the scan), then final. */
export const DELIVERY_STATES = ['pending', 'following', 'scanned', 'confirmed', 'not-found', 'unconfirmed', 'unmatched', 'refused'] as const;
export type DeliveryState = (typeof DELIVERY_STATES)[number];
export type FinalDeliveryState = Exclude<DeliveryState, 'pending' | 'following'>;

/** Which generation of which folder a follow-up belongs to: a newer request makes its answer superseded. */
export interface DeliveryRef {
  folderId: number;
  generation: number;
}

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
   * The folder is a library's own folder, whose scan is the whole library's, and nobody asked for that: recorded,
   * not retried. `detail` says what happened and what to do (src/targets/library-root.ts).
   */
  | { status: 'refused'; detail: string }
  /**
   * The scan did not happen; this folder is tried again after its own backoff. `targetDown`: the server gave no
   * answer at all (refused connection, timeout, DNS), which marks the whole server down. `tokenRefused`: it
   * answered 401/403, so the processor asks it at once whether the token still works (its probe lists libraries
   * with it). Any other answer (4xx, 5xx, a redirect) concerns this folder only, unless it is a 429 or 503 with
   * `retryAfter` (the header as sent): then the whole server is left alone until then (src/processor/server-hold.ts).
   */
  | { status: 'retry'; error: string; targetDown: boolean; tokenRefused?: boolean; retryAfter?: string };

/** A library (Plex section, Jellyfin/Emby/Audiobookshelf library, Sonarr series…) and the folders it holds. */
export interface Library {
  id: string;
  /** As people read it, e.g. "TV Shows (section 2)". */
  title: string;
  locations: string[];
}

/** How a target names a folder, and why it never reaches the target when it does not. */
export interface TargetPath {
  /** The folder in the target's own form (after its PATH_MAPPINGS). */
  path: string;
  /** The PATH_MAPPINGS pair that turned the folder into `path`. */
  rewrite?: { from: string; to: string };
  /** Why INCLUDE or EXCLUDE keeps the folder from this target. */
  excluded?: string;
}

export type Probe = { ok: true } | { ok: false; error: string };

/** Try an item's lookup or refresh again later, as for a scan; `targetDown` as in ScanOutcome. */
export type ItemRetry = { status: 'retry'; error: string; targetDown: boolean };

/** Where a server keeps the item(s) holding a file: Plex ratingKeys, Jellyfin/Emby ids. */
export type ItemLocation =
  | { status: 'found'; items: string[]; detail: string }
  /** No item of this server holds the file (not scanned in yet, or in no library). */
  | { status: 'not-found'; detail: string }
  | ItemRetry;

/** What refreshing the metadata of the item(s) holding a file came to. */
export type ItemRefreshResult =
  /** Each item was asked to refresh. */
  | { status: 'refreshed'; items: string[]; detail: string }
  /** No item of this server holds the file: nothing to refresh. */
  | { status: 'not-found'; detail: string }
  | ItemRetry;

/**
 * A media server or other receiver, by its capabilities. `scan` and `available` every target has; the others a
 * kind offers when its server can answer them. The doctor, the intake's library judge, item refresh and the
 * dashboard's server health use only these, so a server is called from its own module alone (src/targets/).
 */
export interface Target {
  /** Unique, stable name used as the delivery key in the queue (e.g. "plex", "jellyfin-4k"). */
  readonly name: string;
  /** Kind of server, its TARGETS TYPE: plex, plex-scanner, jellyfin, emby, command… */
  readonly kind: string;
  /** Minimum milliseconds between two scans sent to this target (0 = as fast as it answers). */
  readonly pauseMs: number;
  /** Scans sent at once while no pause is set (PLEX_SCAN_CONCURRENCY / SCAN_CONCURRENCY; default 8). */
  readonly concurrency?: number;
  /** Watches accepted scans to their end; absent when a scan is finished once the server accepted it. */
  readonly follower?: Follower;
  /**
   * Scans this server accepted and has not yet been seen to end (Plex: those its follower still follows). While
   * they reach `maxOutstanding`, due folders wait in our queue, where new requests merge, instead of in the server's.
   * Absent: the server's own queue is not watched and only the slots limit what is sent.
   */
  outstanding?(): number;
  /** The cap on `outstanding` (PLEX_MAX_OUTSTANDING / MAX_OUTSTANDING; default 8). */
  readonly maxOutstanding?: number;
  /** Scan one folder, given as the path the media server uses (after the target's own rewrite). */
  scan(folder: string, context: ScanContext): Promise<ScanOutcome>;
  /** Cheap reachability probe used while the target is marked down, and for the dashboard's server health. */
  available(): Promise<Probe>;
  /**
   * The libraries whose folders this target serves, from its list (src/targets/library-list.ts: one policy for
   * every kind). `fresh`: asked now. `holding`: a folder the caller looks for; when no library holds it, a list
   * older than half a minute is read again. Absent: the target takes any folder it is sent (command, relay).
   */
  libraries?(ask?: { fresh?: boolean; holding?: string }): Promise<Library[]>;
  /** The folder in this target's form, and whether INCLUDE/EXCLUDE let it through. Absent: as given, always. */
  pathOf?(folder: string): TargetPath;
  /** The item(s) holding a file (`file` as the queue holds it); a sidecar is looked up by the video beside it. */
  locate?(file: string): Promise<ItemLocation>;
  /** Refreshes the metadata of the item(s) `locate` finds for a file. */
  refreshItem?(file: string): Promise<ItemRefreshResult>;
  /**
   * Every file of one library's items (from `libraries`), a page at a time, in the server's own form: what the
   * reconcile (src/reconcile/) compares with the apps' files. Absent: the server cannot list them.
   */
  files?(library: Library): AsyncIterable<string[]>;
  /** For the path doctor: what scanning this folder would ask of the server (Jellyfin: which item is refreshed). */
  explainScan?(folder: string): Promise<string | undefined>;
  /** What people should know of the server's own settings, from what it last said (Jellyfin's real-time monitor). */
  serverNotes?(): string[];
  /** Rename and upgrade events refresh the item too (REFRESH_ITEMS / PLEX_REFRESH_ITEMS); asked-for refreshes always do. */
  readonly refreshOnChange?: boolean;
  /**
   * A scan of a library's own folder is a scan of the whole library (Plex, Jellyfin, Emby), so such a folder is
   * refused unless a person asked for it (ScanContext.libraryRoot; src/targets/library-root.ts).
   */
  readonly wholeLibraryAtRoot?: boolean;
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
  /** A person asked for a whole-library scan should the folder be a library's own (FolderRequest.libraryRoot). */
  libraryRoot?: boolean;
  /** Every file the folder's requests named, for a server that takes files (the Targeted Scans plugin). */
  files?: FolderFiles;
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
  /** No sign of the file once its scan ended (the server may have taken it and never run it): the stage asks once more. */
  askAgain?: boolean;
}

/** A server's notification socket: opening (never open yet), open (the server answered on it), reconnecting, closed (not wanted now). */
export type SocketState = 'opening' | 'open' | 'reconnecting' | 'closed';

/** What health shows of a follower's socket. */
export interface SocketStatus {
  state: SocketState;
  /** When the server last sent a frame or answered a ping (the follower's clock). */
  lastFrameAt?: number;
  /** Why it is reconnecting (refused, dropped, silent). */
  why?: string;
}

/** Follows the scans of one server. One per server, whatever the number of folders followed. */
export interface Follower {
  /**
   * Begins following; `done` is called once per item with what its follow-up found. `freed`, for a follower that
   * counts what its server holds (`Target.outstanding`): called when a scan's end is seen, which gives its slot
   * back before its file is judged.
   */
  start(done: (item: FollowItem, result: FollowResult) => Promise<void>, freed?: () => void): void;
  follow(item: FollowItem): void;
  /**
   * The server took a scan whose follow-up is superseded (its folder was asked again while the scan was on its way, and
   * the newer request is what will be followed): nothing is recorded of it, but a follower that counts what the
   * server holds (`Target.outstanding`) counts it until its end is seen.
   */
  superseded?(ticket: unknown): void;
  /** Items currently followed (health, tests). */
  readonly size: number;
  /**
   * The folders whose scan the server still holds for us: followed, or judged and their outcome not yet recorded.
   * For a server that counts what it holds (`Target.outstanding`), such a folder is not sent again meanwhile.
   */
  heldFolders?(): number[];
  /** Its notification socket, when it has one (health, the dashboard). */
  socketStatus?(): SocketStatus | undefined;
  stop(): Promise<void>;
}
