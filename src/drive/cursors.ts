// One saved change cursor (page token) per watched drive; written in the same transaction as the page it follows.
import type Database from 'better-sqlite3';
import { migrateDriveSchema } from './schema.js';

export interface SavedCursor {
  drive: string;
  name: string;
  pageToken: string;
  updatedAt: number;
}

export class DriveCursors {
  private readonly getStmt: Database.Statement;
  private readonly setStmt: Database.Statement;

  constructor(private readonly db: Database.Database) {
    migrateDriveSchema(db);
    this.getStmt = db.prepare('SELECT drive, name, page_token AS pageToken, updated_at AS updatedAt FROM drive_cursors WHERE drive = ?');
    this.setStmt = db.prepare(
      `INSERT INTO drive_cursors (drive, name, page_token, updated_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (drive) DO UPDATE SET name = excluded.name, page_token = excluded.page_token, updated_at = excluded.updated_at`,
    );
  }

  get(drive: string): SavedCursor | undefined {
    return this.getStmt.get(drive) as SavedCursor | undefined;
  }

  set(drive: string, name: string, pageToken: string, now: number): void {
    this.setStmt.run(drive, name, pageToken, now);
  }

  all(): SavedCursor[] {
    return this.db.prepare('SELECT drive, name, page_token AS pageToken, updated_at AS updatedAt FROM drive_cursors').all() as SavedCursor[];
  }
}
