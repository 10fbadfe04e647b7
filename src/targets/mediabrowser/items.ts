// The Jellyfin or Emby item(s) holding a file: the libraries holding it are paged through (GET /Items with
// Fields=Path, Filters=IsNotFolder: GetItems binds no IsFolder parameter) for the item whose Path is the file (a sidecar: the video beside it). Refreshing one is
// POST /Items/{id}/Refresh.
import { ACKNOWLEDGEMENT, MEDIABROWSER_ITEMS_PAGE } from '../../http/answer-caps.js';
import type { ApiCaller } from '../../http/api-call.js';
import { lookupCandidates } from '../../paths/sidecar.js';
import type { ItemLocation, Library } from '../../scan.js';

/** `libraries`: those holding the file, with the ids /Items takes as ParentId. Rejects when the server does not answer. */
export async function locateMediaBrowserItems(api: ApiCaller, who: string, libraries: Library[], file: string, pageSize = 500): Promise<ItemLocation> {
  if (libraries.length === 0) return { status: 'not-found', detail: `'${file}' is in no library of ${who}` };
  const wanted = lookupCandidates(file);
  const found = new Map<string, number>();
  for (const lib of libraries) {
    for (let start = 0; ; start += pageSize) {
      const page = await api.json<{ Items?: { Id?: unknown; Path?: unknown }[]; TotalRecordCount?: unknown }>('GET', '/Items', {
        cap: MEDIABROWSER_ITEMS_PAGE,
        query: fileItemsQuery(lib.id, start, pageSize),
      });
      const items = Array.isArray(page?.Items) ? page.Items : [];
      for (const item of items) {
        const rank = typeof item.Path === 'string' ? wanted.indexOf(item.Path) : -1;
        if (rank >= 0 && typeof item.Id === 'string' && !found.has(item.Id)) found.set(item.Id, rank);
      }
      const total = typeof page?.TotalRecordCount === 'number' ? page.TotalRecordCount : start + items.length;
      if (items.length < pageSize || start + items.length >= total) break;
    }
  }
  const where = libraries.map((l) => l.title).join(', ');
  if (found.size === 0) return { status: 'not-found', detail: `no item of ${who} holds '${file}' (${where})` };
  // The file itself before a video guessed from a sidecar's name.
  const best = Math.min(...found.values());
  const ids = [...found].filter(([, rank]) => rank === best).map(([id]) => id);
  return { status: 'found', items: ids, detail: `item ${ids.join(', ')} in ${where}` };
}

/** One page of the files below a library (GetItems binds no IsFolder parameter: Filters=IsNotFolder asks it). */
export function fileItemsQuery(parentId: string, start: number, limit: number): Record<string, string> {
  return { ParentId: parentId, Recursive: 'true', Filters: 'IsNotFolder', Fields: 'Path', StartIndex: String(start), Limit: String(limit) };
}

/**
 * A file's item reread from its file (a rename, an upgrade, a subtitle added): Default, as the web client's "Scan
 * for new and updated files". That reprobes a file whose date changed and picks up new external subtitles and audio
 * (jellyfin@v10.11.11 MediaBrowser.Providers/MediaInfo/ProbeProvider.cs:123-158, which Default runs when it says the
 * item changed: MetadataService.cs:615-660), and never asks for all providers again (FullRefresh) nor for
 * existing metadata to be replaced.
 */
export const ITEM_REFRESH_QUERY = { MetadataRefreshMode: 'Default', ImageRefreshMode: 'Default', ReplaceAllMetadata: 'false', ReplaceAllImages: 'false' };

export async function refreshMediaBrowserItem(api: ApiCaller, id: string): Promise<void> {
  await api.call('POST', `/Items/${encodeURIComponent(id)}/Refresh`, { cap: ACKNOWLEDGEMENT, query: ITEM_REFRESH_QUERY });
}
