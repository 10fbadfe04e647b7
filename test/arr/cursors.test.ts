// Where each app's catch-up stands, in the queue file beside the queue: the 'arr' component of the one migrator
// (src/sqlite/migrations.ts), created on first use in a file that already holds a queue, kept across openings, and a file
// whose arr tables are newer than this scanrelay refused with what to do. And what the queue file tells of the
// folders asked for (src/queue/asked.ts), which the catch-up reads at start.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ArrCursors, arrComponent } from '../../src/arr/cursors.js';
import { ItemFolders } from '../../src/arr/item-folders.js';
import { ManualClock } from '../../src/clock.js';
import { migrate, recordedVersion } from '../../src/sqlite/migrations.js';
import { foldersAskedSince } from '../../src/queue/asked.js';
import { Queue } from '../../src/queue/store.js';
import Database from '../../src/sqlite/binding.js';

const file = () => join(mkdtempSync(join(tmpdir(), 'scanrelay-arr-cursors-')), 'queue.db');

describe('the catch-up cursors', () => {
  it('are a component of the queue file: created beside the queue, kept across openings', () => {
    const path = file();
    const queue = new Queue(path, new ManualClock(), { delayMs: 0 });
    const cursors = new ArrCursors(queue.db);
    expect(recordedVersion(queue.db, 'arr')).toBe(2);
    expect(cursors.get('sonarr')).toBeUndefined();
    cursors.set('sonarr', 'sonarr', { at: 1_000, seen: [7, 8] }, 2_000);
    queue.close();
    const again = new Database(path);
    expect(new ArrCursors(again).get('sonarr')).toEqual({ at: 1_000, seen: [7, 8] });
    expect(recordedVersion(again, 'queue')).toBeGreaterThan(0);
    again.close();
  });

  it('a file whose catch-up tables are newer than this scanrelay is refused, saying what to do', () => {
    const db = new Database(file());
    migrate(db, arrComponent);
    db.prepare("UPDATE schema_versions SET version = 9 WHERE component = 'arr'").run();
    expect(() => new ArrCursors(db)).toThrow("the queue file's catch-up tables are version 9, newer than this scanrelay understands (2): upgrade scanrelay");
    db.close();
  });
});

describe("the folders of each app's items", () => {
  it('are the same component: a file of version 1 gains their table and keeps its cursors; the list is kept across openings', () => {
    const path = file();
    const db = new Database(path);
    migrate(db, { ...arrComponent, steps: arrComponent.steps.slice(0, 1) });
    db.prepare("INSERT INTO arr_cursors (app, type, cursor_at, seen, updated_at) VALUES ('sonarr', 'sonarr', 1000, '[]', 2000)").run();
    expect(recordedVersion(db, 'arr')).toBe(1);
    db.close();
    const again = new Database(path);
    const folders = new ItemFolders(again);
    expect(recordedVersion(again, 'arr')).toBe(2);
    expect(new ArrCursors(again).get('sonarr')).toEqual({ at: 1_000, seen: [] });
    expect(folders.get('sonarr')).toBeUndefined();
    folders.set('sonarr', { list: '/series', folders: new Set(['/tv/A', '/tv/B']), readAt: 3_000 });
    folders.touch('sonarr', 4_000);
    again.close();
    const third = new Database(path);
    expect(new ItemFolders(third).get('sonarr')).toEqual({ list: '/series', folders: new Set(['/tv/A', '/tv/B']), readAt: 4_000 });
    third.close();
  });
});

describe('the folders the queue file says were asked for', () => {
  it('are those still queued (their latest request) and those finished since a time (their first)', () => {
    const clock = new ManualClock(10_000);
    const queue = new Queue(file(), clock, { delayMs: 0 });
    queue.enqueueMany([{ folder: '/tv/A', priority: 0, source: 'sonarr', event: 'Download', deleted: false }]);
    clock.advance(1_000);
    queue.enqueueMany([{ folder: '/tv/A', priority: 0, source: 'sonarr', event: 'Download', deleted: false }]);
    queue.db.prepare("INSERT INTO history (folder, source, event, requests, first_at, finished_at, outcome) VALUES ('/tv/B', 'sonarr', 'Download', 1, 5000, 9000, 'scanned'), ('/tv/C', 'sonarr', 'Download', 1, 1000, 2000, 'scanned')").run();
    expect(foldersAskedSince(queue.db, 8_000).sort((a, b) => a.folder.localeCompare(b.folder))).toEqual([
      { folder: '/tv/A', at: 11_000 },
      { folder: '/tv/B', at: 5_000 },
    ]);
    queue.close();
  });
});
