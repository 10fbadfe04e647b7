// Where each app's catch-up stands, kept in the queue file beside the queue (the 'arr' component of
// src/sqlite/migrations.ts): the date of the newest history event handled, and the ids handled within the overlap before
// it, so the next reading (from a minute before) skips them. The component's other table, the folders of each
// app's items, is read and written by item-folders.ts.
import type Database from 'better-sqlite3';
import { migrate, type Component } from '../sqlite/migrations.js';

const STEPS: string[] = [
  // 1: one row per ARR entry, by its NAME.
  `CREATE TABLE arr_cursors (
     app        TEXT    PRIMARY KEY,
     type       TEXT    NOT NULL,
     cursor_at  INTEGER NOT NULL,
     seen       TEXT    NOT NULL,
     updated_at INTEGER NOT NULL
   );`,
  // 2: the folders of each app's series, movies, artists or authors as last listed (item-folders.ts): the
  // apps delete an item's history with it, so only a folder missing from the next list tells of the delete.
  `CREATE TABLE arr_item_folders (
     app     TEXT    PRIMARY KEY,
     list    TEXT    NOT NULL,
     folders TEXT    NOT NULL,
     read_at INTEGER NOT NULL
   );`,
];

export const arrComponent: Component = {
  name: 'arr',
  steps: STEPS,
  tooNew: (found, known) =>
    `the queue file's catch-up tables are version ${found}, newer than this scanrelay understands (${known}): upgrade scanrelay`,
  // The table came with schema_versions: there is no older place its version was kept.
  adoptLegacy: () => 0,
};

export interface Cursor {
  /** The newest event handled (ms, the app's clock). */
  at: number;
  /** Ids of the events handled at or after `at` minus the overlap. */
  seen: number[];
}

/** A JSON list the component stored, its entries of the kind wanted; a damaged one reads as empty, never throws. */
export function storedList<T>(text: string, keep: (v: unknown) => v is T): T[] {
  try {
    const list: unknown = JSON.parse(text);
    return Array.isArray(list) ? list.filter(keep) : [];
  } catch {
    return [];
  }
}

export class ArrCursors {
  private readonly getStmt: Database.Statement<[string], { at: number; seen: string }>;
  private readonly setStmt: Database.Statement;

  constructor(db: Database.Database) {
    migrate(db, arrComponent);
    this.getStmt = db.prepare('SELECT cursor_at AS at, seen FROM arr_cursors WHERE app = ?');
    this.setStmt = db.prepare(
      `INSERT INTO arr_cursors (app, type, cursor_at, seen, updated_at) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (app) DO UPDATE SET type = excluded.type, cursor_at = excluded.cursor_at, seen = excluded.seen, updated_at = excluded.updated_at`,
    );
  }

  get(app: string): Cursor | undefined {
    const row = this.getStmt.get(app);
    if (!row) return undefined;
    return { at: row.at, seen: storedList(row.seen, (n): n is number => typeof n === 'number') };
  }

  set(app: string, type: string, cursor: Cursor, now: number): void {
    this.setStmt.run(app, type, cursor.at, JSON.stringify(cursor.seen), now);
  }
}
