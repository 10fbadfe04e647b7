// The Drive tables in the service's SQLite file and their migrations, versioned in drive_schema
// (PRAGMA user_version belongs to the queue).
import type Database from 'better-sqlite3';

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

/** Brings the drive_ tables up to date; safe to call on every start and from several modules. */
export function migrateDriveSchema(db: Database.Database): void {
  db.exec('CREATE TABLE IF NOT EXISTS drive_schema (version INTEGER NOT NULL)');
  const row = db.prepare('SELECT version FROM drive_schema').get() as { version: number } | undefined;
  const from = row?.version ?? 0;
  if (from > DRIVE_SCHEMA_VERSION) {
    throw new Error(`the database's Drive tables are version ${from}, newer than this scanrelay understands (${DRIVE_SCHEMA_VERSION}): upgrade scanrelay`);
  }
  if (from === DRIVE_SCHEMA_VERSION) return;
  db.transaction(() => {
    for (let v = from; v < DRIVE_SCHEMA_VERSION; v++) db.exec(MIGRATIONS[v]);
    if (row) db.prepare('UPDATE drive_schema SET version = ?').run(DRIVE_SCHEMA_VERSION);
    else db.prepare('INSERT INTO drive_schema (version) VALUES (?)').run(DRIVE_SCHEMA_VERSION);
  })();
}
