// A target's list of things that own folders (libraries, series, movies): trusted for a while, re-read on a miss.
import type { Clock } from '../clock.js';
import { isInside } from '../paths/folder.js';

export interface Owner<T> {
  item: T;
  /** Folders this item owns. */
  locations: string[];
}

export interface OwnerListOptions<T> {
  load: () => Promise<Owner<T>[]>;
  clock: Clock;
  /** How long the list is trusted. */
  ttlMs?: number;
  /** A folder no item owns re-reads the list, but not more often than this (an item may have been added). */
  missRefreshMs?: number;
}

export class OwnerList<T> {
  private list?: { owners: Owner<T>[]; at: number };

  constructor(private readonly opts: OwnerListOptions<T>) {}

  /** Items owning `path`, the deepest location first, and every known location (for an "unmatched" message). */
  async holding(path: string): Promise<{ owners: T[]; known: string[] }> {
    const { clock } = this.opts;
    const ttl = this.opts.ttlMs ?? 10 * 60_000;
    if (!this.list || clock.now() - this.list.at >= ttl) await this.reload();
    let found = this.match(path);
    if (found.length === 0 && clock.now() - this.list!.at >= (this.opts.missRefreshMs ?? 60_000)) {
      await this.reload();
      found = this.match(path);
    }
    return { owners: found, known: this.list!.owners.flatMap((o) => o.locations) };
  }

  private async reload(): Promise<void> {
    this.list = { owners: await this.opts.load(), at: this.opts.clock.now() };
  }

  private match(path: string): T[] {
    const hits: { item: T; depth: number }[] = [];
    for (const o of this.list!.owners) {
      const loc = o.locations.filter((l) => isInside(path, l)).sort((a, b) => b.length - a.length)[0];
      if (loc !== undefined) hits.push({ item: o.item, depth: loc.length });
    }
    return hits.sort((a, b) => b.depth - a.depth).map((h) => h.item);
  }
}
