// Jellyfin target: MediaBrowser scan with the Authorization header (Jellyfin 12 turned X-Emby-Token off)
// and libraries from /Library/VirtualFolders.
import type { Target } from '../scan.js';
import { mediaBrowserTarget, stringsOf, type Library, type MediaBrowserFlavour, type MediaBrowserOptions } from './mediabrowser.js';

export const jellyfin: MediaBrowserFlavour = {
  kind: 'jellyfin',
  authHeaders: (token) => ({ Authorization: `MediaBrowser Token="${token}"` }),
  librariesPath: '/Library/VirtualFolders',
  parseLibraries(body: unknown): Library[] {
    if (!Array.isArray(body)) return [];
    return body.map((folder: { Name?: unknown; Locations?: unknown }) => ({
      name: typeof folder?.Name === 'string' ? folder.Name : '?',
      locations: stringsOf(folder?.Locations),
    }));
  },
};

export function jellyfinTarget(opts: MediaBrowserOptions): Target {
  return mediaBrowserTarget(jellyfin, opts);
}
