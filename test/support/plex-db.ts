// Builds a small SQLite file with the tables and columns of Plex's library database that scanrelay reads
// (library_sections, section_locations, metadata_items, media_items, media_parts), for tests.
import Database from '../../src/sqlite/binding.js';

export interface PlexDbPart {
  file: string;
  size?: number;
  /** Set to mark the item as in Plex's trash. */
  deletedAt?: number;
}

export interface PlexDbContent {
  sections?: { id: number; name: string; type: number; roots: string[] }[];
  parts?: PlexDbPart[];
}

export function makePlexDb(path: string, content: PlexDbContent = {}): void {
  const db = new Database(path);
  db.exec(`
    CREATE TABLE library_sections (id INTEGER PRIMARY KEY, library_id INTEGER, name VARCHAR(255), name_sort VARCHAR(255) COLLATE NOCASE,
      section_type INTEGER, language VARCHAR(255), agent VARCHAR(255), scanner VARCHAR(255), uuid VARCHAR(255),
      created_at DATETIME, updated_at DATETIME, scanned_at DATETIME, user_fields VARCHAR(255), changed_at INTEGER(8), content_changed_at INTEGER(8));
    CREATE TABLE section_locations (id INTEGER PRIMARY KEY, library_section_id INTEGER, root_path VARCHAR(255), available BOOLEAN DEFAULT 't',
      scanned_at DATETIME, created_at DATETIME, updated_at DATETIME);
    CREATE TABLE metadata_items (id INTEGER PRIMARY KEY, library_section_id INTEGER, parent_id INTEGER, metadata_type INTEGER, guid VARCHAR(255),
      title VARCHAR(255), title_sort VARCHAR(255), "index" INTEGER, added_at DATETIME, deleted_at DATETIME);
    CREATE TABLE media_items (id INTEGER PRIMARY KEY, library_section_id INTEGER, section_location_id INTEGER, metadata_item_id INTEGER,
      type_id INTEGER, size INTEGER(8), duration INTEGER, container VARCHAR(255), created_at DATETIME, updated_at DATETIME, deleted_at DATETIME);
    CREATE TABLE media_parts (id INTEGER PRIMARY KEY, media_item_id INTEGER, directory_id INTEGER, hash VARCHAR(255), open_subtitle_hash VARCHAR(255),
      file VARCHAR(255), "index" INTEGER, size INTEGER(8), duration INTEGER, created_at DATETIME, updated_at DATETIME, deleted_at DATETIME, extra_data VARCHAR(255));
    CREATE INDEX index_media_parts_on_file ON media_parts (file);
  `);
  const addSection = db.prepare('INSERT INTO library_sections (id, name, section_type) VALUES (?, ?, ?)');
  const addRoot = db.prepare('INSERT INTO section_locations (library_section_id, root_path) VALUES (?, ?)');
  for (const s of content.sections ?? []) {
    addSection.run(s.id, s.name, s.type);
    for (const r of s.roots) addRoot.run(s.id, r);
  }
  const addMeta = db.prepare('INSERT INTO metadata_items (library_section_id, metadata_type, title) VALUES (1, 4, ?)');
  const addMedia = db.prepare('INSERT INTO media_items (library_section_id, metadata_item_id, size) VALUES (1, ?, ?)');
  const addPart = db.prepare('INSERT INTO media_parts (media_item_id, file, size, deleted_at) VALUES (?, ?, ?, ?)');
  for (const p of content.parts ?? []) {
    const meta = addMeta.run(p.file).lastInsertRowid;
    const media = addMedia.run(meta, p.size ?? null).lastInsertRowid;
    addPart.run(media, p.file, p.size ?? null, p.deletedAt ?? null);
  }
  db.close();
}
