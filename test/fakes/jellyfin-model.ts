// A model of how Jellyfin 10.11 turns "this changed" into items, for tests and benchmarks. What it keeps apart, as
// the server does: the disk (what exists) and the database (what is an item, and whether it has metadata). A
// folder item's refresh is a validate that walks the disk below it, run one at a time from the server's priority
// queue; its findings become items only when it ends. Costs are counted in entries walked and take `msPerEntry`
// each on the injected clock. Each behaviour cites jellyfin/jellyfin at v10.11.11 (file:line); docs/targets.md
// has the same citations for people.
import { createHash } from 'node:crypto';
import { isInside, parentFolder } from '../../src/paths/folder.js';
import type { ClockScheduler } from './clock-scheduler.js';
import { DotNetPriorityQueue, PRIORITY, type Priority } from './refresh-queue.js';

export type LibraryKind = 'tvshows' | 'movies';
export type ItemType = 'CollectionFolder' | 'Folder' | 'Series' | 'Season' | 'Episode' | 'Movie';
export type RefreshMode = 'None' | 'ValidationOnly' | 'Default' | 'FullRefresh';

export interface ModelItem {
  Id: string;
  Name: string;
  Path: string;
  Type: ItemType;
  IsFolder: boolean;
  ParentId?: string;
  libraryId: string;
  /** The disk change (its time stamp) this item was last brought up to. */
  synced: number;
  /**
   * Since when it has metadata (a refresh ran for it; -Infinity: long ago), undefined while it has none: a
   * ReplaceAllMetadata asked for after that overwrites metadata that existed.
   */
  metadataAt?: number;
}

export interface ModelLibrary {
  /** The CollectionFolder's id: /Library/VirtualFolders' ItemId. */
  id: string;
  name: string;
  kind: LibraryKind;
  /** The first of `locations`. */
  location: string;
  /** VirtualFolderInfo.Locations: a library may have several folders. */
  locations: string[];
  /** The physical folder at `location` (a plain Folder, a child of the root folder, not of the CollectionFolder). */
  physicalId: string;
  /** The physical folder of each of `locations`, in order. */
  physicalIds: string[];
  /** LibraryOptions.EnableRealtimeMonitor (MediaBrowser.Model/Configuration/LibraryOptions.cs:47). */
  realtimeMonitor: boolean;
  /** On a network mount inotify never fires, so the real-time monitor sees nothing there. */
  networkMount: boolean;
}

export interface RefreshOptions {
  mode: RefreshMode;
  replaceAll: boolean;
}

export interface Validate {
  itemId: string;
  path: string;
  /** The folders it walked: a CollectionFolder's refresh walks each of its physical folders. */
  walkedPaths: string[];
  /** Entries walked: everything on disk below the item when it started, plus the item. */
  entries: number;
  startedAt: number;
  endsAt: number;
  why: string;
  priority: Priority;
  options: RefreshOptions;
}

/** An item whose metadata a refresh overwrote (ReplaceAllMetadata on an item that had some). */
export interface Replacement {
  itemId: string;
  path: string;
  at: number;
  why: string;
}

interface DiskEntry {
  kind: 'file' | 'folder';
  changedAt: number;
}

/** One thing the database learnt about a path, and when: the log that says when a change showed. */
interface Shown {
  at: number;
  what: 'created' | 'synced' | 'removed';
  change: number;
}

interface Waiting {
  itemId: string;
  why: string;
  priority: Priority;
  options: RefreshOptions;
  queuedAt: number;
}

export interface ModelOptions {
  scheduler: ClockScheduler;
  /** What one entry of a walk costs (the benchmark's 2 ms). */
  msPerEntry?: number;
  /**
   * What a new video's first metadata refresh adds to the walk that finds it: every provider runs for an item
   * that has none (MetadataService.cs:95, L620-624: ffprobe, remote providers, images), and trickplay and chapter
   * images when the library extracts them during scans (MediaBrowser.Providers/Trickplay/TrickplayProvider.cs:98-101).
   */
  msPerNewItem?: number;
}

/**
 * A physical folder's id: ResolverHelper.SetInitialItemValues gives an item GetNewItemId(path, type)
 * (ResolverHelper.cs:62-131; LibraryManager.cs:636-657): MD5 over UTF-16LE of "MediaBrowser.Controller.Entities.Folder"
 * and the path (case-sensitive ids, ServerConfiguration.cs:89), a .NET Guid (BaseExtensions.cs:30-35) printed "N".
 */
function physicalFolderId(path: string): string {
  const b = createHash('md5').update(Buffer.from(`MediaBrowser.Controller.Entities.Folder${path}`, 'utf16le')).digest();
  const hex = (from: number, to: number, reversed: boolean) => {
    const part = [...b.subarray(from, to)];
    return (reversed ? part.reverse() : part).map((x) => x.toString(16).padStart(2, '0')).join('');
  };
  return hex(0, 4, true) + hex(4, 6, true) + hex(6, 8, true) + hex(8, 16, false);
}

const VIDEO = /\.(mkv|mp4|m4v|avi|ts|webm|mov|iso)$/i;

/** BaseItem.ChangedExternally and the web client's "Scan for new and updated files": Default, nothing replaced. */
export const DEFAULT_REFRESH: RefreshOptions = { mode: 'Default', replaceAll: false };

export class JellyfinModel {
  readonly libraries: ModelLibrary[] = [];
  readonly disk = new Map<string, DiskEntry>();
  readonly items = new Map<string, ModelItem>();
  private readonly byPath = new Map<string, ModelItem>();
  private readonly shown = new Map<string, Shown[]>();
  private readonly removedFromDisk = new Map<string, number>();
  private readonly queue = new DotNetPriorityQueue<Waiting>();
  running: Validate | undefined;
  readonly validates: Validate[] = [];
  readonly replacements: Replacement[] = [];
  /**
   * Items a Default refresh overwrote because their file changed: a refresh of an item whose file date moved runs
   * every provider (requiresRefresh, MetadataService.cs:99-110 → L620-624) and merges with shouldReplace set for
   * "Scan for new and updated files" too (L858-860): unlocked fields take the providers' values. Kept apart from
   * `replacements`, which no request may cause: this one is the server's answer to a changed file, whatever asked.
   */
  readonly overwritten: Replacement[] = [];
  /** Items removed while their path is still on disk (a plugin deleting a folder to re-create it): their metadata is lost. */
  readonly lost: Replacement[] = [];
  /** Entries walked by every validate and plugin scan so far, in all and per library id. */
  walked = 0;
  readonly walkedIn = new Map<string, number>();
  readonly log: string[] = [];
  private nextId = 1;
  readonly msPerEntry: number;
  readonly msPerNewItem: number;
  /** Told of every item the database adds, brings up to a change, or removes (the server's LibraryChanged). */
  changes?: { added(item: ModelItem): void; updated(item: ModelItem): void; removed(item: ModelItem): void };
  /** Told of every path the disk creates or deletes (what a FileSystemWatcher would raise; jellyfin-monitor.ts). */
  onDiskChange?: (path: string) => void;

  constructor(readonly opts: ModelOptions) {
    this.msPerEntry = opts.msPerEntry ?? 2;
    this.msPerNewItem = opts.msPerNewItem ?? 0;
  }

  private get now(): number {
    return this.opts.scheduler.now();
  }

  /**
   * A library: its CollectionFolder (a virtual folder under the server's config; its locations are
   * PhysicalLocations and PhysicalFolderIds, CollectionFolder.cs:58-62) and the physical folder at its location, a
   * child of the root folder (GetPhysicalFolders reads RootFolder.Children, L339-369), which the library monitor
   * and FindByPath find; listing the CollectionFolder's children lists the physical folders' (GetActualChildren,
   * L329-332). Several locations: one physical folder each (VirtualFolderInfo.Locations).
   */
  addLibrary(name: string, kind: LibraryKind, location: string | string[], options: { realtimeMonitor?: boolean; networkMount?: boolean } = {}): ModelLibrary {
    const locations = Array.isArray(location) ? location : [location];
    const id = this.newId();
    const physicalIds = locations.map((l) => physicalFolderId(l));
    const lib: ModelLibrary = { id, name, kind, location: locations[0], locations, physicalId: physicalIds[0], physicalIds, realtimeMonitor: !!options.realtimeMonitor, networkMount: !!options.networkMount };
    this.libraries.push(lib);
    this.insert({ Id: id, Name: name, Path: `/config/root/default/${name}`, Type: 'CollectionFolder', IsFolder: true, libraryId: id, synced: this.now, metadataAt: -Infinity });
    locations.forEach((loc, i) => {
      this.disk.set(loc, { kind: 'folder', changedAt: this.now });
      this.insert({ Id: physicalIds[i], Name: locations.length === 1 ? name : loc.slice(loc.lastIndexOf('/') + 1), Path: loc, Type: 'Folder', IsFolder: true, libraryId: id, synced: this.now, metadataAt: -Infinity });
    });
    return lib;
  }

  /** The location of a library holding `path`, and its physical folder. */
  locationOf(path: string): { lib: ModelLibrary; location: string; physical: ModelItem } | undefined {
    for (const lib of this.libraries) {
      const i = lib.locations.findIndex((l) => isInside(path, l));
      if (i >= 0) return { lib, location: lib.locations[i], physical: this.items.get(lib.physicalIds[i])! };
    }
    return undefined;
  }

  // ---- the disk ----

  /** A file appears (or is replaced): it and its missing parent folders exist from now on. */
  writeFile(path: string): void {
    const created: string[] = [];
    for (let p = parentFolder(path); !this.disk.has(p) && p !== parentFolder(p); p = parentFolder(p)) created.unshift(p);
    for (const p of created) this.disk.set(p, { kind: 'folder', changedAt: this.now });
    this.disk.set(path, { kind: 'file', changedAt: this.now });
    this.removedFromDisk.delete(path);
    for (const p of [...created, path]) this.onDiskChange?.(p);
  }

  /** A file or a whole folder goes. */
  remove(path: string): void {
    for (const p of [...this.disk.keys()]) {
      if (isInside(p, path)) {
        this.disk.delete(p);
        this.removedFromDisk.set(p, this.now);
      }
    }
    this.onDiskChange?.(path);
  }

  /** The database catches up with the disk at no cost: the library as it was scanned long ago. */
  settle(): void {
    const changes = this.changes;
    this.changes = undefined;
    for (const lib of this.libraries) lib.physicalIds.forEach((id, i) => this.apply(this.items.get(id)!, this.snapshot(lib.locations[i])));
    for (const item of this.items.values()) item.metadataAt = -Infinity;
    this.changes = changes;
    this.shown.clear();
  }

  // ---- the database ----

  /** LibraryManager.FindByPath: the item whose Path is `path` (a library's location: its physical folder). */
  itemAt(path: string): ModelItem | undefined {
    return this.byPath.get(path);
  }

  /** An item's children; a CollectionFolder's are its physical folders' (CollectionFolder.GetActualChildren). */
  children(parentId: string): ModelItem[] {
    const lib = this.libraries.find((l) => l.id === parentId);
    const ids = lib ? lib.physicalIds : [parentId];
    return [...this.items.values()].filter((i) => i.ParentId !== undefined && ids.includes(i.ParentId));
  }

  libraryOf(path: string): ModelLibrary | undefined {
    return this.locationOf(path)?.lib;
  }

  /** When the database first showed the disk's present state of `path`, or undefined while it does not. */
  shownAt(path: string): number | undefined {
    const log = this.shown.get(path) ?? [];
    const entry = this.disk.get(path);
    if (entry) return log.find((s) => s.what !== 'removed' && s.change >= entry.changedAt)?.at;
    const gone = this.removedFromDisk.get(path);
    return gone === undefined ? undefined : log.find((s) => s.what === 'removed' && s.at >= gone)?.at;
  }

  // ---- the refresh queue: one refresh at a time, in the PriorityQueue's order ----

  /**
   * ProviderManager.QueueRefresh (ProviderManager.cs:1003-1025): enqueue, and start the loop if none runs. The
   * loop (L1027-1073) dequeues one entry at a time and awaits it; an id no longer found is skipped (L1046-1051).
   * POST /Items/{id}/Refresh queues at High (ItemRefreshController.cs:90-91); false when there is no such item.
   */
  queueRefresh(itemId: string, why: string, opts: { priority?: Priority; options?: RefreshOptions } = {}): boolean {
    if (!this.items.has(itemId)) return false;
    this.queue.enqueue({ itemId, why, priority: opts.priority ?? 'High', options: opts.options ?? DEFAULT_REFRESH, queuedAt: this.now }, PRIORITY[opts.priority ?? 'High']);
    if (!this.running) this.startNext();
    return true;
  }

  get idle(): boolean {
    return !this.running && this.queue.size === 0;
  }

  get queued(): number {
    return this.queue.size;
  }

  /** The item waits in the refresh queue (ProviderManager.GetRefreshQueue: the ids waiting). */
  isQueued(itemId: string): boolean {
    return this.queue.unordered().some((q) => q.itemId === itemId);
  }

  /**
   * RefreshStatus as GetVirtualFolders(true) says it (LibraryManager.cs:1331-1335): Active while a physical folder
   * of the library validates (CollectionFolder.GetRefreshProgress, L224-246), Queued only while the
   * CollectionFolder's own id waits: a monitor walk queues the physical folder and reads Idle until it runs.
   */
  refreshStatus(lib: ModelLibrary): 'Active' | 'Queued' | 'Idle' {
    if (this.running && (this.running.itemId === lib.id || lib.physicalIds.includes(this.running.itemId))) return 'Active';
    return this.isQueued(lib.id) ? 'Queued' : 'Idle';
  }

  private startNext(): void {
    const next = this.queue.dequeue();
    if (!next) return;
    const item = this.items.get(next.itemId);
    if (!item) return this.startNext();
    // A CollectionFolder's refresh validates each of its physical folders in turn (RefreshCollectionFolderChildren,
    // L1091-1099): every location of the library, not only the one that changed. Any other folder validates itself,
    // recursively (RefreshItem, L1075-1089; Folder.ValidateChildren L288).
    const lib = item.Type === 'CollectionFolder' ? this.libraries.find((l) => l.id === item.Id) : undefined;
    const walkedItems = lib ? lib.physicalIds.map((id) => this.items.get(id)!) : [item];
    const snaps = walkedItems.map((w) => (w.IsFolder ? this.snapshot(w.Path) : new Map([[w.Path, this.disk.get(w.Path)]].filter(([, e]) => e) as [string, DiskEntry][])));
    const entries = snaps.reduce((n, snap, i) => n + snap.size + (walkedItems[i].IsFolder ? 1 : 0), 0);
    // A new video's first refresh runs every provider (MetadataService.cs:95, L620-624): counted per file with no item.
    const fresh = snaps.reduce((n, snap) => n + [...snap].filter(([p, e]) => e.kind === 'file' && !this.byPath.has(p)).length, 0);
    const cost = entries * this.msPerEntry + fresh * this.msPerNewItem;
    const v: Validate = { itemId: item.Id, path: walkedItems[0].Path, walkedPaths: walkedItems.map((w) => w.Path), entries, startedAt: this.now, endsAt: this.now + cost, why: next.why, priority: next.priority, options: next.options };
    // The refresh reads every item it covers (Folder.RefreshMetadataRecursive, Folder.cs:573-580, with the same
    // options): metadata they had when it was asked for is what a ReplaceAllMetadata overwrites
    // (MetadataService.cs:167, L858-861). Metadata fetched since (a new item's first refresh) was never anyone's.
    const covers = (i: ModelItem) => walkedItems.some((w) => i === w || (w.IsFolder && isInside(i.Path, w.Path)));
    const covered = [...this.items.values()].filter(covers);
    const hadMetadata = covered.filter((i) => i.metadataAt !== undefined && i.metadataAt < next.queuedAt).map((i) => i.Id);
    this.running = v;
    this.validates.push(v);
    walkedItems.forEach((w, i) => this.countWalk(w.Path, snaps[i].size + (w.IsFolder ? 1 : 0)));
    this.log.push(`refresh ${item.Type} ${v.walkedPaths.join(', ')} (${entries} entries; ${next.priority}, ${next.options.mode}${next.options.replaceAll ? ', ReplaceAllMetadata' : ''}; ${next.why})`);
    this.opts.scheduler.at(v.endsAt, () => {
      const replaces = next.options.replaceAll && next.options.mode !== 'None' && next.options.mode !== 'ValidationOnly';
      // Default (or a FullRefresh) over an item whose file changed since it was read overwrites its unlocked
      // fields (MetadataService.cs:99-110, L858-860); ValidationOnly and None run no provider that merges.
      if (!replaces && (next.options.mode === 'Default' || next.options.mode === 'FullRefresh')) {
        for (const id of hadMetadata) {
          const i = this.items.get(id);
          const e = i && !i.IsFolder ? snaps.find((snap) => snap.has(i.Path))?.get(i.Path) : undefined;
          if (i && e && e.changedAt > i.synced) this.overwritten.push({ itemId: i.Id, path: i.Path, at: this.now, why: next.why });
        }
      }
      walkedItems.forEach((w, i) => {
        const still = this.items.get(w.Id);
        if (still) this.apply(still, snaps[i]);
      });
      if (replaces) for (const id of hadMetadata) this.replaced(this.items.get(id), next.why);
      if (next.options.mode !== 'None') {
        for (const i of this.items.values()) if (covers(i) && i.metadataAt === undefined) i.metadataAt = this.now;
      }
      this.running = undefined;
      this.startNext();
    });
  }

  /** What the disk holds below `path` right now: a validate works from what it saw when it started. */
  private snapshot(path: string): Map<string, DiskEntry> {
    const snap = new Map<string, DiskEntry>();
    for (const [p, e] of this.disk) if (p !== path && isInside(p, path)) snap.set(p, { ...e });
    return snap;
  }

  /**
   * The end of a validate of `root` (Folder.ValidateChildrenInternal2, Folder.cs:373-571): new entries become
   * items (CreateItems L480), items whose path was not seen go (DeleteItem L473), known ones are brought up.
   */
  apply(root: ModelItem, seen: Map<string, DiskEntry>): void {
    if (!root.IsFolder) {
      const e = seen.get(root.Path);
      if (e) this.bringUpTo(root, e.changedAt);
      return;
    }
    const paths = [...seen.keys()].sort((a, b) => a.length - b.length);
    const holding = new Set([...seen].filter(([p, e]) => e.kind === 'file' && VIDEO.test(p)).map(([p]) => parentFolder(p)));
    for (const p of paths) {
      const e = seen.get(p)!;
      const existing = this.byPath.get(p);
      if (existing) this.bringUpTo(existing, e.changedAt);
      else this.resolve(p, e, holding);
    }
    // A validate drops its own children that are gone (Folder.cs L453-476): items below it by parentage, not by
    // path (a Movie whose folder was made a plain Folder later is still its location's child).
    for (const item of [...this.items.values()]) {
      if (item !== root && this.isBelow(item, root) && !seen.has(item.Path)) this.drop(item);
    }
  }

  /**
   * The item a validate resolves `path` to, if any. A movie's folder resolves to no item of its own: the Movie's
   * Path is its video file (MovieResolver.FindMovie, MovieResolver.cs:459-479); a folder in a movie library that
   * holds no video of its own (`/movies/hd`, `/movies/A-Z/B`) is a plain Folder (MovieResolver.cs:481-486, then
   * FolderResolver.cs:18-33), the parent of the movies below it. In a TV library the first folder below a
   * location is a Series (SeriesResolver.cs:62-74), the next a Season, and a video directly in a series folder
   * (no season folders) an Episode whose parent is the Series.
   */
  resolve(path: string, e: DiskEntry, holding?: Set<string>): ModelItem | undefined {
    const parent = this.nearestItem(parentFolder(path));
    if (!parent || !this.locationOf(path)) return undefined;
    const type = this.typeOf(path, e.kind, holding);
    if (!type) return undefined;
    return this.create(path, type, parent, e.changedAt, 'validate');
  }

  /** What `path` resolves to (see resolve); undefined: no item of its own. */
  typeOf(path: string, kind: 'file' | 'folder', holding?: Set<string>): ItemType | undefined {
    const at = this.locationOf(path);
    // Only a video file is a Movie or an Episode (NamingOptions.VideoFileExtensions); a sidecar is none.
    if (!at || (kind === 'file' && !VIDEO.test(path))) return undefined;
    if (at.lib.kind === 'movies') {
      if (kind === 'file') return 'Movie';
      const holdsVideo = holding ? holding.has(path) : [...this.disk].some(([p, d]) => d.kind === 'file' && VIDEO.test(p) && parentFolder(p) === path);
      return holdsVideo ? undefined : 'Folder';
    }
    const depth = path.slice(at.location.length).split('/').filter(Boolean).length;
    if (kind === 'folder') return depth === 1 ? 'Series' : depth === 2 ? 'Season' : undefined;
    return depth >= 2 ? 'Episode' : undefined;
  }

  /** `item` is a child of `root`, or a child's child… (a CollectionFolder's children are its physical folders'). */
  private isBelow(item: ModelItem, root: ModelItem): boolean {
    const lib = root.Type === 'CollectionFolder' ? this.libraries.find((l) => l.id === root.Id) : undefined;
    const roots = lib ? lib.physicalIds : [root.Id];
    for (let p = item.ParentId; p !== undefined; p = this.items.get(p)?.ParentId) if (roots.includes(p)) return true;
    return false;
  }

  /** The item at `path` or the nearest one above it. */
  nearestItem(path: string): ModelItem | undefined {
    for (let p = path; ; p = parentFolder(p)) {
      const item = this.byPath.get(p);
      if (item || p === parentFolder(p)) return item;
    }
  }

  /**
   * Saves an item at `path`. Its id is made from its path and type (Emby.Server.Implementations/Library/
   * ResolverHelper.cs:36, 76), and SaveItems writes over a row with that id, deleting its provider ids, images and
   * locked fields first (Jellyfin.Server.Implementations/Item/BaseItemRepository.cs:619-671): an item already
   * there is saved anew, its metadata gone (counted replaced).
   */
  create(path: string, type: ItemType, parent: ModelItem, change: number, why: string): ModelItem {
    const there = this.byPath.get(path);
    if (there && there.Type === type) {
      this.replaced(there, why);
      there.metadataAt = undefined;
      this.bringUpTo(there, change);
      return there;
    }
    const lib = this.libraryOf(path)!;
    const item: ModelItem = { Id: this.newId(), Name: path.slice(path.lastIndexOf('/') + 1), Path: path, Type: type, IsFolder: type !== 'Episode' && type !== 'Movie', ParentId: parent.Id, libraryId: lib.id, synced: change };
    this.insert(item);
    this.note(path, 'created', change);
    this.changes?.added(item);
    return item;
  }

  /** The item now reflects the disk's change stamped `change` (a refresh of its metadata). */
  bringUpTo(item: ModelItem, change: number): void {
    if (change > item.synced) {
      this.note(item.Path, 'synced', change);
      this.changes?.updated(item);
    }
    item.synced = Math.max(item.synced, change);
  }

  /** Removes an item and everything below it. */
  drop(item: ModelItem): void {
    for (const child of this.children(item.Id)) this.drop(child);
    if (!this.items.delete(item.Id)) return;
    this.byPath.delete(item.Path);
    if (this.disk.has(item.Path) && item.metadataAt !== undefined) this.lost.push({ itemId: item.Id, path: item.Path, at: this.now, why: 'removed while on disk' });
    this.note(item.Path, 'removed', this.now);
    this.changes?.removed(item);
  }

  private replaced(item: ModelItem | undefined, why: string): void {
    if (item?.metadataAt !== undefined) this.replacements.push({ itemId: item.Id, path: item.Path, at: this.now, why });
  }

  private insert(item: ModelItem): void {
    this.items.set(item.Id, item);
    this.byPath.set(item.Path, item);
  }

  private note(path: string, what: Shown['what'], change: number): void {
    const log = this.shown.get(path) ?? [];
    log.push({ at: this.now, what, change });
    this.shown.set(path, log);
  }

  private newId(): string {
    return (this.nextId++).toString(16).padStart(32, '0');
  }

  /** Counts `entries` walked at `path`, toward its library too. */
  countWalk(path: string, entries: number): void {
    this.walked += entries;
    const lib = this.libraryOf(path);
    if (lib) this.walkedIn.set(lib.id, (this.walkedIn.get(lib.id) ?? 0) + entries);
  }

  /** What one validate of the whole library walks: everything on disk below it, and the root. */
  libraryWalk(lib: ModelLibrary): number {
    return lib.locations.reduce((n, l) => n + this.countBelow(l) + 1, 0);
  }

  /** Every entry on disk below `path`. */
  countBelow(path: string): number {
    return this.snapshot(path).size;
  }

  snapshotOf(path: string): Map<string, DiskEntry> {
    return this.snapshot(path);
  }
}
