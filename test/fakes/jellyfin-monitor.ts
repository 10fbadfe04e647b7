// The library monitor as Jellyfin 10.11 runs it (jellyfin/jellyfin@v10.11.11, Emby.Server.Implementations/IO/
// LibraryMonitor.cs and FileRefresher.cs), fed two ways: POST /Library/Media/Updated (`report`) and, for a
// library with real-time monitoring on a local disk, the server's own FileSystemWatcher (`watched`). A path joins
// an active refresher, every join restarts its timer of LibraryMonitorDelay (60 s by default), and when it fires
// each path refreshes the nearest item the database knows, in the same refresh queue as everything else.
import { isInside, parentFolder } from '../../src/paths/folder.js';
import type { ClockScheduler, ScheduledEvent } from './clock-scheduler.js';
import type { JellyfinModel, ModelItem } from './jellyfin-model.js';

interface Refresher {
  path: string;
  affected: string[];
  timer?: ScheduledEvent;
}

export class LibraryMonitor {
  private readonly refreshers: Refresher[] = [];
  /** Each refresher that fired: the paths it held and the items it refreshed. */
  readonly fired: { at: number; paths: string[]; items: string[] }[] = [];

  constructor(
    private readonly model: JellyfinModel,
    private readonly scheduler: ClockScheduler,
    readonly delayMs = 60_000,
  ) {}

  get active(): number {
    return this.refreshers.length;
  }

  /**
   * A change the disk made. Watchers exist only for libraries whose LibraryOptions.EnableRealtimeMonitor is on
   * (IsLibraryMonitorEnabled, LibraryMonitor.cs:98-108; Start L111-139), one per location, IncludeSubdirectories
   * (L211-246); each Created, Deleted, Renamed or Changed event is reported as a change (OnWatcherChanged,
   * L333-343). On a network mount inotify raises nothing, so nothing reaches the monitor from there.
   */
  watched(path: string): void {
    const lib = this.model.libraryOf(path);
    if (lib?.realtimeMonitor && !lib.networkMount) this.report(path);
  }

  /** ReportFileSystemChanged (L346-381), then CreateRefresher (L383-425). UpdateType is never read. */
  report(path: string): void {
    const parent = parentFolder(path);
    for (const r of this.refreshers) {
      // The same path: RestartTimer (L392-396).
      if (r.path === path) return this.restart(r);
      // Inside the refresher's path: AddPath, which restarts (L399-403; FileRefresher.cs:51-61).
      if (isInside(path, r.path)) {
        this.add(r, path);
        return this.restart(r);
      }
      // Above it: ResetPath(path, null) (L406-410; FileRefresher.cs:88-104).
      if (isInside(r.path, path)) {
        r.path = path;
        this.add(r, path);
        return this.restart(r);
      }
      // A sibling: the refresher is rebased onto the common parent, which is refreshed too (L413-418).
      if (parent !== path && parentFolder(r.path) === parent) {
        r.path = parent;
        this.add(r, parent);
        this.add(r, path);
        return this.restart(r);
      }
    }
    const r: Refresher = { path, affected: [path] };
    this.refreshers.push(r);
    this.restart(r);
  }

  private add(r: Refresher, path: string): void {
    if (!r.affected.includes(path)) r.affected.push(path);
  }

  /** RestartTimer (FileRefresher.cs:63-86): LibraryMonitorDelay seconds from now (ServerConfiguration.cs:172: 60). */
  private restart(r: Refresher): void {
    this.scheduler.cancel(r.timer);
    r.timer = this.scheduler.after(this.delayMs, () => this.fire(r));
  }

  /** OnTimerCallback → ProcessPathChanges (FileRefresher.cs:106-156): each distinct item, ChangedExternally. */
  private fire(r: Refresher): void {
    this.refreshers.splice(this.refreshers.indexOf(r), 1);
    const items: ModelItem[] = [];
    for (const p of r.affected) {
      const item = this.affectedItem(p);
      if (item && !items.includes(item)) items.push(item);
    }
    for (const item of items) {
      this.model.log.push(`${item.Name} (${item.Path}) will be refreshed.`);
      // BaseItem.ChangedExternally (BaseItem.cs:1950-1953): a Default refresh at High.
      this.model.queueRefresh(item.Id, `library monitor: ${r.affected.join(', ')}`);
    }
    this.fired.push({ at: this.scheduler.now(), paths: [...r.affected], items: items.map((i) => i.Path) });
  }

  /**
   * GetAffectedBaseItem (FileRefresher.cs:163-189): the nearest path up that is an item (a library's location is
   * its physical folder, not the CollectionFolder, so RefreshStatus reads Idle while that walk waits); if that
   * item is gone from disk, its nearest parent.
   */
  affectedItem(path: string): ModelItem | undefined {
    let item: ModelItem | undefined;
    for (let p = path; !item; p = parentFolder(p)) {
      item = this.model.itemAt(p);
      if (p === parentFolder(p)) break;
    }
    while (item && !this.model.disk.has(item.Path)) item = item.ParentId ? this.model.items.get(item.ParentId) : undefined;
    return item;
  }
}
