// The Drive tables in the service's SQLite file (id -> path cache, change cursors) and the steps that built them,
// run by src/sqlite/migrations.ts as the 'drive' component.
import type Database from 'better-sqlite3';
import { migrate, type Component } from '../sqlite/migrations.js';

const MIGRATIONS: string[] = [
  // 1: the id -> path cache and one change cursor per drive.
  `CREATE TABLE drive_items (
     id         TEXT PRIMARY KEY,
     drive      TEXT NOT NULL,
     name       TEXT,
     parent     TEXT,
     mime       TEXT,
     size       INTEGER,
     md5        TEXT,
     path       TEXT,
     updated_at INTEGER NOT NULL
   );
   CREATE INDEX drive_items_path ON drive_items (drive, path);
   CREATE TABLE drive_cursors (
     drive      TEXT PRIMARY KEY,
     name       TEXT NOT NULL,
     page_token TEXT NOT NULL,
     updated_at INTEGER NOT NULL
   );`,
];

export const DRIVE_SCHEMA_VERSION = MIGRATIONS.length;

export const driveComponent: Component = {
  name: 'drive',
  steps: MIGRATIONS,
  tooNew: (found, known) =>
    `the database's Drive tables are version ${found}, newer than this scanrelay understands (${known}): upgrade scanrelay`,
  // Releases before schema_versions kept the Drive version in a one-row table of its own.
  adoptLegacy: (db) => {
    const table = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'drive_schema'").get();
    if (!table) return 0;
    const row = db.prepare('SELECT version FROM drive_schema').get() as { version: number } | undefined;
    const version = row?.version ?? 0;
    if (version <= MIGRATIONS.length) db.exec('DROP TABLE drive_schema');
    return version;
  },
};

/** Brings the drive_ tables up to date; safe to call on every start and from several modules. */
export function migrateDriveSchema(db: Database.Database): void {
  migrate(db, driveComponent);
}
