// How long each step of a Jellyfin or Emby follow-up may take, with the server's own defaults they follow.
/** How long each step may take; tests shorten them, the server's own defaults are cited where they come from. */
export interface FollowTimings {
  /** Between two looks at the server while follow-ups wait. */
  pollMs: number;
  /** After the scan was sent, before a listing: the refresh was only queued (ProviderManager.QueueRefresh). */
  settleMs: number;
  /** SCAN_METHOD media-updated: the library monitor refreshes after LibraryMonitorDelay, 60 s by default. */
  monitorDelayMs: number;
  /** Jellyfin's LibraryUpdateDuration: LibraryChanged goes out 30 s after the last change (ServerConfiguration.cs L178). */
  libraryUpdateMs: number;
  /** How much longer a LibraryChanged is waited for before the listing takes over. */
  socketGraceMs: number;
  /** The longest a follow-up waits for the refresh to be over before it lists anyway. */
  timeoutMs: number;
}

export const FOLLOW_TIMINGS: FollowTimings = { pollMs: 2_000, settleMs: 10_000, monitorDelayMs: 60_000, libraryUpdateMs: 30_000, socketGraceMs: 15_000, timeoutMs: 600_000 };
