// What the Plex follower is built with: the ticket a delivery stores, the options, and how many lookups run at
// once. Each follow-up's own state is follow-up.ts's.
import type { Clock } from '../../../clock.js';
import type { Logger } from '../../../log/logger.js';
import type { ExternalIds } from '../../../scan.js';
import type { AfterScanSettings, DeletedCounter } from '../after-scan.js';
import type { PlexApi } from '../api.js';
import type { FileInLibrary } from '../confirm.js';
import type { PlexGet } from './item-files.js';
import type { MatchFixer } from '../match.js';
import type { PlexScanWatch } from './scan-watch.js';

/** What the Plex target hands its follower for one accepted scan (stored as JSON with the delivery). */
export interface PlexTicket {
  /** `type` (movie, show, …) picks the items to page through when nothing else can confirm; absent in old tickets. */
  sections: { id: string; title: string; type?: string }[];
  /** The file to confirm in the library, when the request named one and PLEX_CONFIRM_SCANS is on. */
  file?: string;
  /** The folder Plex was asked to scan (its form); absent in old tickets (the file's folder stands in). */
  folder?: string;
  /** The download's series/movie IDs, when PLEX_FIX_MISMATCHED is on. */
  ids?: ExternalIds;
  /**
   * Where each refresh stood in its section's line at Plex when Plex took it (PlexFollower.accepted): `run` is
   * the follower that counted, so a ticket read back after a restart is not placed in a new count.
   */
  accepted?: { run: string; at: number; seq: Record<string, number> };
}

export interface PlexFollowerOptions {
  api: PlexApi;
  clock: Clock;
  logger: Logger;
  /** PLEX_FOLLOW_INTERVAL in ms: one /activities request per interval, whatever the number of folders. */
  pollMs: number;
  /** How long a section must stay idle before a file that is still not in the library is judged (per section). */
  graceMs: number;
  /** PLEX_CONFIRM_TIMEOUT in ms: the longest a scan is followed. */
  timeoutMs: number;
  after: AfterScanSettings;
  /** Analyze needs a confirmed item: off with PLEX_CONFIRM_SCANS false. */
  analyze: boolean;
  fileInLibrary?: FileInLibrary;
  deletedCount?: DeletedCounter;
  exists?: (path: string) => Promise<boolean>;
  /** PLEX_FIX_MISMATCHED. */
  fixer?: MatchFixer;
  /** A scan outstanding this long with its sections idle in /activities is over, whatever the socket says (poll.ts). */
  releaseAfterMs?: number;
  /** The server's notification socket; without it, scans are followed by polling /activities alone. */
  watch?: PlexScanWatch;
  /** GET on Plex for the items' files; through `api` by default. */
  get?: PlexGet;
}

/**
 * File lookups in flight during a batch. They are reads Plex answers from its database in milliseconds; 16 keep
 * a batch of 600 files (what arrives in one interval at full delivery speed) within that interval.
 */
export const LOOKUPS_AT_ONCE = 16;

/**
 * The files of a batch are looked up and finished this many at a time unless the trash is to be emptied (once
 * per section, after the whole batch): a poll judges the oldest first, so those that waited longest for it do
 * not also wait for the lookups of the whole batch (600 of them take most of an interval on a busy server).
 */
export const FINISHED_TOGETHER = LOOKUPS_AT_ONCE * 4;
