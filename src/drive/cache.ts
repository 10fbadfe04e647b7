// The persistent Drive id -> path cache: items with their parent and full drive-form path ("My Drive/Media/x.mkv"),
// filled by fetching only parents it has never seen (each once), and kept right when folders are renamed or moved.
import type Database from 'better-sqlite3';
import type { Clock } from '../clock.js';
import type { Logger } from '../log/logger.js';
import { FOLDER_MIME, type DriveFile } from './api.js';
import { migrateDriveSchema } from './schema.js';

/** The key of My Drive in drive_items.drive and drive_cursors; shared drives use their drive ID. */
export const MY_DRIVE = 'root';
/** Root segment of My Drive paths (plex_autoscan's form, used in GOOGLE.ALLOWED.FILE_PATHS and mappings). */
export const MY_DRIVE_NAME = 'My Drive';

export interface CachedItem {
  id: string;
  drive: string;
  /** null for an id Drive would not show us (its descendants then have no path). */
  name: string | null;
  parent: string | null;
  mime: string | null;
  size: number | null;
  md5: string | null;
  /** Drive-form path; null when some ancestor is not visible to this account. */
  path: string | null;
}

export interface CacheOptions {
  clock: Clock;
  logger: Logger;
  /** GOOGLE.SHOW_CACHE_LOGS: cache changes at INFO instead of DEBUG. */
  showCacheLogs?: boolean;
}

/** Fetches one item's metadata; undefined when it does not exist or is not visible. */
export type FetchItem = (id: string) => Promise<DriveFile | undefined>;

export class DriveCache {
  private readonly stmts;
  /** Drive root folder ids -> root segment; their names come from drives.list, not from changes. */
  private readonly roots = new Map<string, string>();

  constructor(
    private readonly db: Database.Database,
    private readonly opts: CacheOptions,
  ) {
    migrateDriveSchema(db);
    this.stmts = {
      get: db.prepare('SELECT id, drive, name, parent, mime, size, md5, path FROM drive_items WHERE id = ?'),
      put: db.prepare(
        `INSERT INTO drive_items (id, drive, name, parent, mime, size, md5, path, updated_at)
         VALUES (@id, @drive, @name, @parent, @mime, @size, @md5, @path, @now)
         ON CONFLICT (id) DO UPDATE SET drive = excluded.drive, name = excluded.name, parent = excluded.parent,
           mime = excluded.mime, size = excluded.size, md5 = excluded.md5, path = excluded.path, updated_at = excluded.updated_at`,
      ),
      del: db.prepare('DELETE FROM drive_items WHERE id = ?'),
      // Descendants share the folder's path as a prefix: '/' is 0x2F and '0' is 0x30, so [p/, p0) is exactly them.
      move: db.prepare(
        `UPDATE drive_items SET path = @newPath || substr(path, length(@oldPath) + 1), drive = @newDrive, updated_at = @now
         WHERE drive = @oldDrive AND path >= @lo AND path < @hi`,
      ),
      orphan: db.prepare('UPDATE drive_items SET path = NULL, updated_at = @now WHERE drive = @drive AND path >= @lo AND path < @hi'),
      count: db.prepare('SELECT count(*) AS n FROM drive_items'),
      countDrive: db.prepare('SELECT count(*) AS n FROM drive_items WHERE drive = ?'),
    };
  }

  get(id: string): CachedItem | undefined {
    return this.stmts.get.get(id) as CachedItem | undefined;
  }

  count(drive?: string): number {
    return ((drive ? this.stmts.countDrive.get(drive) : this.stmts.count.get()) as { n: number }).n;
  }

  /**
   * Declares a drive's root folder. A renamed shared drive moves every cached path under it.
   * My Drive's root id comes from files.get("root"); a shared drive's root folder id is the drive id.
   */
  setRoot(drive: string, rootId: string, name: string): void {
    this.roots.set(rootId, name);
    const old = this.get(rootId);
    this.db.transaction(() => {
      this.write({ id: rootId, drive, name, parent: null, mime: FOLDER_MIME, size: null, md5: null, path: name });
      if (old?.path != null && old.path !== name) this.movePrefix(old.drive, old.path, drive, name);
    })();
    if (old?.path != null && old.path !== name) this.log(`Renamed drive '${rootId}' in cache: ${old.path} -> ${name}`);
  }

  isRoot(id: string): boolean {
    return this.roots.has(id);
  }

  /**
   * Makes every id (and its ancestors) known, fetching only ids the cache has never seen, each exactly once,
   * level by level so a page's unknown folders are fetched concurrently.
   */
  async ensureKnown(ids: Iterable<string>, fetchItem: FetchItem, concurrency = 32): Promise<number> {
    const fetched = new Map<string, DriveFile | undefined>();
    let frontier = [...new Set(ids)].filter((id) => !this.get(id));
    while (frontier.length > 0) {
      for (const id of frontier) fetched.set(id, undefined);
      await mapLimit(frontier, concurrency, async (id) => {
        fetched.set(id, await fetchItem(id));
      });
      const next = new Set<string>();
      for (const id of frontier) {
        const parent = fetched.get(id)?.parents?.[0];
        if (parent && !fetched.has(parent) && !this.get(parent)) next.add(parent);
      }
      frontier = [...next];
    }
    if (fetched.size === 0) return 0;
    // Parents before children, so each child's path is built from a stored parent path.
    const ordered: string[] = [];
    const seen = new Set<string>();
    const visit = (id: string) => {
      if (seen.has(id)) return;
      seen.add(id);
      const parent = fetched.get(id)?.parents?.[0];
      if (parent && fetched.has(parent)) visit(parent);
      ordered.push(id);
    };
    for (const id of fetched.keys()) visit(id);
    this.db.transaction(() => {
      for (const id of ordered) {
        const f = fetched.get(id);
        if (!f) {
          this.write({ id, drive: MY_DRIVE, name: null, parent: null, mime: null, size: null, md5: null, path: null });
          continue;
        }
        const item = this.itemFor(f);
        this.write(item);
        this.log(`Added '${id}' to cache: ${item.path ?? item.name}`);
      }
    })();
    return fetched.size;
  }

  /**
   * Stores a changed item (its parent must already be known: see ensureKnown). A folder whose path changed
   * carries its cached descendants along. Returns the previous entry.
   */
  upsert(file: DriveFile): { old: CachedItem | undefined; item: CachedItem } {
    const old = this.get(file.id);
    if (this.roots.has(file.id)) return { old, item: old ?? this.itemFor(file) };
    const item = this.itemFor(file);
    this.write(item);
    if (old?.mime === FOLDER_MIME || item.mime === FOLDER_MIME) {
      if (old?.path != null && old.path !== item.path) {
        if (item.path != null) this.movePrefix(old.drive, old.path, item.drive, item.path);
        else this.stmts.orphan.run({ drive: old.drive, lo: `${old.path}/`, hi: `${old.path}0`, now: this.opts.clock.now() });
      }
    }
    if (!old) this.log(`Added '${file.id}' to cache: ${item.path ?? file.name}`);
    else if (old.path !== item.path) this.log(`Moved '${file.id}' in cache: ${old.path} -> ${item.path}`);
    return { old, item };
  }

  /**
   * Forgets a trashed or removed item (only if it is still filed under `onlyFromDrive`, when given); its
   * descendants keep their paths so a restore needs no fetches.
   */
  remove(id: string, onlyFromDrive?: string): CachedItem | undefined {
    const old = this.get(id);
    if (!old || this.roots.has(id) || (onlyFromDrive !== undefined && old.drive !== onlyFromDrive)) return old;
    this.stmts.del.run(id);
    this.log(`Removed '${id}' from cache: ${old.path ?? old.name}`);
    return old;
  }

  /** Bulk insert for build-caches: items whose parents are already stored or come earlier in `files`. */
  putAll(files: DriveFile[]): void {
    this.db.transaction(() => {
      for (const f of files) if (!this.roots.has(f.id)) this.write(this.itemFor(f));
    })();
  }

  private itemFor(f: DriveFile): CachedItem {
    const parentId = f.parents?.[0] ?? null;
    let path: string | null = f.name;
    let drive = f.driveId ?? MY_DRIVE;
    if (parentId) {
      const parent = this.get(parentId);
      path = parent?.path != null ? `${parent.path}/${f.name}` : null;
      if (!f.driveId && parent) drive = parent.drive;
    }
    const size = f.size !== undefined ? Number(f.size) : null;
    return { id: f.id, drive, name: f.name, parent: parentId, mime: f.mimeType, size: Number.isFinite(size) ? size : null, md5: f.md5Checksum ?? null, path };
  }

  private write(item: CachedItem): void {
    this.stmts.put.run({ ...item, now: this.opts.clock.now() });
  }

  private movePrefix(oldDrive: string, oldPath: string, newDrive: string, newPath: string): void {
    const r = this.stmts.move.run({
      newPath,
      oldPath,
      newDrive,
      oldDrive,
      lo: `${oldPath}/`,
      hi: `${oldPath}0`,
      now: this.opts.clock.now(),
    });
    if (r.changes > 0) this.log(`Updated ${r.changes} cached descendant(s): ${oldPath}/ -> ${newPath}/`);
  }

  private log(msg: string): void {
    if (this.opts.showCacheLogs) this.opts.logger.info(msg);
    else this.opts.logger.debug(msg);
  }
}

async function mapLimit<T>(items: T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      await fn(items[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
