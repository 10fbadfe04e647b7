// Emby target: MediaBrowser scan with X-Emby-Token and libraries from /Library/SelectableMediaFolders.
import type { Target } from '../scan.js';
import { mediaBrowserTarget, type Library, type MediaBrowserFlavour, type MediaBrowserOptions } from './mediabrowser.js';

export const emby: MediaBrowserFlavour = {
  kind: 'emby',
  authHeaders: (token) => ({ 'X-Emby-Token': token }),
  librariesPath: '/Library/SelectableMediaFolders',
  parseLibraries(body: unknown): Library[] {
    if (!Array.isArray(body)) return [];
    return body.map((folder: { Name?: unknown; SubFolders?: unknown }) => ({
      name: typeof folder?.Name === 'string' ? folder.Name : '?',
      locations: Array.isArray(folder?.SubFolders)
        ? folder.SubFolders.map((s: { Path?: unknown }) => s?.Path).filter(
            (p): p is string => typeof p === 'string' && p.length > 0,
          )
        : [],
    }));
  },
};

export function embyTarget(opts: MediaBrowserOptions): Target {
  return mediaBrowserTarget(emby, opts);
}
