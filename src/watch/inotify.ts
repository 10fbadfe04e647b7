// The inotify backend: one fs.watch per folder (Node's own recursive mode is not used: it re-walks the tree
// in JavaScript on Linux and cannot report running out of watches per folder). New folders are watched as
// they appear, and the files already in them are reported, since they may have landed before the watch.
import { watch, type FSWatcher } from 'node:fs';
import { join } from 'node:path';
import { lstat } from '../file-system.js';
import type { Logger } from '../log/logger.js';
import type { PathFilter } from './filter.js';
import { raiseAdvice } from './limits.js';
import { walkFolders } from './walk.js';

export interface FolderChange {
  /** The folder whose content changed (or that disappeared). */
  folder: string;
  deleted: boolean;
}

export interface InotifyOptions {
  root: string;
  recursive: boolean;
  filter: PathFilter;
  onChange: (change: FolderChange) => void;
  logger: Logger;
}

export class InotifyWatcher {
  private readonly watchers = new Map<string, FSWatcher>();
  private stopped = false;
  private warnedLimit = false;

  constructor(private readonly opts: InotifyOptions) {}

  get watches(): number {
    return this.watchers.size;
  }

  /** Watches the whole tree; resolves with the number of folders watched. */
  async start(): Promise<number> {
    await this.add(this.opts.root, false);
    return this.watchers.size;
  }

  stop(): void {
    this.stopped = true;
    for (const w of this.watchers.values()) w.close();
    this.watchers.clear();
  }

  /** Watches `top` and the folders under it; `report` also announces the files found (a folder that just appeared). */
  private async add(top: string, report: boolean): Promise<void> {
    for await (const { folder, entries } of walkFolders(top, this.opts.recursive, (f, err) => this.unreadable(f, err))) {
      if (this.stopped) return;
      if (!this.watchers.has(folder) && !this.watchOne(folder)) return;
      if (report && entries.some((e) => e.isFile() && this.opts.filter.accepts(join(folder, e.name)))) {
        this.opts.onChange({ folder, deleted: false });
      }
    }
  }

  private watchOne(folder: string): boolean {
    try {
      const w = watch(folder, { persistent: false }, (_event, name) => void this.seen(folder, name === null ? undefined : String(name)));
      w.on('error', (err) => this.failed(folder, err as NodeJS.ErrnoException));
      this.watchers.set(folder, w);
      return true;
    } catch (err) {
      this.failed(folder, err as NodeJS.ErrnoException);
      return false;
    }
  }

  private async seen(folder: string, name: string | undefined): Promise<void> {
    if (this.stopped) return;
    if (name === undefined) return this.opts.onChange({ folder, deleted: false });
    const path = join(folder, name);
    let isDirectory: boolean | undefined;
    try {
      isDirectory = (await lstat(path)).isDirectory();
    } catch {
      isDirectory = undefined; // gone again (a rename away, a deletion, a temporary file)
    }
    if (this.stopped) return;
    // A late event from a folder removed meanwhile (its files go before it): its removal is what counts.
    if (!this.watchers.has(folder)) return;
    if (isDirectory === true) {
      if (this.opts.recursive && !this.watchers.has(path)) await this.add(path, true);
      return;
    }
    if (isDirectory === undefined && this.watchers.has(path)) return this.removed(path);
    if (this.opts.filter.accepts(path)) this.opts.onChange({ folder, deleted: false });
  }

  /** A watched folder disappeared: stop watching it and everything under it, and report it deleted. */
  private removed(path: string): void {
    for (const [folder, w] of this.watchers) {
      if (folder === path || folder.startsWith(path + '/')) {
        w.close();
        this.watchers.delete(folder);
      }
    }
    // Its parent's listing changed too, but scanning the deleted folder is what removes its items.
    this.opts.onChange({ folder: path, deleted: true });
  }

  private unreadable(folder: string, err: NodeJS.ErrnoException): void {
    if (err.code === 'ENOENT') return;
    this.opts.logger.warn({ folder, code: err.code }, `Cannot read '${folder}' to watch it (${err.code}): changes under it are not seen. Check its permissions.`);
  }

  private failed(folder: string, err: NodeJS.ErrnoException): void {
    if (err.code === 'ENOSPC' || err.code === 'EMFILE') {
      if (this.warnedLimit) return;
      this.warnedLimit = true;
      this.opts.logger.error(
        { folder, code: err.code, watches: this.watchers.size },
        `Ran out of inotify watches at '${folder}' after ${this.watchers.size} folder(s) (${err.code}): changes under the rest are not seen; ${raiseAdvice(this.watchers.size * 2)}, then restart scanrelay.`,
      );
      return;
    }
    if (err.code === 'ENOENT' || err.code === 'EPERM') return;
    this.opts.logger.warn({ folder, code: err.code }, `Watching '${folder}' failed (${err.code ?? err.message}).`);
  }
}
