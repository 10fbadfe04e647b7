// The item of one location (physical folder) of a Jellyfin library with several: refreshing it walks that folder
// only, where the library's CollectionFolder walks every location in turn (jellyfin@v10.11.11 ProviderManager.cs
// L1091-1099). Jellyfin names no such item in any listing a key can read, but its id is a function of its path:
// MD5 over UTF-16LE of the type's full name and the path (LibraryManager.cs L636-657 GetNewItemIdInternal,
// MediaBrowser.Common/Extensions/BaseExtensions.cs L30-35 GetMD5), the path lower-cased when
// EnableCaseSensitiveItemIds is off (ServerConfiguration.cs L89, on by default), printed as a .NET Guid ("N"). Each
// id is checked with GET /Items?Ids= before use: a server that answers no such item gets the library refresh.
// Emby's ids are not derived from paths, but its /Items takes a Path filter (emby-paths.ts): there each location's
// item is asked for by its path, and the same rule holds (one not found, the library refresh).
import { createHash } from 'node:crypto';
import { MEDIABROWSER_ITEMS_PAGE } from '../../http/answer-caps.js';
import type { ApiCaller } from '../../http/api-call.js';
import { isInside, trimTrailingSeparator } from '../../paths/folder.js';
import type { FolderItem } from './locate.js';

/** Guid.ToString("N") of 16 bytes: the first three fields are little-endian. */
const GUID_ORDER = [3, 2, 1, 0, 5, 4, 7, 6, 8, 9, 10, 11, 12, 13, 14, 15];

/** The id Jellyfin gives the plain Folder at `path` (case-sensitive ids, the default, or lower-cased). */
export function folderItemId(path: string, caseSensitive = true): string {
  const key = `MediaBrowser.Controller.Entities.Folder${caseSensitive ? path : path.toLowerCase()}`;
  const md5 = createHash('md5').update(Buffer.from(key, 'utf16le')).digest();
  return GUID_ORDER.map((i) => md5[i].toString(16).padStart(2, '0')).join('');
}

/**
 * The items of the locations holding `folders`, each checked with the server; undefined when the library has one
 * location (its own refresh is the same walk) or any of them cannot be confirmed.
 */
export async function locationFolders(
  api: ApiCaller,
  locations: string[],
  folders: string[],
  byPath?: (path: string) => Promise<FolderItem | null | undefined>,
): Promise<FolderItem[] | undefined> {
  if (locations.length < 2) return undefined;
  const holding = locations.map(trimTrailingSeparator).filter((l) => folders.some((f) => isInside(f, l)));
  if (holding.length === 0 || holding.length === locations.length) return undefined;
  if (byPath) {
    const items = await Promise.all(holding.map((path) => byPath(path).catch(() => undefined)));
    return items.every((i) => i) ? items.map((i, n) => ({ id: i!.id, path: holding[n], type: 'Folder' })) : undefined;
  }
  const candidates = holding.flatMap((path) => [true, false].map((exact) => ({ id: folderItemId(path, exact), path })));
  const page = await api.json<{ Items?: { Id?: unknown; Path?: unknown }[] }>('GET', '/Items', { cap: MEDIABROWSER_ITEMS_PAGE, query: { Ids: candidates.map((c) => c.id).join(','), Fields: 'Path' } }).catch(() => undefined);
  const found = (Array.isArray(page?.Items) ? page.Items : []).filter((i) => typeof i.Id === 'string' && typeof i.Path === 'string');
  const items = holding.map((path) => {
    const hit = found.find((i) => candidates.some((c) => c.id === String(i.Id).replace(/-/g, '').toLowerCase() && c.path === path) && trimTrailingSeparator(String(i.Path)) === path);
    return hit ? { id: String(hit.Id), path, type: 'Folder' } : undefined;
  });
  return items.every((i) => i !== undefined) ? (items as FolderItem[]) : undefined;
}
