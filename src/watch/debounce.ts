// A quiet period per folder: every change to a folder restarts its wait, and the folder is handed on once,
// after DEBOUNCE seconds without a change (a copy writing many chunks, a season landing file by file).

export interface Scheduler {
  set(fn: () => void, ms: number): unknown;
  clear(handle: unknown): void;
}

export const timerScheduler: Scheduler = {
  set: (fn, ms) => {
    const t = setTimeout(fn, ms);
    t.unref?.();
    return t;
  },
  clear: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

interface Waiting {
  handle: unknown;
  /** Whether the latest change was the folder itself disappearing (its files going first do not count against it). */
  deleted: boolean;
}

export class FolderDebounce {
  private readonly waiting = new Map<string, Waiting>();

  constructor(
    private readonly delayMs: number,
    private readonly emit: (folder: string, deleted: boolean) => void,
    private readonly scheduler: Scheduler = timerScheduler,
  ) {}

  touch(folder: string, deleted = false): void {
    const before = this.waiting.get(folder);
    if (before) this.scheduler.clear(before.handle);
    const entry: Waiting = { handle: undefined, deleted };
    entry.handle = this.scheduler.set(() => this.fire(folder), this.delayMs);
    this.waiting.set(folder, entry);
  }

  get pending(): number {
    return this.waiting.size;
  }

  /** Hands on every waiting folder now (on shutdown, so nothing seen is lost). */
  flush(): void {
    for (const folder of [...this.waiting.keys()]) this.fire(folder);
  }

  private fire(folder: string): void {
    const entry = this.waiting.get(folder);
    if (!entry) return;
    this.scheduler.clear(entry.handle);
    this.waiting.delete(folder);
    this.emit(folder, entry.deleted);
  }
}
