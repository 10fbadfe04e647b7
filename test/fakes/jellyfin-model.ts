// A model of how Jellyfin 10.10-12 turns "this changed" into items, for tests and benchmarks. What it keeps
// apart, as the server does: the disk (what exists) and the database (what is an item). A folder item's refresh
// is a validate that walks the disk below it, run from one queue one at a time; its findings become items only
// when it ends. Costs are counted in entries walked and take `msPerEntry` each on the injected clock.
// The facts modelled, with the server code they come from, are in docs/targets.md (Jellyfin and Emby).
import { isInside, parentFolder } from '../../src/paths/folder.js';
import type { ClockScheduler } from './clock-scheduler.js';

export type LibraryKind = 'tvshows' | 'movies';
export type ItemType = 'CollectionFolder' | 'Series' | 'Season' | 'Episode' | 'Movie';

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
}

export interface ModelLibrary {
  id: string;
  name: string;
  kind: LibraryKind;
  location: string;
}

export interface Validate {
  itemId: string;
  path: string;
  /** Entries walked: everything on disk below the item when it started, plus the item. */
  entries: number;
  startedAt: number;
  endsAt: number;
  why: string;
}

/** What the disk holds at a path: a file or folder, and when it last changed. */
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

export interface ModelOptions {
  scheduler: ClockScheduler;
  /** What one entry of a walk costs (the benchmark's 2 ms). */
  msPerEntry?: number;
}

export class JellyfinModel {
  readonly libraries: ModelLibrary[] = [];
  readonly disk = new Map<string, DiskEntry>();
  readonly items = new Map<string, ModelItem>();
  private readonly byPath = new Map<string, ModelItem>();
  private readonly shown = new Map<string, Shown[]>();
  private readonly removedFromDisk = new Map<string, number>();
  /** The refresh queue (ProviderManager's): item ids waiting, and the validate running. */
  private readonly queue: { itemId: string; why: string }[] = [];
  running: Validate | undefined;
  readonly validates: Validate[] = [];
  /** Entries walked by every validate and plugin scan so far, in all and per library id. */
  walked = 0;
  readonly walkedIn = new Map<string, number>();
  readonly log: string[] = [];
  private nextId = 1;
  readonly msPerEntry: number;
  /** Told of every item the database adds, brings up to a change, or removes (the server's LibraryChanged). */
  changes?: { added(item: ModelItem): void; updated(item: ModelItem): void; removed(item: ModelItem): void };

  constructor(readonly opts: ModelOptions) {
    this.msPerEntry = opts.msPerEntry ?? 2;
  }

  private get now(): number {
    return this.opts.scheduler.now();
  }

  addLibrary(name: string, kind: LibraryKind, location: string): ModelLibrary {
    const lib = { id: this.newId(), name, kind, location };
    this.libraries.push(lib);
    this.disk.set(location, { kind: 'folder', changedAt: this.now });
    this.insert({ Id: lib.id, Name: name, Path: location, Type: 'CollectionFolder', IsFolder: true, libraryId: lib.id, synced: this.now });
    return lib;
  }

  // ---- the disk ----

  /** A file appears (or is replaced): it and its missing parent folders exist from now on. */
  writeFile(path: string): void {
    this.disk.set(path, { kind: 'file', changedAt: this.now });
    this.removedFromDisk.delete(path);
    for (let p = parentFolder(path); !this.disk.has(p) && p !== parentFolder(p); p = parentFolder(p)) {
      this.disk.set(p, { kind: 'folder', changedAt: this.now });
    }
  }

  /** A file or a whole folder goes. */
  remove(path: string): void {
    for (const p of [...this.disk.keys()]) {
      if (isInside(p, path)) {
        this.disk.delete(p);
        this.removedFromDisk.set(p, this.now);
      }
    }
  }

  /** The database catches up with the disk at no cost: the library as it was scanned long ago. */
  settle(): void {
    // Long ago: no LibraryChanged is still due for it.
    const changes = this.changes;
    this.changes = undefined;
    for (const lib of this.libraries) this.apply(this.items.get(lib.id)!, this.snapshot(lib.location));
    this.changes = changes;
    this.shown.clear();
  }

  // ---- the database ----

  itemAt(path: string): ModelItem | undefined {
    return this.byPath.get(path);
  }

  children(parentId: string): ModelItem[] {
    return [...this.items.values()].filter((i) => i.ParentId === parentId);
  }

  libraryOf(path: string): ModelLibrary | undefined {
    return this.libraries.find((l) => isInside(path, l.location));
  }

  /**
   * When the database first showed the disk's present state of `path` (an item for a file that exists, brought
   * up to its last change; no item for one removed), or undefined while it does not.
   */
  shownAt(path: string): number | undefined {
    const log = this.shown.get(path) ?? [];
    const entry = this.disk.get(path);
    if (entry) return log.find((s) => s.what !== 'removed' && s.change >= entry.changedAt)?.at;
    const gone = this.removedFromDisk.get(path);
    return gone === undefined ? undefined : log.find((s) => s.what === 'removed' && s.at >= gone)?.at;
  }

  // ---- the refresh queue: one validate at a time ----

  /** POST /Items/{id}/Refresh and the monitor's ChangedExternally: false when there is no such item. */
  queueRefresh(itemId: string, why: string): boolean {
    if (!this.items.has(itemId)) return false;
    this.queue.push({ itemId, why });
    if (!this.running) this.startNext();
    return true;
  }

  /** Nothing queued or running. */
  get idle(): boolean {
    return !this.running && this.queue.length === 0;
  }

  get queued(): number {
    return this.queue.length;
  }

  /** The item waits in the refresh queue (a library's RefreshStatus "Queued"). */
  isQueued(itemId: string): boolean {
    return this.queue.some((q) => q.itemId === itemId);
  }

  private startNext(): void {
    const next = this.queue.shift();
    if (!next) return;
    const item = this.items.get(next.itemId);
    // An item deleted while it waited is skipped, as the server's queue skips an id it no longer finds.
    if (!item) return this.startNext();
    const snap = item.IsFolder ? this.snapshot(item.Path) : new Map([[item.Path, this.disk.get(item.Path)]].filter(([, e]) => e) as [string, DiskEntry][]);
    const entries = snap.size + (item.IsFolder ? 1 : 0);
    const v: Validate = { itemId: item.Id, path: item.Path, entries, startedAt: this.now, endsAt: this.now + entries * this.msPerEntry, why: next.why };
    this.running = v;
    this.validates.push(v);
    this.countWalk(item.Path, entries);
    this.log.push(`validate ${item.Type} ${item.Path} (${entries} entries; ${next.why})`);
    this.opts.scheduler.at(v.endsAt, () => {
      const still = this.items.get(item.Id);
      if (still) this.apply(still, snap);
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

  /** The end of a validate of `root`: new entries become items, items whose path was not seen go. */
  apply(root: ModelItem, seen: Map<string, DiskEntry>): void {
    if (!root.IsFolder) {
      const e = seen.get(root.Path);
      if (e) this.bringUpTo(root, e.changedAt);
      return;
    }
    const paths = [...seen.keys()].sort((a, b) => a.length - b.length);
    for (const p of paths) {
      const e = seen.get(p)!;
      const existing = this.byPath.get(p);
      if (existing) this.bringUpTo(existing, e.changedAt);
      else this.resolve(p, e);
    }
    for (const item of [...this.items.values()]) {
      if (item !== root && isInside(item.Path, root.Path) && !seen.has(item.Path)) this.drop(item);
    }
  }

  /** Creates the item `path` resolves to, if any (a movie's folder resolves to none). */
  resolve(path: string, e: DiskEntry): ModelItem | undefined {
    const lib = this.libraryOf(path);
    if (!lib) return undefined;
    const depth = path.slice(lib.location.length).split('/').filter(Boolean).length;
    const parent = lib.kind === 'movies' ? this.items.get(lib.id) : this.byPath.get(parentFolder(path));
    if (!parent) return undefined;
    let type: ItemType | undefined;
    if (lib.kind === 'movies') type = e.kind === 'file' ? 'Movie' : undefined;
    else if (e.kind === 'folder') type = depth === 1 ? 'Series' : depth === 2 ? 'Season' : undefined;
    else type = depth >= 2 ? 'Episode' : undefined;
    if (!type) return undefined;
    const name = path.slice(path.lastIndexOf('/') + 1);
    const item: ModelItem = { Id: this.newId(), Name: name, Path: path, Type: type, IsFolder: e.kind === 'folder', ParentId: parent.Id, libraryId: lib.id, synced: e.changedAt };
    this.insert(item);
    this.note(path, 'created', e.changedAt);
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
    this.note(item.Path, 'removed', this.now);
    this.changes?.removed(item);
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
    return this.countBelow(lib.location) + 1;
  }

  /** Every entry on disk below `path` (the cost of creating what is there). */
  countBelow(path: string): number {
    return this.snapshot(path).size;
  }

  snapshotOf(path: string): Map<string, DiskEntry> {
    return this.snapshot(path);
  }
}
