// The sentence people read when a Jellyfin or Emby library that scanrelay serves has real-time monitoring on
// (LibraryOptions.EnableRealtimeMonitor): the server then watches that library's folders itself and, 60 s after
// every change it sees on a local disk, queues a walk from the nearest known folder (a movie: the whole library) in
// the same refresh queue as scanrelay's refreshes (jellyfin@v10.11.11 Emby.Server.Implementations/IO/
// LibraryMonitor.cs:98-139, L211-246, L333-343). On a network mount (rclone, NFS, SMB) inotify raises nothing and it
// costs nothing. Said by the path doctor, the dashboard's server card and /health (docs/targets.md, "Which
// SCAN_METHOD for my setup").
import type { Library } from '../../scan.js';

/** A Jellyfin or Emby library as its list says it: with its real-time monitoring, when the list says it. */
export interface MediaBrowserLibrary extends Library {
  realtimeMonitor?: boolean;
}

/**
 * Where the setting is, per server: Jellyfin's label is jellyfin-web@v10.11.11 src/strings/en-us.json L727 (the
 * box, checked for a new library: libraryoptionseditor.template.html L60); Emby's web app is closed source.
 */
const WHERE = {
  jellyfin: "Dashboard → Libraries → the library's ⋯ → Manage library → untick 'Enable real time monitoring'",
  emby: 'Settings → Library → the library → Manage library → untick real time monitoring',
};

/** One sentence for the libraries with real-time monitoring on, or undefined when none has it. */
export function realtimeMonitorNote(kind: 'jellyfin' | 'emby', libraries: MediaBrowserLibrary[]): string | undefined {
  const on = libraries.filter((l) => l.realtimeMonitor === true);
  if (on.length === 0) return undefined;
  const names = on.map((l) => `'${l.title}'`).join(', ');
  return (
    `Real-time monitoring is on for ${on.length === 1 ? 'library' : 'libraries'} ${names}: on a local disk the server itself ` +
    `queues a walk from the nearest known folder (for a movie, the whole library) 60 s after every change it sees, in the ` +
    `same queue as scanrelay's refreshes; on a network mount (rclone, NFS, SMB) it sees nothing and costs nothing. With ` +
    `scanrelay sending each change, turn it off for a local disk: ${WHERE[kind]}.`
  );
}
