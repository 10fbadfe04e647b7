// Jellyfin's LibraryChangedNotifier as the fakes run it (jellyfin@c3ed140
// Emby.Server.Implementations/EntryPoints/LibraryChangedNotifier.cs L166-340): every item added, updated or
// removed is collected and restarts a timer of LibraryUpdateDuration (30 s by default, ServerConfiguration.cs
// L178); when it fires, one LibraryChanged goes to the sockets of users (FakeMediaBrowserSocket sends none to an
// API key's). ItemsUpdated leaves out items also added; FoldersAddedTo/FoldersRemovedFrom are the parents of
// added/removed items; CollectionFolders lists every library once any folder was added to or removed from.
// Time is the ClockScheduler's: nothing here sleeps.
import type { ClockScheduler, ScheduledEvent } from './clock-scheduler.js';
import type { FakeMediaBrowserSocket } from './mediabrowser-socket.js';

export class FakeLibraryChangedNotifier {
  private readonly added = new Set<string>();
  private readonly updated = new Set<string>();
  private readonly removed = new Set<string>();
  private readonly foldersAddedTo = new Set<string>();
  private readonly foldersRemovedFrom = new Set<string>();
  private timer?: ScheduledEvent;
  /** Each message sent: when, and to how many sockets. */
  readonly sent: { at: number; sockets: number; added: string[]; updated: string[]; removed: string[] }[] = [];

  constructor(
    private readonly scheduler: ClockScheduler,
    private readonly socket: FakeMediaBrowserSocket,
    private readonly libraries: () => string[],
    readonly quietMs = 30_000,
  ) {}

  itemAdded(id: string, parentId?: string): void {
    this.added.add(id);
    if (parentId) this.foldersAddedTo.add(parentId);
    this.restart();
  }

  itemUpdated(id: string): void {
    this.updated.add(id);
    this.restart();
  }

  itemRemoved(id: string, parentId?: string): void {
    this.removed.add(id);
    if (parentId) this.foldersRemovedFrom.add(parentId);
    this.restart();
  }

  private restart(): void {
    this.scheduler.cancel(this.timer);
    this.timer = this.scheduler.after(this.quietMs, () => this.flush());
  }

  private flush(): void {
    this.timer = undefined;
    const added = [...this.added];
    const updated = [...this.updated].filter((id) => !this.added.has(id));
    const removed = [...this.removed];
    const folders = this.foldersAddedTo.size + this.foldersRemovedFrom.size > 0;
    const sockets = this.socket.libraryChanged({
      ItemsAdded: added,
      ItemsUpdated: updated,
      ItemsRemoved: removed,
      FoldersAddedTo: [...this.foldersAddedTo],
      FoldersRemovedFrom: [...this.foldersRemovedFrom],
      CollectionFolders: folders ? this.libraries() : [],
    });
    this.sent.push({ at: this.scheduler.now(), sockets, added, updated, removed });
    for (const s of [this.added, this.updated, this.removed, this.foldersAddedTo, this.foldersRemovedFrom]) s.clear();
  }
}
