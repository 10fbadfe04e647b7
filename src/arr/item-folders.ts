// The folders of each app's series, movies, artists or authors as last listed, kept in the queue file (the 'arr'
// component's arr_item_folders): what the next list is compared with, and when it was read, so that a folder a
// webhook asked for since is not queued again as a delete.
import type Database from 'better-sqlite3';
import { migrate } from '../sqlite/migrations.js';
import { arrComponent, storedList } from './cursors.js';

export interface ItemFolderSet {
  /** The list it came from ('/series', '/movie', …): a Whisparr that changed version lists other items. */
  list: string;
  folders: Set<string>;
  /** When it was read (ms, the relay's clock). */
  readAt: number;
}

export class ItemFolders {
  private readonly getStmt: Database.Statement<[string], { list: string; folders: string; read_at: number }>;
  private readonly setStmt: Database.Statement;
  private readonly touchStmt: Database.Statement;

  constructor(db: Database.Database) {
    migrate(db, arrComponent);
    this.getStmt = db.prepare('SELECT list, folders, read_at FROM arr_item_folders WHERE app = ?');
    this.setStmt = db.prepare(
      `INSERT INTO arr_item_folders (app, list, folders, read_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (app) DO UPDATE SET list = excluded.list, folders = excluded.folders, read_at = excluded.read_at`,
    );
    this.touchStmt = db.prepare('UPDATE arr_item_folders SET read_at = ? WHERE app = ?');
  }

  get(app: string): ItemFolderSet | undefined {
    const row = this.getStmt.get(app);
    if (!row) return undefined;
    return { list: row.list, folders: new Set(storedList(row.folders, (f): f is string => typeof f === 'string')), readAt: row.read_at };
  }

  set(app: string, set: ItemFolderSet): void {
    this.setStmt.run(app, set.list, JSON.stringify([...set.folders]), set.readAt);
  }

  /** The same folders read again: only the time moves (a library of 30,000 is not written every few minutes). */
  touch(app: string, readAt: number): void {
    this.touchStmt.run(readAt, app);
  }
}
