// The "emby" kind: MediaBrowser scans with X-Emby-Token and libraries from /Library/VirtualFolders/Query (Emby 4.7
// and later: Emby.SDK@58acc58 openapi_v3.json L49976), a QueryResult of VirtualFolderInfo (L89489-89530) whose
// ItemId is the library's id for /Items and which carries each library's RefreshStatus and LibraryOptions, as
// Jellyfin's /Library/VirtualFolders does. Its /Items takes a Path filter (emby-paths.ts).
import { mediaBrowserRequests } from './mediabrowser/requests.js';
import { mediaBrowserKind, mediaBrowserTarget, stringsOf, type MediaBrowserServer, type MediaBrowserOptions } from './mediabrowser/target.js';
import type { MediaBrowserLibrary } from './mediabrowser/realtime-monitor.js';

export const embyServer: MediaBrowserServer = {
  kind: 'emby',
  authHeaders: (token) => ({ 'X-Emby-Token': token }),
  librariesPath: '/Library/VirtualFolders/Query',
  parseLibraries(body: unknown): MediaBrowserLibrary[] {
    const items = (body as { Items?: unknown } | undefined)?.Items;
    if (!Array.isArray(items)) return [];
    return items.map((folder: { Name?: unknown; ItemId?: unknown; Id?: unknown; Locations?: unknown; LibraryOptions?: { EnableRealtimeMonitor?: unknown } }) => {
      const title = typeof folder?.Name === 'string' ? folder.Name : '?';
      // "Id: ItemId came first, so that is left for compatability purposes" (the spec): the same value.
      const id = typeof folder?.ItemId === 'string' ? folder.ItemId : typeof folder?.Id === 'string' ? folder.Id : title;
      const monitor = folder?.LibraryOptions?.EnableRealtimeMonitor;
      return { id, title, locations: stringsOf(folder?.Locations), ...(typeof monitor === 'boolean' ? { realtimeMonitor: monitor } : {}) };
    });
  },
};

export const emby = mediaBrowserKind(embyServer);

export function embyTarget(opts: MediaBrowserOptions) {
  return mediaBrowserTarget(embyServer, opts);
}
