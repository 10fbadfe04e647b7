// The queue's tables (folders, deliveries, history) and the steps that built them, run by src/sqlite/migrations.ts.
import type Database from 'better-sqlite3';
import { migrate as migrateComponent, type Component } from '../sqlite/migrations.js';
import { storedColumns, textStatements } from './history-texts.js';

/** A history line as schema 6 stored it. */
interface V6Line {
  id: number;
  folder: string;
  source: string;
  event: string;
  requests: number;
  first_at: number;
  finished_at: number;
  target: string | null;
  outcome: string;
  detail: string | null;
  attempts: number;
  delivery_ms: number | null;
  follow_ms: number | null;
  received: string | null;
}

/** Each entry migrates from version i to i+1. Append only; never edit a released step. */
const migrations: Component['steps'] = [
  `CREATE TABLE folders (
     id          INTEGER PRIMARY KEY,
     folder      TEXT    NOT NULL UNIQUE,
     priority    INTEGER NOT NULL DEFAULT 0,
     due_at      INTEGER NOT NULL,
     first_at    INTEGER NOT NULL,
     last_at     INTEGER NOT NULL,
     requests    INTEGER NOT NULL DEFAULT 1,
     source      TEXT    NOT NULL,
     event       TEXT    NOT NULL,
     file_hint   TEXT,
     all_deleted INTEGER NOT NULL DEFAULT 0,
     any_deleted INTEGER NOT NULL DEFAULT 0,
     checks      INTEGER NOT NULL DEFAULT 0,
     generation  INTEGER NOT NULL DEFAULT 1,
     state       TEXT    NOT NULL DEFAULT 'waiting',
     last_error  TEXT
   );
   CREATE INDEX folders_due ON folders (state, due_at);
   CREATE TABLE deliveries (
     folder_id  INTEGER NOT NULL REFERENCES folders (id) ON DELETE CASCADE,
     target     TEXT    NOT NULL,
     state      TEXT    NOT NULL DEFAULT 'pending',
     attempts   INTEGER NOT NULL DEFAULT 0,
     next_at    INTEGER NOT NULL DEFAULT 0,
     last_error TEXT,
     detail     TEXT,
     PRIMARY KEY (folder_id, target)
   );
   CREATE INDEX deliveries_pending ON deliveries (target, state, next_at);
   CREATE TABLE history (
     id          INTEGER PRIMARY KEY,
     folder      TEXT    NOT NULL,
     source      TEXT    NOT NULL,
     event       TEXT    NOT NULL,
     requests    INTEGER NOT NULL,
     first_at    INTEGER NOT NULL,
     finished_at INTEGER NOT NULL,
     target      TEXT,
     outcome     TEXT    NOT NULL,
     detail      TEXT,
     attempts    INTEGER NOT NULL DEFAULT 0
   );
   CREATE INDEX history_finished ON history (finished_at);`,
  // 2: picking the next due folders must not sort the whole queue. Both tables get an index whose order is
  // the dispatch order (priority, then time), and a delivery carries its folder's priority so the index can
  // be walked without a join. Deliveries only ever exist for folders being dispatched.
  `ALTER TABLE deliveries ADD COLUMN priority INTEGER NOT NULL DEFAULT 0;
   UPDATE deliveries SET priority = (SELECT priority FROM folders WHERE folders.id = deliveries.folder_id);
   DROP INDEX folders_due;
   DROP INDEX deliveries_pending;
   CREATE INDEX folders_order ON folders (state, priority, due_at);
   CREATE INDEX deliveries_order ON deliveries (target, state, priority, next_at);`,
  // 3: delivery and follow-up are two stages. A delivery the server accepted may be `following` (its scan's end
  // is being watched); what the follower needs survives a restart in `follow`. Each stage's time is kept, and
  // a folder Plex did not take in is scanned once more (`rescans`).
  `ALTER TABLE deliveries ADD COLUMN ready_at INTEGER;
   ALTER TABLE deliveries ADD COLUMN delivered_at INTEGER;
   ALTER TABLE deliveries ADD COLUMN followed_at INTEGER;
   ALTER TABLE deliveries ADD COLUMN follow TEXT;
   ALTER TABLE deliveries ADD COLUMN rescans INTEGER NOT NULL DEFAULT 0;
   ALTER TABLE history ADD COLUMN delivery_ms INTEGER;
   ALTER TABLE history ADD COLUMN follow_ms INTEGER;`,
  // 4: a request may ask for the item holding its file to be refreshed after the scan ('item', or
  // 'item-if-enabled' where the target's REFRESH_ITEMS decides); merged requests keep the strongest ask.
  `ALTER TABLE folders ADD COLUMN refresh TEXT;`,
  // 5: the series'/movie's IDs a Sonarr/Radarr download carried (JSON), for PLEX_FIX_MISMATCHED after the scan.
  `ALTER TABLE folders ADD COLUMN ids TEXT;`,
  // 6: the path as the sender sent it, before SERVER_PATH_MAPPINGS, so Retry and Scan now can map it again with
  // the current mappings (a fixed mapping then reaches the right folder) and people see both forms.
  `ALTER TABLE folders ADD COLUMN received TEXT;
   ALTER TABLE history ADD COLUMN received TEXT;`,
  // 7: history on disk is about a third of what it was. A detail is stored once as a template in history_texts
  // (the line's folder and its digit runs as placeholders, found by a 48-bit key of the text) and each line names
  // it with its own digits; the path as received keeps only what differs from the folder
  // (src/queue/history-texts.ts). Every line is rewritten into the rebuilt table, every text kept as it was.
  (db) => {
    db.exec(`CREATE TABLE history_texts (id INTEGER PRIMARY KEY, key INTEGER NOT NULL, text TEXT NOT NULL);
      CREATE INDEX history_texts_key ON history_texts (key);
      CREATE TABLE history_v7 (
        id            INTEGER PRIMARY KEY,
        folder        TEXT    NOT NULL,
        source        TEXT    NOT NULL,
        event         TEXT    NOT NULL,
        requests      INTEGER NOT NULL,
        first_at      INTEGER NOT NULL,
        finished_at   INTEGER NOT NULL,
        target        TEXT,
        outcome       TEXT    NOT NULL,
        detail_id     INTEGER,
        detail_args   TEXT,
        attempts      INTEGER NOT NULL DEFAULT 0,
        delivery_ms   INTEGER,
        follow_ms     INTEGER,
        received_edit TEXT
      );`);
    const texts = textStatements(db);
    const read = db.prepare<[number], V6Line>('SELECT * FROM history WHERE id > ? ORDER BY id LIMIT 2000');
    const write = db.prepare(
      `INSERT INTO history_v7 (id, folder, source, event, requests, first_at, finished_at, target, outcome, detail_id,
                               detail_args, attempts, delivery_ms, follow_ms, received_edit)
       VALUES (@id, @folder, @source, @event, @requests, @first_at, @finished_at, @target, @outcome, @detail_id,
               @detail_args, @attempts, @delivery_ms, @follow_ms, @received_edit)`,
    );
    for (let after = Number.MIN_SAFE_INTEGER; ; ) {
      const lines = read.all(after);
      if (lines.length === 0) break;
      for (const { detail, received, ...line } of lines) write.run({ ...line, ...storedColumns(texts, line.folder, detail, received) });
      after = lines[lines.length - 1].id;
    }
    db.exec(`DROP TABLE history;
      ALTER TABLE history_v7 RENAME TO history;
      CREATE INDEX history_finished ON history (finished_at);`);
  },
  // 8: requests waiting for their file's SHA-256 (hash=) are kept here, so a restart resumes them (src/queue/held.ts).
  `CREATE TABLE held (
     id      INTEGER PRIMARY KEY,
     request TEXT    NOT NULL,
     hash    TEXT    NOT NULL,
     client  TEXT    NOT NULL,
     since   INTEGER NOT NULL,
     checks  INTEGER NOT NULL DEFAULT 0
   );`,
  // 9: a person asked for a folder that is a library's own folder as a whole-library scan (the manual page's box,
  // the API's libraryRoot): kept with the folder until it is delivered, since without it such a folder is refused.
  `ALTER TABLE folders ADD COLUMN library_root INTEGER NOT NULL DEFAULT 0;`,
  // 10: every file the folder's requests named, new and deleted (JSON, src/queue/files.ts), for a server that takes
  // files rather than folders: the Targeted Scans plugin is sent an upgrade's new file and the one it replaced.
  `ALTER TABLE folders ADD COLUMN files TEXT;`,
  // 11: when the folder's current wait began (its first request since it was last sent), so a folder that keeps
  // receiving requests is still due SERVER_SCAN_MAX_WAIT after it: the delay restarts with each request, this not.
  `ALTER TABLE folders ADD COLUMN wait_from INTEGER NOT NULL DEFAULT 0;
   UPDATE folders SET wait_from = first_at;`,
];

export const schemaVersion = migrations.length;

export const queueComponent: Component = {
  name: 'queue',
  steps: migrations,
  tooNew: (found, known) =>
    `the queue file was written by a newer scanrelay (schema ${found}, this one knows ${known}): upgrade scanrelay or point --queuefile elsewhere`,
  // Releases before schema_versions counted the queue's steps in PRAGMA user_version.
  adoptLegacy: (db) => db.pragma('user_version', { simple: true }) as number,
  // Kept in step: earlier releases and `restore` read it to refuse a file newer than they are.
  mirror: (db, version) => void db.pragma(`user_version = ${version}`),
};

export function migrate(db: Database.Database): void {
  migrateComponent(db, queueComponent);
}
