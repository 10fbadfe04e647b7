// Read-only access to Plex's library database (com.plexapp.plugins.library.db): is a file already in the library,
// and which folders are library roots. Plex writes it with its own SQLite build, so we never write, and a missing
// or locked file means "unknown", not an error.
import Database from '../../sqlite/binding.js';
import type { Clock } from '../../clock.js';
import { systemClock } from '../../clock.js';
import type { Logger } from '../../log/logger.js';
import { silentLogger } from '../../log/logger.js';
import { ConditionLog } from '../../log/condition.js';

export interface SectionLocation {
  sectionId: number;
  sectionName: string;
  /** 1 movie, 2 show, 8 music, 13 photo. */
  sectionType: number;
  rootPath: string;
}

export interface PlexDatabase {
  /**
   * true: Plex has this exact path (and, when `size` is given, with that size). false: it does not.
   * 'unknown': the database could not be read, so the caller should scan to be safe.
   */
  hasFile(path: string, size?: number): boolean | 'unknown';
  /** Items and parts in one section's trash (deleted_at set), for PLEX_EMPTY_TRASH_MAX_FILES. */
  deletedCount(sectionId: string): number | 'unknown';
  sectionLocations(): SectionLocation[] | 'unknown';
  /** Whether the file is open right now. */
  readonly available: boolean;
  close(): void;
}

export interface PlexDatabaseOptions {
  logger?: Logger;
  clock?: Clock;
  /** How long to wait before trying a missing or broken database again. */
  retryMs?: number;
  /** What goes without the database, for the warning (it depends on what is configured to use it). */
  without?: string;
  /**
   * Shared by every handle the service opens on Plex's database (one kept open, one per scanner section read), so
   * a database that stays unavailable is said once, not once per handle; see src/log/condition.ts.
   */
  conditions?: ConditionLog;
}

/** Opens lazily and re-tries after failures, so a Plex that starts after us (or a late mount) is picked up. */
export function openPlexDatabase(path: string, opts: PlexDatabaseOptions = {}): PlexDatabase {
  const logger = opts.logger ?? silentLogger;
  const clock = opts.clock ?? systemClock;
  const retryMs = opts.retryMs ?? 60_000;
  let db: Database.Database | undefined;
  let hasFileStmt: Database.Statement | undefined;
  let retryAt = 0;
  const conditions = opts.conditions ?? new ConditionLog({ logger, clock });

  const problem = (what: string, err: unknown) => {
    const msg = `${what} ${path}: ${(err as Error).message}`;
    conditions.holds(path, `Plex database unavailable (${msg}); ${opts.without ?? 'scans are confirmed through the Plex API instead'}.`, { path });
  };

  const open = (): Database.Database | undefined => {
    if (db) return db;
    if (!path || clock.now() < retryAt) return undefined;
    try {
      db = new Database(path, { readonly: true, fileMustExist: true });
      db.pragma('query_only = true');
      const cols = (db.prepare('PRAGMA table_info(media_parts)').all() as { name: string }[]).map((c) => c.name);
      if (!cols.includes('file')) throw new Error('no media_parts.file column: is this the Plex library database?');
      // Items in Plex's trash still have rows; they are not "in the library" for our purpose.
      const live = cols.includes('deleted_at') ? ' AND deleted_at IS NULL' : '';
      hasFileStmt = db.prepare(`SELECT size FROM media_parts WHERE file = ?${live}`);
      conditions.ends(path, 'Plex database is readable again', { path });
      return db;
    } catch (err) {
      failed(err, 'cannot open');
      return undefined;
    }
  };

  /** Drops a handle that failed to open or started failing (file replaced, disk gone) so a later call reopens it. */
  const failed = (err: unknown, what = 'cannot read') => {
    problem(what, err);
    try {
      db?.close();
    } catch {
      // Already unusable.
    }
    db = undefined;
    retryAt = clock.now() + retryMs;
  };

  return {
    get available() {
      return db !== undefined;
    },
    deletedCount(sectionId: string): number | 'unknown' {
      if (!open() || !db) return 'unknown';
      try {
        const row = db
          .prepare(
            `SELECT (SELECT COUNT(*) FROM metadata_items WHERE library_section_id = @s AND deleted_at IS NOT NULL)
                  + (SELECT COUNT(*) FROM media_parts p JOIN media_items m ON m.id = p.media_item_id
                     WHERE m.library_section_id = @s AND p.deleted_at IS NOT NULL) AS n`,
          )
          .get({ s: Number(sectionId) }) as { n: number };
        return row.n;
      } catch {
        return 'unknown';
      }
    },
    hasFile(file: string, size?: number): boolean | 'unknown' {
      if (!open() || !hasFileStmt) return 'unknown';
      try {
        const rows = hasFileStmt.all(file) as { size: number | null }[];
        if (rows.length === 0) return false;
        if (size === undefined) return true;
        return rows.some((r) => r.size === null || Number(r.size) === size);
      } catch (err) {
        failed(err);
        return 'unknown';
      }
    },
    sectionLocations(): SectionLocation[] | 'unknown' {
      const d = open();
      if (!d) return 'unknown';
      try {
        return d
          .prepare(
            `SELECT ls.id AS sectionId, ls.name AS sectionName, ls.section_type AS sectionType, sl.root_path AS rootPath
             FROM section_locations sl JOIN library_sections ls ON sl.library_section_id = ls.id
             ORDER BY ls.id, sl.id`,
          )
          .all() as SectionLocation[];
      } catch (err) {
        failed(err);
        return 'unknown';
      }
    },
    close() {
      db?.close();
      db = undefined;
    },
  };
}
