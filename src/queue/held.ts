// Requests held until their file has the SHA-256 the sender named (autopulse's hash=, src/hash/hold.ts), kept in
// the queue file: the sender was answered at once, so a restart must resume the wait, not forget the request.
import type Database from 'better-sqlite3';
import type { ScanRequest } from '../request.js';

export interface HeldRequest {
  id: number;
  request: ScanRequest;
  /** Lower-case hex. */
  hash: string;
  client: string;
  since: number;
  /** Checks already made (SERVER_MAX_FILE_CHECKS is the budget across restarts). */
  checks: number;
}

interface Row {
  id: number;
  request: string;
  hash: string;
  client: string;
  since: number;
  checks: number;
}

export class HeldRequests {
  private readonly insert: Database.Statement<[string, string, string, number]>;
  private readonly setChecks: Database.Statement<[number, number]>;
  private readonly remove_: Database.Statement<[number]>;
  private readonly select: Database.Statement<[], Row>;
  private readonly counted: Database.Statement<[], { n: number }>;

  constructor(db: Database.Database) {
    this.insert = db.prepare('INSERT INTO held (request, hash, client, since) VALUES (?, ?, ?, ?)');
    this.setChecks = db.prepare('UPDATE held SET checks = ? WHERE id = ?');
    this.remove_ = db.prepare('DELETE FROM held WHERE id = ?');
    this.select = db.prepare('SELECT * FROM held ORDER BY id');
    this.counted = db.prepare('SELECT count(*) AS n FROM held');
  }

  add(request: ScanRequest, hash: string, client: string, since: number): number {
    return Number(this.insert.run(JSON.stringify(request), hash, client, since).lastInsertRowid);
  }

  checked(id: number, checks: number): void {
    this.setChecks.run(checks, id);
  }

  remove(id: number): void {
    this.remove_.run(id);
  }

  all(): HeldRequest[] {
    return this.select.all().map((r) => ({ ...r, request: JSON.parse(r.request) as ScanRequest }));
  }

  count(): number {
    return this.counted.get()?.n ?? 0;
  }
}
