// The drive_ tables and the id -> path cache on their own.
import Database from '../../src/sqlite/binding.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import type { DriveFile } from '../../src/drive/api.js';
import { DriveCache, MY_DRIVE } from '../../src/drive/cache.js';
import { DRIVE_SCHEMA_VERSION, migrateDriveSchema } from '../../src/drive/schema.js';
import { silentLogger } from '../../src/log/logger.js';

const FOLDER = 'application/vnd.google-apps.folder';
let dir: string;
let db: Database.Database;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'scanrelay-cache-'));
  db = new Database(join(dir, 'scanrelay.db'));
});
afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('drive tables', () => {
  it("are versioned as 'drive' in schema_versions and leave PRAGMA user_version to the queue", () => {
    db.pragma('user_version = 7');
    migrateDriveSchema(db);
    migrateDriveSchema(db);
    expect(db.pragma('user_version', { simple: true })).toBe(7);
    expect(db.prepare('SELECT component, version FROM schema_versions').all()).toEqual([{ component: 'drive', version: DRIVE_SCHEMA_VERSION }]);
    const tables = (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]).map((t) => t.name);
    expect(tables.filter((t) => t !== 'schema_versions').every((t) => t.startsWith('drive_'))).toBe(true);
    db.prepare("UPDATE schema_versions SET version = 99 WHERE component = 'drive'").run();
    expect(() => migrateDriveSchema(db)).toThrow(/newer than this scanrelay understands/);
  });
});

describe('DriveCache', () => {
  it('moves descendants by path prefix only, with non-ASCII names, and survives a reopen', async () => {
    const clock = new ManualClock();
    const cache = new DriveCache(db, { clock, logger: silentLogger });
    cache.setRoot(MY_DRIVE, 'ROOT', 'My Drive');
    const files: Record<string, DriveFile> = {
      a: { id: 'a', name: 'Séries 📺', mimeType: FOLDER, parents: ['ROOT'] },
      b: { id: 'b', name: 'Show', mimeType: FOLDER, parents: ['a'] },
      c: { id: 'c', name: 'ep 1.mkv', mimeType: 'video/x-matroska', parents: ['b'] },
      sib: { id: 'sib', name: 'Séries 📺 2', mimeType: FOLDER, parents: ['ROOT'] },
      sibc: { id: 'sibc', name: 'x.mkv', mimeType: 'video/x-matroska', parents: ['sib'] },
    };
    const fetched: string[] = [];
    await cache.ensureKnown(['b', 'sib'], async (id) => (fetched.push(id), files[id]));
    expect(fetched.sort()).toEqual(['a', 'b', 'sib']);
    cache.upsert(files.c);
    cache.upsert(files.sibc);
    cache.upsert({ ...files.a, name: 'TV' });
    expect(cache.get('c')?.path).toBe('My Drive/TV/Show/ep 1.mkv');
    expect(cache.get('sibc')?.path).toBe('My Drive/Séries 📺 2/x.mkv');

    const reopened = new DriveCache(db, { clock, logger: silentLogger });
    expect(reopened.get('b')?.path).toBe('My Drive/TV/Show');
    expect(reopened.count()).toBe(6);
  });

  it('remembers ids Drive will not show, so they are not fetched again, and gives their descendants no path', async () => {
    const cache = new DriveCache(db, { clock: new ManualClock(), logger: silentLogger });
    let calls = 0;
    await cache.ensureKnown(['hidden'], async () => (calls++, undefined));
    await cache.ensureKnown(['hidden'], async () => (calls++, undefined));
    expect(calls).toBe(1);
    expect(cache.upsert({ id: 'f', name: 'f.mkv', mimeType: 'video/mp4', parents: ['hidden'] }).item.path).toBeNull();
  });
});
