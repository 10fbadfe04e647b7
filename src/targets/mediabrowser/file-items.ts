// Which files a Jellyfin or Emby server already has an item for. The Targeted Scans plugin must never be sent one:
// it answers a path that is an item by replacing the metadata of that item (targeted-scans@0b5cabe
// TargetedScanService.cs L193-210), and a movie's folder by saving its Movie anew over the old one. Jellyfin's
// GET /Items has no path filter, so the files below the folder's nearest item are listed (`ParentId`,
// `Filters=IsNotFolder`, paged): directly below a season (its episodes) or a location (its movies); below a Series
// recursively, since a Series listed without recursion answers its Seasons only (jellyfin Series.cs L264-266) and
// episodes straight in a series folder (no season folders) would never be seen. Kept for a few seconds: a burst
// reads each level once. What the plugin answers is learnt at once (a file it created is an item, a file it
// removed is not).
import { MEDIABROWSER_ITEMS_PAGE } from '../../http/answer-caps.js';
import type { ApiCaller } from '../../http/api-call.js';
import type { Clock } from '../../clock.js';
import { parentFolder, trimTrailingSeparator } from '../../paths/folder.js';
import type { EmbyPaths } from './emby-paths.js';
import type { FolderItem } from './locate.js';

/** A level's files are read again after this: the server's own monitor may have added some meanwhile. */
export const FILES_TRUSTED_MS = 10_000;
const PAGE = 500;

/** The query of one page of a parent's files (the SDK's getItems names); `recursive`: every file below it. */
export function childFilesQuery(parentId: string, start: number, limit: number, recursive = false): Record<string, string> {
  return { ParentId: parentId, Filters: 'IsNotFolder', Fields: 'Path', ...(recursive ? { Recursive: 'true' } : {}), StartIndex: String(start), Limit: String(limit) };
}

interface Level {
  files: Map<string, FolderItem>;
  readAt: number;
}

export class FileItems {
  private readonly levels = new Map<string, Level>();

  /** `byPath`: Emby's lookup of one path's item, asked per file instead of listing the level. */
  constructor(private readonly opts: { api: ApiCaller; clock: Clock; byPath?: Pick<EmbyPaths, 'itemAt'> }) {}

  /**
   * The item of each of `files` that has one; `nearest`: the deepest folder item holding their folder. Undefined
   * when the server cannot tell (it listed items without their Path): then no file may go to the plugin.
   */
  async itemsOf(files: string[], nearest: FolderItem): Promise<Map<string, FolderItem> | undefined> {
    const byPath = await this.byPath(files);
    if (byPath) return byPath;
    const level = await this.level(nearest);
    if (!level) return undefined;
    const found = new Map<string, FolderItem>();
    for (const f of files) {
      const item = level.files.get(trimTrailingSeparator(f));
      if (item) found.set(f, item);
    }
    return found;
  }

  /** The file items directly inside `folder`, a folder that is no item itself (a movie's folder holds its Movie). */
  async inside(folder: string, nearest: FolderItem): Promise<FolderItem[] | undefined> {
    const level = await this.level(nearest);
    if (!level) return undefined;
    return [...level.files.values()].filter((i) => parentFolder(i.path) === trimTrailingSeparator(folder));
  }

  /**
   * What the plugin answered for `file` below `below`: `itemId` when it is an item now ('' when the answer named
   * none: the level is read again next time), undefined when it is not.
   */
  learn(file: string, below: FolderItem, itemId: string | undefined | ''): void {
    const level = this.levels.get(below.id);
    if (!level) return;
    if (itemId === '') this.levels.delete(below.id);
    else if (itemId) level.files.set(file, { id: itemId, path: file, type: 'Video' });
    else level.files.delete(file);
  }

  /** Each file asked by its path (Emby); undefined when the server does not filter by path. */
  private async byPath(files: string[]): Promise<Map<string, FolderItem> | undefined> {
    if (!this.opts.byPath) return undefined;
    const found = new Map<string, FolderItem>();
    for (const f of files) {
      const item = await this.opts.byPath.itemAt(f);
      if (item === undefined) return undefined;
      if (item) found.set(f, item);
    }
    return found;
  }

  private async level(parent: FolderItem): Promise<Level | undefined> {
    const parentId = parent.id;
    const cached = this.levels.get(parentId);
    if (cached && this.opts.clock.now() - cached.readAt < FILES_TRUSTED_MS) return cached;
    const files = new Map<string, FolderItem>();
    for (let start = 0; ; start += PAGE) {
      const page = await this.opts.api.json<{ Items?: { Id?: unknown; Path?: unknown; Type?: unknown }[]; TotalRecordCount?: unknown }>('GET', '/Items', { cap: MEDIABROWSER_ITEMS_PAGE, query: childFilesQuery(parentId, start, PAGE, parent.type === 'Series') });
      const items = Array.isArray(page?.Items) ? page.Items : [];
      for (const i of items) {
        if (typeof i.Id === 'string' && typeof i.Path === 'string') files.set(trimTrailingSeparator(i.Path), { id: i.Id, path: trimTrailingSeparator(i.Path), type: typeof i.Type === 'string' ? i.Type : 'Video' });
      }
      // Items without their Path (a proxy or server that drops Fields) cannot say which files are items.
      if (items.length && items.every((i) => typeof i.Path !== 'string')) return undefined;
      const total = typeof page?.TotalRecordCount === 'number' ? page.TotalRecordCount : start + items.length;
      if (items.length < PAGE || start + items.length >= total) break;
    }
    const level = { files, readAt: this.opts.clock.now() };
    this.levels.set(parentId, level);
    return level;
  }
}
