// When each folder was last asked for, as the queue file knows it: the folders still queued (their latest request)
// and those finished since a time (their first request, the earliest a request of theirs can have come). The
// history catch-up (src/arr/) skips an event whose folder was asked for after the event: that request's scan,
// after the file was in place, already holds it.
import type Database from 'better-sqlite3';

export function foldersAskedSince(db: Database.Database, since: number): { folder: string; at: number }[] {
  const queued = db.prepare<[], { folder: string; at: number }>('SELECT folder, last_at AS at FROM folders').all();
  // history_finished is the index: only the lines finished since `since` are read.
  const finished = db
    .prepare<[number], { folder: string; at: number }>('SELECT folder, MAX(first_at) AS at FROM history WHERE finished_at >= ? GROUP BY folder')
    .all(since);
  return [...finished, ...queued];
}
