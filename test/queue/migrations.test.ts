// One migrator for the queue and Drive tables: a file written before schema_versions (queue in PRAGMA user_version
// at 6, Drive in its own drive_schema table at 1) opens in place with every row kept; a newer file is refused.
import Database from '../../src/sqlite/binding.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { DriveCache } from '../../src/drive/cache.js';
import { DriveCursors } from '../../src/drive/cursors.js';
import { driveComponent } from '../../src/drive/schema.js';
import { silentLogger } from '../../src/log/logger.js';
import { migrate, recordedVersion } from '../../src/sqlite/migrations.js';
import { queueComponent } from '../../src/queue/schema.js';
import { Queue } from '../../src/queue/store.js';

/** The layout the previous release wrote, typed out by hand rather than built by the steps under test. */
const PREVIOUS_LAYOUT = `
  CREATE TABLE folders (id INTEGER PRIMARY KEY, folder TEXT NOT NULL UNIQUE, priority INTEGER NOT NULL DEFAULT 0,
    due_at INTEGER NOT NULL, first_at INTEGER NOT NULL, last_at INTEGER NOT NULL, requests INTEGER NOT NULL DEFAULT 1,
    source TEXT NOT NULL, event TEXT NOT NULL, file_hint TEXT, all_deleted INTEGER NOT NULL DEFAULT 0,
    any_deleted INTEGER NOT NULL DEFAULT 0, checks INTEGER NOT NULL DEFAULT 0, generation INTEGER NOT NULL DEFAULT 1,
    state TEXT NOT NULL DEFAULT 'waiting', last_error TEXT, refresh TEXT, ids TEXT, received TEXT);
  CREATE TABLE deliveries (folder_id INTEGER NOT NULL REFERENCES folders (id) ON DELETE CASCADE, target TEXT NOT NULL,
    state TEXT NOT NULL DEFAULT 'pending', attempts INTEGER NOT NULL DEFAULT 0, next_at INTEGER NOT NULL DEFAULT 0,
    last_error TEXT, detail TEXT, priority INTEGER NOT NULL DEFAULT 0, ready_at INTEGER, delivered_at INTEGER,
    followed_at INTEGER, follow TEXT, rescans INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (folder_id, target));
  CREATE TABLE history (id INTEGER PRIMARY KEY, folder TEXT NOT NULL, source TEXT NOT NULL, event TEXT NOT NULL,
    requests INTEGER NOT NULL, first_at INTEGER NOT NULL, finished_at INTEGER NOT NULL, target TEXT, outcome TEXT NOT NULL,
    detail TEXT, attempts INTEGER NOT NULL DEFAULT 0, delivery_ms INTEGER, follow_ms INTEGER, received TEXT);
  CREATE INDEX history_finished ON history (finished_at);
  CREATE INDEX folders_order ON folders (state, priority, due_at);
  CREATE INDEX deliveries_order ON deliveries (target, state, priority, next_at);
  CREATE TABLE drive_items (id TEXT PRIMARY KEY, drive TEXT NOT NULL, name TEXT, parent TEXT, mime TEXT, size INTEGER,
    md5 TEXT, path TEXT, updated_at INTEGER NOT NULL);
  CREATE INDEX drive_items_path ON drive_items (drive, path);
  CREATE TABLE drive_cursors (drive TEXT PRIMARY KEY, name TEXT NOT NULL, page_token TEXT NOT NULL, updated_at INTEGER NOT NULL);
  CREATE TABLE drive_schema (version INTEGER NOT NULL);
  INSERT INTO drive_schema (version) VALUES (1);
  INSERT INTO folders (id, folder, priority, due_at, first_at, last_at, source, event, state, received) VALUES
    (1, '/tv/Show/Season 1', 2, 500, 100, 100, 'sonarr', 'Download', 'waiting', '/downloads/Show/Season 1'),
    (2, '/movies/Film (2020)', 0, 0, 50, 60, 'radarr', 'Download', 'dispatching', NULL);
  INSERT INTO deliveries (folder_id, target, state, priority, next_at, follow) VALUES (2, 'plex', 'following', 0, 0, '{"section":1}');
  INSERT INTO history (folder, source, event, requests, first_at, finished_at, target, outcome, received)
    VALUES ('/tv/Old', 'sonarr', 'Download', 1, 1, 2, 'plex', 'confirmed', '/downloads/Old');
  INSERT INTO drive_items (id, drive, name, parent, mime, size, md5, path, updated_at)
    VALUES ('ROOT', 'root', 'My Drive', NULL, 'application/vnd.google-apps.folder', NULL, NULL, 'My Drive', 1);
  INSERT INTO drive_cursors (drive, name, page_token, updated_at) VALUES ('root', 'My Drive', '4242', 1);
  PRAGMA user_version = 6;`;

let dir: string;
let file: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'scanrelay-migrations-'));
  file = join(dir, 'queue.db');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function writeFile(sql: string): void {
  const db = new Database(file);
  db.exec(sql);
  db.close();
}

function tables(db: Database.Database): string[] {
  return (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as { name: string }[]).map((t) => t.name);
}

describe('one migrator keyed by component', () => {
  it('opens a file of the previous release in place: every row kept, both versions recognised in schema_versions', () => {
    writeFile(PREVIOUS_LAYOUT);
    const q = new Queue(file, new ManualClock(1000), { delayMs: 0 });
    try {
      const cache = new DriveCache(q.db, { clock: new ManualClock(1000), logger: silentLogger });
      const cursors = new DriveCursors(q.db);
      expect(q.list().map((r) => [r.folder, r.received, r.state])).toEqual([
        ['/movies/Film (2020)', undefined, 'dispatching'],
        ['/tv/Show/Season 1', '/downloads/Show/Season 1', 'waiting'],
      ]);
      expect(q.following('plex').map((r) => r.follow)).toEqual(['{"section":1}']);
      expect(q.history().map((h) => [h.folder, h.outcome, h.received])).toEqual([['/tv/Old', 'confirmed', '/downloads/Old']]);
      expect(cache.count()).toBe(1);
      expect(cursors.get('root')?.pageToken).toBe('4242');

      expect(q.db.prepare('SELECT component, version FROM schema_versions ORDER BY component').all()).toEqual([
        { component: 'drive', version: 1 },
        { component: 'queue', version: queueComponent.steps.length },
      ]);
      // The queue's version stays in PRAGMA user_version too; the Drive's own table is gone (one record).
      expect(q.db.pragma('user_version', { simple: true })).toBe(queueComponent.steps.length);
      expect(tables(q.db)).not.toContain('drive_schema');
    } finally {
      q.close();
    }
    // A second open changes nothing.
    const again = new Queue(file, new ManualClock(2000), { delayMs: 0 });
    try {
      new DriveCache(again.db, { clock: new ManualClock(2000), logger: silentLogger });
      expect(again.list()).toHaveLength(2);
      expect(recordedVersion(again.db, 'queue')).toBe(queueComponent.steps.length);
      expect(recordedVersion(again.db, 'drive')).toBe(1);
    } finally {
      again.close();
    }
  });

  it('a new file gets every step of both components', () => {
    const db = new Database(file);
    try {
      migrate(db, queueComponent);
      migrate(db, driveComponent);
      expect(recordedVersion(db, 'queue')).toBe(queueComponent.steps.length);
      expect(recordedVersion(db, 'drive')).toBe(driveComponent.steps.length);
      expect(db.pragma('user_version', { simple: true })).toBe(queueComponent.steps.length);
      expect(tables(db)).toEqual(['deliveries', 'drive_cursors', 'drive_items', 'folders', 'held', 'history', 'history_texts', 'schema_versions']);
    } finally {
      db.close();
    }
  });

  it('refuses a queue file from a newer release (old-style user_version) with the message it always gave, and leaves it as it was', () => {
    writeFile(`${PREVIOUS_LAYOUT} PRAGMA user_version = 99;`);
    expect(() => new Queue(file, new ManualClock(), { delayMs: 0 })).toThrow(
      `the queue file was written by a newer scanrelay (schema 99, this one knows ${queueComponent.steps.length}): upgrade scanrelay or point --queuefile elsewhere`,
    );
    const db = new Database(file);
    try {
      expect(tables(db)).not.toContain('schema_versions');
      expect(db.pragma('user_version', { simple: true })).toBe(99);
    } finally {
      db.close();
    }
  });

  it('refuses a component recorded newer in schema_versions, naming both versions', () => {
    writeFile(PREVIOUS_LAYOUT);
    new Queue(file, new ManualClock(), { delayMs: 0 }).close();
    const db = new Database(file);
    db.exec("UPDATE schema_versions SET version = 99 WHERE component = 'queue'");
    db.close();
    expect(() => new Queue(file, new ManualClock(), { delayMs: 0 })).toThrow(`newer scanrelay (schema 99, this one knows ${queueComponent.steps.length})`);
  });

  it('refuses Drive tables from a newer release (old-style drive_schema) without touching them', () => {
    writeFile(`${PREVIOUS_LAYOUT} UPDATE drive_schema SET version = 5;`);
    const db = new Database(file);
    try {
      expect(() => migrate(db, driveComponent)).toThrow("the database's Drive tables are version 5, newer than this scanrelay understands (1): upgrade scanrelay");
      expect(db.prepare('SELECT version FROM drive_schema').all()).toEqual([{ version: 5 }]);
      expect(recordedVersion(db, 'drive')).toBeUndefined();
    } finally {
      db.close();
    }
  });
});
