// The "jellyfin" kind: MediaBrowser scans with the Authorization header (Jellyfin 12 turned X-Emby-Token off) and
// libraries from /Library/VirtualFolders, whose ItemId is the library's id for /Items.
import type { MediaBrowserLibrary } from './mediabrowser/realtime-monitor.js';
import { mediaBrowserRequests } from './mediabrowser/requests.js';
import { mediaBrowserKind, mediaBrowserTarget, stringsOf, type MediaBrowserServer, type MediaBrowserOptions } from './mediabrowser/target.js';

export const jellyfinServer: MediaBrowserServer = {
  kind: 'jellyfin',
  authHeaders: (token) => ({ Authorization: `MediaBrowser Token="${token}"` }),
  librariesPath: '/Library/VirtualFolders',
  parseLibraries(body: unknown): MediaBrowserLibrary[] {
    if (!Array.isArray(body)) return [];
    return body.map((folder: { Name?: unknown; ItemId?: unknown; Locations?: unknown; LibraryOptions?: { EnableRealtimeMonitor?: unknown } }) => {
      const title = typeof folder?.Name === 'string' ? folder.Name : '?';
      // VirtualFolderInfo.LibraryOptions (MediaBrowser.Model/Entities/VirtualFolderInfo.cs:40).
      const monitor = folder?.LibraryOptions?.EnableRealtimeMonitor;
      return { id: typeof folder?.ItemId === 'string' ? folder.ItemId : title, title, locations: stringsOf(folder?.Locations), ...(typeof monitor === 'boolean' ? { realtimeMonitor: monitor } : {}) };
    });
  },
};

export const jellyfin = mediaBrowserKind(jellyfinServer);

export function jellyfinTarget(opts: MediaBrowserOptions) {
  return mediaBrowserTarget(jellyfinServer, opts);
}

/** Every request this kind sends (the SDK conformance test reads it). */
export const jellyfinRequests = mediaBrowserRequests('jellyfin', jellyfinServer.librariesPath);
