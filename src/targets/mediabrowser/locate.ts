// Finds the deepest folder item a Jellyfin or Emby server already has for a folder: the item whose refresh
// covers the folder without walking the whole library. /Items has no path filter, so we walk down from the
// library's own item one level per path segment (GET /Items?ParentId=…&Filters=IsFolder&Fields=Path, paged), and
// keep each level we read: series and season folders rarely change, so a later folder of a known series costs
// no request, and a miss re-reads only the level that missed. Paging through a whole library for one folder
// (what autopulse does) took about 72 s on a large one.
import { systemClock, type Clock } from '../../clock.js';
import { isInside, joinPath, sameForm, trimTrailingSeparator } from '../../paths/folder.js';

/** A library as the server lists it: the item id /Items takes as ParentId, and its folders. */
export interface LibraryRoot {
  id: string;
  name: string;
  locations: string[];
}

export interface FolderItem {
  id: string;
  path: string;
  type: string;
}

/** One page of a parent's folder children: what GET /Items answers, reduced to what we read. */
export interface ChildPage {
  items: { Id?: unknown; Path?: unknown; Type?: unknown }[];
  total?: number;
}

/** Lists a parent's folder children; plugged into whatever HTTP caller the target has. */
export type ListChildren = (parentId: string, startIndex: number, limit: number) => Promise<ChildPage>;

export interface Located {
  library: LibraryRoot;
  /** The deepest known folder item holding the folder (the folder's own item when it has one). */
  item: FolderItem;
  /** Items from the library's item down to `item`: the parent of a deleted folder's item is the one before. */
  chain: FolderItem[];
  /** Path segments below the library location that `item` covers. */
  depth: number;
  isLibraryRoot: boolean;
  /** Listing requests this lookup made (0 when the cache knew the way). */
  requests: number;
}

export interface LocatorOptions {
  list: ListChildren;
  /** Items per listing request. */
  pageSize?: number;
  /** A level read this recently is not read again on a miss: folders due together share one re-read. */
  rereadAfterMs?: number;
  clock?: Clock;
}

/**
 * Folder items kept in all (about 40 MB), and the most one level is read for: a library root holds some thousands
 * of folders, the largest music libraries tens of thousands; a server that lists without end is read no further.
 * Past the total, the levels read longest ago are forgotten first (and read again when a folder needs them).
 */
export const MAX_FOLDERS = 200_000;

interface Level {
  children: FolderItem[];
  readAt: number;
}

export class ItemLocator {
  /** Oldest read first. */
  private readonly levels = new Map<string, Level>();
  /** Folder items the levels hold. */
  private held = 0;
  private readonly pageSize: number;
  private readonly rereadAfterMs: number;
  private readonly clock: Clock;

  constructor(private readonly opts: LocatorOptions) {
    this.pageSize = opts.pageSize ?? 500;
    this.rereadAfterMs = opts.rereadAfterMs ?? 1_000;
    this.clock = opts.clock ?? systemClock;
  }

  /** The library holding `folder` (the longest location that holds it), if any. */
  static libraryOf(libraries: LibraryRoot[], folder: string): { library: LibraryRoot; location: string } | undefined {
    let best: { library: LibraryRoot; location: string } | undefined;
    for (const library of libraries) {
      for (const location of library.locations) {
        if (isInside(folder, location) && (!best || location.length > best.location.length)) best = { library, location };
      }
    }
    return best;
  }

  /** The library's own item for `folder`, without a request: what the plugin, library and monitor ways need. */
  static rootOf(libraries: LibraryRoot[], folder: string): Located | undefined {
    const holder = ItemLocator.libraryOf(libraries, trimTrailingSeparator(folder));
    if (!holder) return undefined;
    const root: FolderItem = { id: holder.library.id, path: trimTrailingSeparator(holder.location), type: 'CollectionFolder' };
    return { library: holder.library, item: root, chain: [root], depth: 0, isLibraryRoot: true, requests: 0 };
  }

  async locate(libraries: LibraryRoot[], folder: string): Promise<Located | undefined> {
    const path = trimTrailingSeparator(folder);
    const holder = ItemLocator.libraryOf(libraries, path);
    if (!holder) return undefined;
    const { library, location } = holder;
    const root: FolderItem = { id: library.id, path: trimTrailingSeparator(location), type: 'CollectionFolder' };
    const segments = path.slice(root.path.length).split(/[\\/]/).filter(Boolean);
    const chain = [root];
    let requests = 0;
    for (let i = 0; i < segments.length; i++) {
      const parent = chain[chain.length - 1];
      const wanted = joinPath(parent.path, segments[i]);
      let level = this.levels.get(parent.id);
      if (!level) {
        level = await this.read(parent.id, (n) => (requests += n));
      }
      let child = find(level, wanted);
      if (!child && this.clock.now() - level.readAt >= this.rereadAfterMs) {
        level = await this.read(parent.id, (n) => (requests += n));
        child = find(level, wanted);
      }
      if (!child) break;
      chain.push(child);
    }
    const item = chain[chain.length - 1];
    return { library, item, chain, depth: chain.length - 1, isLibraryRoot: chain.length === 1, requests };
  }

  /** Forgets what was learnt below a library (or everything): after a refresh that may have changed it. */
  forget(parentId?: string): void {
    if (parentId === undefined) {
      this.levels.clear();
      this.held = 0;
    } else this.drop(parentId);
  }

  /** Folder items held now, for the bound's test. */
  get size(): number {
    return this.held;
  }

  private async read(parentId: string, counted: (n: number) => void): Promise<Level> {
    const children: FolderItem[] = [];
    for (let start = 0; ; start += this.pageSize) {
      const page = await this.opts.list(parentId, start, this.pageSize);
      counted(1);
      const items = Array.isArray(page.items) ? page.items : [];
      for (const raw of items) {
        if (typeof raw.Id === 'string' && typeof raw.Path === 'string') {
          children.push({ id: raw.Id, path: trimTrailingSeparator(raw.Path), type: typeof raw.Type === 'string' ? raw.Type : 'Folder' });
        }
      }
      const total = typeof page.total === 'number' ? page.total : start + items.length;
      if (items.length < this.pageSize || start + items.length >= total || children.length >= MAX_FOLDERS) break;
    }
    const level = { children, readAt: this.clock.now() };
    this.drop(parentId);
    this.levels.set(parentId, level);
    this.held += children.length;
    for (const [id] of this.levels) {
      if (this.held <= MAX_FOLDERS || id === parentId) break;
      this.drop(id);
    }
    return level;
  }

  private drop(parentId: string): void {
    this.held -= this.levels.get(parentId)?.children.length ?? 0;
    this.levels.delete(parentId);
  }
}

function find(level: Level, path: string): FolderItem | undefined {
  return level.children.find((c) => sameForm(c.path, path, path));
}

/** The query of one listing request, as ListChildren implementations send it (the SDK's getItems names). */
export function childrenQuery(parentId: string, startIndex: number, limit: number): Record<string, string> {
  // Filters=IsFolder: a movie library's root would otherwise list every movie, none of which can be a folder's
  // item. (GetItems binds no IsFolder parameter since 10.9; the filter is how it is asked: ItemsController.)
  return { ParentId: parentId, Filters: 'IsFolder', Fields: 'Path', StartIndex: String(startIndex), Limit: String(limit) };
}
