// Emby's GET /Items takes a Path filter (Emby.SDK@58acc58 Resources/OpenApi/openapi_v3.json L8625-8632, "Optional
// filter by Path."; in the spec since SDK 4.7.5): a folder's or a file's item in one request, where Jellyfin's
// /Items has no such filter and the item is found by walking down from the library (mediabrowser/locate.ts).
// Emby is closed source, so what the filter matches is checked on every answer: only an item whose Path is the
// path asked counts, and an answer with items but none of that path means the filter was not applied; from then
// on this server is walked down as Jellyfin is.
import { MEDIABROWSER_ITEMS_PAGE } from '../../http/answer-caps.js';
import type { ApiCaller } from '../../http/api-call.js';
import { isInside, parentFolder, sameForm, trimTrailingSeparator } from '../../paths/folder.js';
import { ItemLocator, type FolderItem, type LibraryRoot, type Located } from './locate.js';

/** The query of one lookup by path (the spec's names). */
export function pathQuery(path: string): Record<string, string> {
  return { Path: path, Recursive: 'true', Fields: 'Path', Limit: '2' };
}

export class EmbyPaths {
  /** False once an answer showed the filter is not applied. */
  private honoured = true;

  constructor(private readonly api: ApiCaller) {}

  get usable(): boolean {
    return this.honoured;
  }

  /** The item at `path`; null when there is none; undefined when the server does not filter by path. */
  async itemAt(path: string): Promise<FolderItem | null | undefined> {
    if (!this.honoured) return undefined;
    const page = await this.api.json<{ Items?: { Id?: unknown; Path?: unknown; Type?: unknown }[] }>('GET', '/Items', { cap: MEDIABROWSER_ITEMS_PAGE, query: pathQuery(path) });
    const items = Array.isArray(page?.Items) ? page.Items : [];
    const hit = items.find((i) => typeof i.Path === 'string' && sameForm(trimTrailingSeparator(i.Path), trimTrailingSeparator(path), path));
    if (hit && typeof hit.Id === 'string') return { id: hit.Id, path: trimTrailingSeparator(String(hit.Path)), type: typeof hit.Type === 'string' ? hit.Type : 'Folder' };
    if (items.length > 0) {
      this.honoured = false;
      return undefined;
    }
    return null;
  }

  /**
   * The deepest item holding `folder`, asked from the folder up to the library's location (one request per level
   * without an item), and for a folder that is gone the item above it as well (its refresh is what removes it).
   * Undefined when the server does not filter by path (the caller walks down instead).
   */
  async locate(libraries: LibraryRoot[], folder: string, gone: boolean): Promise<Located | undefined> {
    const path = trimTrailingSeparator(folder);
    const root = ItemLocator.rootOf(libraries, path);
    if (!root) return undefined;
    const location = root.item.path;
    const found: FolderItem[] = [];
    let requests = 0;
    for (let p = path; isInside(p, location) && !sameForm(p, location, location); p = parentFolder(p)) {
      const item = await this.itemAt(p);
      requests++;
      if (item === undefined) return undefined;
      if (item) found.unshift(item);
      if (found.length && !(gone && found.length === 1 && found[0].path === path)) break;
    }
    const chain = [root.item, ...found];
    const item = chain[chain.length - 1];
    const depth = item === root.item ? 0 : item.path.slice(location.length).split(/[\\/]/).filter(Boolean).length;
    return { library: root.library, item, chain, depth, isLibraryRoot: chain.length === 1, requests };
  }
}
