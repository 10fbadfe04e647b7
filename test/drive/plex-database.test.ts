// The read-only Plex library database check, on a small SQLite file in Plex's schema.
import Database from '../../src/sqlite/binding.js';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { openPlexDatabase } from '../../src/targets/plex/database.js';
import { makePlexDb } from '../support/plex-db.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'scanrelay-plexdb-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const EP = '/data/TV/The Expanse (2015)/Season 01/The Expanse - S01E01.mkv';

describe('Plex library database (read-only)', () => {
  it('finds a file by media_parts.file and compares sizes; trashed parts do not count', () => {
    const path = join(dir, 'com.plexapp.plugins.library.db');
    makePlexDb(path, {
      sections: [
        { id: 1, name: 'Movies', type: 1, roots: ['/data/Movies'] },
        { id: 2, name: 'TV Shows', type: 2, roots: ['/data/TV', '/data/TV2'] },
      ],
      parts: [{ file: EP, size: 2771403812 }, { file: '/data/TV/gone.mkv', size: 1, deletedAt: 1700000000 }],
    });
    const plex = openPlexDatabase(path);
    expect(plex.hasFile(EP)).toBe(true);
    expect(plex.hasFile(EP, 2771403812)).toBe(true);
    expect(plex.hasFile(EP, 1)).toBe(false);
    expect(plex.hasFile(EP.toLowerCase())).toBe(false);
    expect(plex.hasFile('/data/TV/gone.mkv')).toBe(false);
    expect(plex.hasFile("/data/TV/it's 100%_new.mkv")).toBe(false);
    expect(plex.sectionLocations()).toEqual([
      { sectionId: 1, sectionName: 'Movies', sectionType: 1, rootPath: '/data/Movies' },
      { sectionId: 2, sectionName: 'TV Shows', sectionType: 2, rootPath: '/data/TV' },
      { sectionId: 2, sectionName: 'TV Shows', sectionType: 2, rootPath: '/data/TV2' },
    ]);
    plex.close();
  });

  it('opens read-only: the file is never changed', () => {
    const path = join(dir, 'plex.db');
    makePlexDb(path, { parts: [{ file: EP, size: 1 }] });
    const plex = openPlexDatabase(path);
    expect(plex.hasFile(EP)).toBe(true);
    // A second writer sees no lock held and no journal left behind by us.
    const writer = new Database(path);
    writer.prepare('DELETE FROM media_parts').run();
    writer.close();
    expect(plex.hasFile(EP)).toBe(false);
    expect(existsSync(`${path}-journal`)).toBe(false);
    plex.close();
  });

  it('is "unknown" (not an error) when the file is missing or not a Plex database, and picks it up later', () => {
    const clock = new ManualClock();
    const path = join(dir, 'late.db');
    const plex = openPlexDatabase(path, { clock, retryMs: 60_000 });
    expect(plex.hasFile(EP)).toBe('unknown');
    expect(plex.sectionLocations()).toBe('unknown');
    expect(existsSync(path)).toBe(false); // fileMustExist: never created

    makePlexDb(path, { parts: [{ file: EP }] });
    expect(plex.hasFile(EP)).toBe('unknown'); // still inside the retry wait
    clock.advance(60_000);
    expect(plex.hasFile(EP)).toBe(true);
    plex.close();

    const junk = join(dir, 'junk.db');
    writeFileSync(junk, 'not sqlite at all, just text that is long enough to be a header........');
    expect(openPlexDatabase(junk).hasFile(EP)).toBe('unknown');
    const other = join(dir, 'other.db');
    new Database(other).exec('CREATE TABLE t (x)');
    expect(openPlexDatabase(other).hasFile(EP)).toBe('unknown');
  });
});
