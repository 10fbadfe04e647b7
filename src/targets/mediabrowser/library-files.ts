// Every file of one Jellyfin or Emby library's items, for the reconcile (src/reconcile/): GET /Items below the
// library, recursive, only the item types that are files, with their Path (filled only when Fields asks for it),
// paged by StartIndex/Limit against TotalRecordCount (jellyfin@c3ed1407ca Jellyfin.Api/Controllers/ItemsController.cs
// L171-261; Path only with Fields: Emby.Server.Implementations/Dto/DtoService.cs L1135; MediaBrowser.Model/Querying/
// QueryResult.cs L47-59).
import { MEDIABROWSER_ITEMS_PAGE } from '../../http/answer-caps.js';
import type { ApiCaller } from '../../http/api-call.js';
import type { Library } from '../../scan.js';

/** BaseItemKind names of the items that are one file each (a Series, Season or folder is no file). */
export const FILE_ITEM_TYPES = 'Movie,Episode,Audio,AudioBook,Book,MusicVideo,Video';
const PAGE = 500;

/** The query of one page of a library's files (the SDK's getItems names). */
export function libraryFilesQuery(parentId: string, start: number, limit: number): Record<string, string> {
  return { ParentId: parentId, Recursive: 'true', IncludeItemTypes: FILE_ITEM_TYPES, Fields: 'Path', EnableImages: 'false', StartIndex: String(start), Limit: String(limit) };
}

export async function* libraryFiles(api: ApiCaller, library: Library, pageSize = PAGE): AsyncGenerator<string[]> {
  for (let start = 0; ; start += pageSize) {
    const page = await api.json<{ Items?: { Path?: unknown }[]; TotalRecordCount?: unknown }>('GET', '/Items', { cap: MEDIABROWSER_ITEMS_PAGE, query: libraryFilesQuery(library.id, start, pageSize) });
    const items = Array.isArray(page?.Items) ? page.Items : [];
    yield items.flatMap((i) => (typeof i?.Path === 'string' ? [i.Path] : []));
    const total = typeof page?.TotalRecordCount === 'number' ? page.TotalRecordCount : start + items.length;
    if (items.length < pageSize || start + items.length >= total) return;
  }
}
