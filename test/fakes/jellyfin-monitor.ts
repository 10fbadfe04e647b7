// The library monitor behind POST /Library/Media/Updated, as Jellyfin 10.10-12 runs it (LibraryMonitor
// .CreateRefresher and FileRefresher; docs/targets.md cites the lines): a path joins an active refresher
// (same path: its timer restarts; below it: added; above it: the refresher moves up; a sibling: the refresher
// moves to their common parent), every join restarts a timer of LibraryMonitorDelay (60 s by default), and when
// it fires each path refreshes the nearest item the database knows, climbing past paths that are no item.
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

  /** ReportFileSystemChanged: what POST /Library/Media/Updated does with each Path. UpdateType is not read. */
  report(path: string): void {
    const parent = parentFolder(path);
    for (const r of this.refreshers) {
      if (r.path === path) return this.restart(r);
      if (isInside(path, r.path)) {
        this.add(r, path);
        return this.restart(r);
      }
      if (isInside(r.path, path)) {
        r.path = path;
        this.add(r, path);
        return this.restart(r);
      }
      // Siblings: the refresher is rebased onto their parent, which is then refreshed too.
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

  private restart(r: Refresher): void {
    this.scheduler.cancel(r.timer);
    r.timer = this.scheduler.after(this.delayMs, () => this.fire(r));
  }

  private fire(r: Refresher): void {
    this.refreshers.splice(this.refreshers.indexOf(r), 1);
    const items: ModelItem[] = [];
    for (const p of r.affected) {
      const item = this.affectedItem(p);
      if (item && !items.includes(item)) items.push(item);
    }
    for (const item of items) {
      this.model.log.push(`${item.Name} (${item.Path}) will be refreshed.`);
      this.model.queueRefresh(item.Id, `library monitor: ${r.affected.join(', ')}`);
    }
    this.fired.push({ at: this.scheduler.now(), paths: [...r.affected], items: items.map((i) => i.Path) });
  }

  /** GetAffectedBaseItem: the nearest path up that is an item; if that item is gone from disk, its nearest parent. */
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
