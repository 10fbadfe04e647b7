// Reads one watched drive's change feed up to now: each page's changes applied to the cache, its scan requests
// handed to the queue and its successor cursor saved, all in one transaction per page.
import type Database from 'better-sqlite3';
import type { Clock } from '../clock.js';
import type { Logger } from '../log/logger.js';
import type { ScanRequest } from '../request.js';
import type { DriveApi, DriveChange } from './api.js';
import type { DriveCache } from './cache.js';
import type { DriveCursors } from './cursors.js';
import { cacheAction, scanVerdict, type ScanRules } from './decide.js';
import { addCounts, emptyCounts, type DriveCounts, type WatchedDrive } from './status.js';

export interface ChangeReaderDeps {
  db: Database.Database;
  api: DriveApi;
  cache: DriveCache;
  cursors: DriveCursors;
  rules: ScanRules;
  enqueue: (req: ScanRequest) => void;
  /** Every watched drive, to follow a shared drive's rename. */
  watched: () => WatchedDrive[];
  clock: Clock;
  logger: Logger;
}

export class ChangeReader {
  private readonly warnedUnmapped = new Set<string>();

  constructor(private readonly deps: ChangeReaderDeps) {}

  /**
   * Follows the drive's pages to newStartPageToken. Each page is applied and its successor token saved in one
   * transaction, after its scan requests were handed over: a crash replays the page, never skips it.
   */
  async read(d: WatchedDrive, counts: DriveCounts): Promise<void> {
    const { api, cache, cursors } = this.deps;
    let token = cursors.get(d.key)?.pageToken ?? d.cursor;
    if (!token) throw new Error(`no change cursor for drive '${d.name}'`);
    for (;;) {
      const page = await api.listChanges(token, d.driveId);
      const parents = new Set<string>();
      for (const c of page.changes) {
        const p = c.file && !c.removed && !c.file.trashed ? c.file.parents?.[0] : undefined;
        if (p) parents.add(p);
      }
      const fetched = await cache.ensureKnown(parents, (id) => api.getFile(id));
      const next = page.nextPageToken ?? page.newStartPageToken;
      if (!next) throw new Error(`Google Drive returned a change page for '${d.name}' without a next or new start page token`);
      const pageCounts = emptyCounts();
      pageCounts.fetched = fetched;
      this.deps.db.transaction(() => {
        const requested = new Set<string>();
        for (const change of page.changes) this.apply(d, change, pageCounts, requested);
        cursors.set(d.key, d.name, next, this.deps.clock.now());
      })();
      pageCounts.pages = 1;
      pageCounts.changes = page.changes.length;
      addCounts(counts, pageCounts);
      d.cursor = token = next;
      if (!page.nextPageToken) return;
    }
  }

  private apply(d: WatchedDrive, change: DriveChange, counts: DriveCounts, requested: Set<string>): void {
    const { cache, logger } = this.deps;
    const action = cacheAction(d, change);
    if (action.kind === 'drive') return this.applyDriveChange(d, change);
    if (action.kind === 'remove') {
      if (action.id) cache.remove(action.id, action.onlyFrom);
      counts.removed++;
      return;
    }
    const file = action.file;
    const { old, item } = cache.upsert(file);
    const v = scanVerdict(file, old, item, this.deps.rules, requested);
    switch (v.verdict) {
      case 'folder':
        counts.folders++;
        return;
      case 'unchanged':
        counts.ignored++;
        return;
      case 'unwanted':
        counts.unwanted++;
        return;
      case 'duplicate':
        return;
      case 'unmapped':
        counts.unmapped++;
        if (!this.warnedUnmapped.has(v.root)) {
          this.warnedUnmapped.add(v.root);
          logger.warn(`No SERVER_PATH_MAPPINGS entry maps Google Drive path '${v.drivePath}': add '${v.root}/' to the mapping of its media-server folder`);
        }
        return;
      case 'refused':
        counts.unwanted++;
        logger.warn({ fileId: file.id }, `Not scanning a Google Drive file: ${v.message}. Rename it on Drive to scan it.`);
        return;
      case 'in-plex':
        counts.inPlex++;
        logger.debug({ path: v.serverPath }, 'Skipping Google Drive file already in Plex');
        return;
      case 'scan':
        requested.add(v.drivePath);
        // Handed over inside the page's transaction: if the queue shares this database the request and the cursor
        // commit together; otherwise a crash before the cursor is saved re-sends it (the queue merges duplicates).
        this.deps.enqueue({ path: v.drivePath, source: 'drive', event: 'Drive', kind: 'file' });
        counts.enqueued++;
        logger.info({ path: v.drivePath, serverPath: v.serverPath }, 'New file on Google Drive: scan requested');
    }
  }

  private applyDriveChange(d: WatchedDrive, change: DriveChange): void {
    const id = change.driveId ?? change.drive?.id;
    if (!id || (d.driveId && id !== d.driveId)) return;
    if (change.removed) {
      this.deps.logger.warn({ drive: d.name }, 'Shared drive was deleted or this account lost access to it');
      return;
    }
    const name = change.drive?.name;
    const watched = this.deps.watched();
    if (name && name !== d.name && watched.some((w) => w.key === id)) {
      this.deps.logger.info(`Shared drive renamed: '${d.name}' -> '${name}'`);
      this.deps.cache.setRoot(id, id, name);
      for (const w of watched) if (w.key === id) w.name = name;
    }
  }
}
