// The polling backend, for mounts where inotify sees nothing (rclone, NFS, SMB): the tree is walked every
// interval and each folder is reduced to one number (a hash of its files' names, sizes and times), so a tree of a
// million files costs one map entry per folder, not per file. A folder whose number changed is reported.
import { dirname, join } from 'node:path';
import { systemClock, type Clock } from '../clock.js';
import { lstat } from '../file-system.js';
import type { Logger } from '../log/logger.js';
import { ConditionLog } from '../log/condition.js';
import type { PathFilter } from './filter.js';
import type { FolderChange } from './inotify.js';
import { walkFolders } from './walk.js';

export interface PollOptions {
  root: string;
  recursive: boolean;
  filter: PathFilter;
  intervalMs: number;
  onChange: (change: FolderChange) => void;
  logger: Logger;
  /** Stats in flight at once: enough to keep a network mount busy, few enough to leave the thread pool to others. */
  concurrency?: number;
  /** For the "still unreadable" summaries (default: the system clock). */
  clock?: Clock;
}

export interface PollSummary {
  folders: number;
  files: number;
  changed: number;
  ms: number;
}

/** FNV-1a, 32 bits. */
function fnv(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

export class PollWatcher {
  /** Folder → signature of its accepted files (-1: no accepted file). */
  private snapshot = new Map<string, number>();
  private timer?: NodeJS.Timeout;
  private running?: Promise<PollSummary>;
  private stopped = false;
  private walking = false;
  last?: PollSummary;
  /** Folders that cannot be read are said once, not on every walk (src/log/condition.ts). */
  private readonly unreadable: ConditionLog;

  constructor(private readonly opts: PollOptions) {
    this.unreadable = new ConditionLog({ logger: opts.logger, clock: opts.clock ?? systemClock });
  }

  /** True while a walk is running. */
  get busy(): boolean {
    return this.walking;
  }

  get folders(): number {
    return this.snapshot.size;
  }

  /** Takes the first picture of the tree (nothing is reported for it) and starts polling. */
  async start(): Promise<PollSummary> {
    const first = await this.poll(false);
    this.schedule();
    return first;
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
  }

  private schedule(): void {
    if (this.stopped) return;
    // Counted from the end of a walk: a slow mount never has two walks running.
    this.timer = setTimeout(() => void this.pollNow().finally(() => this.schedule()), this.opts.intervalMs);
    this.timer.unref?.();
  }

  /** One walk now, reporting what changed since the last (a walk already running is shared). */
  pollNow(): Promise<PollSummary> {
    return (this.running ??= this.poll(true).finally(() => (this.running = undefined)));
  }

  private async poll(report: boolean): Promise<PollSummary> {
    this.walking = true;
    try {
      return await this.walk(report);
    } finally {
      this.walking = false;
    }
  }

  private async walk(report: boolean): Promise<PollSummary> {
    const started = Date.now();
    const next = new Map<string, number>();
    let files = 0;
    const concurrency = this.opts.concurrency ?? 16;
    const failed = new Set<string>();
    const onError = (folder: string, err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') return;
      failed.add(folder);
      this.unreadable.holds(folder, `Cannot read '${folder}' while polling (${err.code}): changes under it are not seen.`, { folder, code: err.code });
    };
    for await (const { folder, entries } of walkFolders(this.opts.root, this.opts.recursive, onError)) {
      if (this.stopped) break;
      const names = entries.filter((e) => !e.isDirectory() && this.opts.filter.accepts(join(folder, e.name))).map((e) => e.name);
      let sum = 0;
      let mix = 0;
      for (let i = 0; i < names.length; i += concurrency) {
        const stats = await Promise.all(names.slice(i, i + concurrency).map((n) => lstat(join(folder, n)).catch(() => undefined)));
        stats.forEach((s, j) => {
          if (!s) return;
          const h = fnv(`${names[i + j]}\0${s.size}\0${s.mtimeMs}`);
          sum = (sum + h) >>> 0;
          mix = (mix ^ Math.imul(h, 0x9e3779b1)) >>> 0;
        });
      }
      files += names.length;
      // 32 + 20 bits stay an exact JavaScript number; order-independent, since readdir's order is not promised.
      next.set(folder, names.length === 0 ? -1 : sum * 2 ** 20 + (mix & 0xfffff));
    }
    let changed = 0;
    if (report && !this.stopped) {
      for (const [folder, signature] of next) {
        const before = this.snapshot.get(folder);
        if (before === undefined ? signature !== -1 : before !== signature) {
          changed++;
          this.opts.onChange({ folder, deleted: false });
        }
      }
      for (const folder of this.snapshot.keys()) {
        // Only the top of a removed tree: scanning it removes everything below.
        if (!next.has(folder) && next.has(dirname(folder))) {
          changed++;
          this.opts.onChange({ folder, deleted: true });
        }
      }
    }
    if (!this.stopped) {
      const over = (folder: string) => (next.has(folder) ? `'${folder}' can be read again while polling` : `'${folder}' is no longer there to poll`);
      this.unreadable.endAllBut((folder) => failed.has(folder), over, (folder) => ({ folder }));
    }
    if (!this.stopped) this.snapshot = next;
    this.last = { folders: next.size, files, changed, ms: Date.now() - started };
    return this.last;
  }
}
