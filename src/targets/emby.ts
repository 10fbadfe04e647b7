// The "emby" kind: MediaBrowser scans with X-Emby-Token and libraries from /Library/SelectableMediaFolders, whose
// Id is the library's id for /Items.
import type { Library } from '../scan.js';
import { mediaBrowserKind, mediaBrowserTarget, type MediaBrowserFlavour, type MediaBrowserOptions } from './mediabrowser.js';

export const embyFlavour: MediaBrowserFlavour = {
  kind: 'emby',
  authHeaders: (token) => ({ 'X-Emby-Token': token }),
  librariesPath: '/Library/SelectableMediaFolders',
  parseLibraries(body: unknown): Library[] {
    if (!Array.isArray(body)) return [];
    return body.map((folder: { Name?: unknown; Id?: unknown; SubFolders?: unknown }) => {
      const title = typeof folder?.Name === 'string' ? folder.Name : '?';
      const locations = Array.isArray(folder?.SubFolders)
        ? folder.SubFolders.map((s: { Path?: unknown }) => s?.Path).filter((p): p is string => typeof p === 'string' && p.length > 0)
        : [];
      return { id: typeof folder?.Id === 'string' ? folder.Id : title, title, locations };
    });
  },
};

export const emby = mediaBrowserKind(embyFlavour);

export function embyTarget(opts: MediaBrowserOptions) {
  return mediaBrowserTarget(embyFlavour, opts);
}
