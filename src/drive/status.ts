// What the Drive monitor reports: per-drive counters and state, one poll's summary, and the status page's view.
import type { SignInMethod } from './settings.js';

export interface DriveCounts {
  /** Changes read from the feed. */
  changes: number;
  /** Scan requests handed to the queue. */
  enqueued: number;
  /** New files the Plex database already has. */
  inPlex: number;
  /** Files outside GOOGLE.ALLOWED. */
  unwanted: number;
  /** Trashed or removed items (cache only: nothing is removed from Plex). */
  removed: number;
  /** Changes that did not change a file's content or place. */
  ignored: number;
  /** Folder changes (cache only). */
  folders: number;
  /** Files whose drive path no SERVER_PATH_MAPPINGS entry maps. */
  unmapped: number;
  /** Unknown parents fetched with files.get. */
  fetched: number;
  /** Change pages handled (and cursors saved). */
  pages: number;
}

export interface PollSummary {
  drives: number;
  counts: DriveCounts;
  errors: { drive: string; error: string }[];
}

export interface DriveState {
  /** "root" for My Drive, else the shared drive's ID. */
  key: string;
  name: string;
  /** The saved page token (where the next poll starts). */
  cursor?: string;
  lastPollAt?: number;
  lastSuccessAt?: number;
  lastError?: string;
  consecutiveFailures: number;
  /** Set while backing off after failures. */
  nextAttemptAt?: number;
  /** Since this process started. */
  counts: DriveCounts;
}

export interface DriveStatus {
  enabled: boolean;
  running: boolean;
  signIn: SignInMethod;
  /** Human description of where the token comes from (no secret). */
  tokenSource: string;
  pollIntervalSeconds: number;
  lastPollAt?: number;
  /** Setup problem (sign-in, drives.list) that stops every drive. */
  lastError?: string;
  nextAttemptAt?: number;
  drives: DriveState[];
  cachedItems: number;
}

export const emptyCounts = (): DriveCounts => ({
  changes: 0, enqueued: 0, inPlex: 0, unwanted: 0, removed: 0, ignored: 0, folders: 0, unmapped: 0, fetched: 0, pages: 0,
});
export const addCounts = (into: DriveCounts, from: DriveCounts) => {
  for (const k of Object.keys(into) as (keyof DriveCounts)[]) into[k] += from[k];
};

/** A drive being polled. */
export interface WatchedDrive extends DriveState {
  /** undefined for My Drive. */
  driveId?: string;
}
