// History kept small on disk (schema 7): details stored once with the line's folder as a placeholder, the path as
// received kept as what differs from the folder. Every text reads back exactly as written, lines of schema 6 are
// rewritten in place with theirs, and a realistic mix takes at most 200 bytes a line (dbstat).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { detailOf, receivedEdit, receivedOf, storeDetail } from '../../src/queue/history-texts.js';
import { Retention } from '../../src/queue/retention.js';
import { queueComponent } from '../../src/queue/schema.js';
import { Queue } from '../../src/queue/store.js';
import Database from '../../src/sqlite/binding.js';

let dir: string;
let file: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'scanrelay-history-texts-'));
  file = join(dir, 'queue.db');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const UNMATCHED = (folder: string) =>
  `Unable to map '${folder}' to a Section ID. Known locations: /data/media/movies, /data/media/tv. Check the SERVER_PATH_MAPPINGS entry for the path as received.`;

/** Texts a history line may hold, each beside its folder, the edge cases included. */
const CASES: { folder: string; received: string | null; detail: string | null }[] = [
  { folder: '/data/media/tv/Show (2019)/Season 03', received: '/tv/Show (2019)/Season 03', detail: 'In the library after 3 s (confirmed through the API). Sent to section 2 TV.' },
  { folder: '/data/media/tv/Other/Season 01', received: '/data/media/tv/Other/Season 01', detail: UNMATCHED('/data/media/tv/Other/Season 01') },
  { folder: '/data/media/tv/Ünïcødé 🎬/Season 01', received: '/tv/Ünïcødé 🎬/Season 01', detail: "'/data/media/tv/Ünïcødé 🎬/Season 01/e01.mkv' is in no Plex section" },
  // The received path ends inside a surrogate pair of the folder's: the split must not cut it.
  { folder: '/a/x🎬', received: '/b/y🎬', detail: 'two 🎬 marks \u0001F and \u0002 of our own, kept as written' },
  // Runs of the folder that begin or end inside a character are not copied there.
  { folder: '/tv/🎬🎬 long name/🎬🎬', received: '/in/🎬🎬 long name/🎬🎬/🎬🎬 long name🎬.mkv', detail: null },
  { folder: '/tv/x', received: '/tv/x\u0001 and \u0002', detail: null },
  { folder: '', received: '', detail: '' },
  { folder: '/m', received: '/mm', detail: '/m/m/m' },
  { folder: '/tv/none', received: null, detail: null },
  { folder: '/tv/short', received: '/t', detail: 'line one\nline two' },
  { folder: '/tv/Show 24/Season 007', received: '/in/Show 24/Season 007', detail: "007 after 0.80 s, item 00200, in '/tv/Show 24/Season 007/e1.mkv', 1,2" },
];

describe('history texts', () => {
  it('encode and decode to exactly what was written', () => {
    for (const c of CASES) {
      if (c.detail !== null) {
        const stored = storeDetail(c.detail, c.folder);
        expect(detailOf(stored.text, stored.args, c.folder)).toBe(c.detail);
      }
      if (c.received !== null) expect(receivedOf(receivedEdit(c.received, c.folder), c.folder)).toBe(c.received);
    }
    // The mapping's own part is all that is kept of the path as received; a folder's detail becomes one text.
    // "/tv/Show (2019)/Season 03" is the folder from unit 11 on (25 units), "/Show (2019)" from 14 (12 units).
    expect(receivedEdit('/tv/Show (2019)/Season 03/Show (2019) - S03E01.mkv', '/data/media/tv/Show (2019)/Season 03')).toBe('\u0001b.p.\u0001e.c. - S03E01.mkv');
    expect(receivedEdit('/downloads/Show/Season 1', '/tv/Show/Season 1')).toBe('/downloads\u00013.e.');
    // A run starting inside a character of the folder is not copied from there (a lone half cannot be stored).
    const f = '/tv/\uDC00abcdefghij';
    const r = '\uD83C\uDC00abcdefghij/x';
    expect(receivedEdit(r, f).startsWith('\uD83C\uDC00')).toBe(true);
    expect(receivedOf(receivedEdit(r, f), f)).toBe(r);
    expect(storeDetail(UNMATCHED('/x/A'), '/x/A').text).toBe(storeDetail(UNMATCHED('/x/B'), '/x/B').text);
    // Digits are the line's own: one template for every item and every wait.
    const confirmed = (s: string, item: number) => `In the library after ${s} s (confirmed through api). Basic analyze started (item ${item}). Sent to section 2 TV.`;
    expect(storeDetail(confirmed('0.8', 200), '/x/A')).toEqual({ text: storeDetail(confirmed('12.05', 7), '/x/B').text, args: '0,8,200,2' });
  });

  it('a queue reads back every text written through it, and a detail used by many lines is stored once', () => {
    const q = new Queue(file, new ManualClock(1000), { delayMs: 0 });
    try {
      for (const c of CASES) q.recordUnmatched({ folder: c.folder, received: c.received as string, source: 'sonarr', event: 'Download', detail: c.detail as string });
      for (let i = 0; i < 50; i++) q.recordUnmatched({ folder: `/tv/S${i}`, received: `/in/S${i}`, source: 'sonarr', event: 'Download', detail: UNMATCHED(`/tv/S${i}`) });
      const lines = q.history(1000).reverse();
      expect(lines.slice(0, CASES.length).map((h) => [h.folder, h.received ?? null, h.detail ?? null])).toEqual(CASES.map((c) => [c.folder, c.received, c.detail]));
      expect(lines.slice(CASES.length).map((h) => h.detail)).toEqual(Array.from({ length: 50 }, (_, i) => UNMATCHED(`/tv/S${i}`)));
      // The 50 lines share one template with one of the cases.
      const texts = (q.db.prepare('SELECT COUNT(*) AS n FROM history_texts').get() as { n: number }).n;
      expect(texts).toBeLessThanOrEqual(CASES.length);
    } finally {
      q.close();
    }
  });

  it('lines of schema 6 are rewritten by step 7 with every text kept, and the texts no line names are pruned', () => {
    // A schema-6 file built by the released steps, with lines written as schema 6 wrote them.
    const old = new Database(file);
    old.exec('CREATE TABLE schema_versions (component TEXT PRIMARY KEY, version INTEGER NOT NULL)');
    for (const step of queueComponent.steps.slice(0, 6)) old.exec(step as string);
    old.exec("INSERT INTO schema_versions VALUES ('queue', 6); PRAGMA user_version = 6;");
    const insert = old.prepare(
      `INSERT INTO history (folder, source, event, requests, first_at, finished_at, target, outcome, detail, attempts, delivery_ms, follow_ms, received)
       VALUES (?, 'sonarr', 'Download', 2, 10, ?, 'plex', 'confirmed', ?, 1, 40, 900, ?)`,
    );
    CASES.forEach((c, i) => insert.run(c.folder, 100 + i, c.detail, c.received));
    for (let i = 0; i < 20; i++) insert.run(`/tv/S${i}`, 200 + i, UNMATCHED(`/tv/S${i}`), `/in/S${i}`);
    old.close();

    const q = new Queue(file, new ManualClock(1000), { delayMs: 0 });
    try {
      expect(q.db.pragma('user_version', { simple: true })).toBe(queueComponent.steps.length);
      const lines = q.history(1000).reverse();
      expect(lines).toHaveLength(CASES.length + 20);
      expect(lines.slice(0, CASES.length).map((h) => [h.folder, h.received ?? null, h.detail ?? null])).toEqual(CASES.map((c) => [c.folder, c.received, c.detail]));
      expect(lines.slice(CASES.length).map((h) => [h.detail, h.received])).toEqual(Array.from({ length: 20 }, (_, i) => [UNMATCHED(`/tv/S${i}`), `/in/S${i}`]));
      expect(lines.every((h) => h.requests === 2 && h.deliveryMs === 40 && h.followMs === 900 && h.target === 'plex' && h.outcome === 'confirmed')).toBe(true);
      expect(q.db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'history'").all()).toEqual([{ name: 'history_finished' }]);

      // Retention keeps the newest line only: the texts of the others go with them.
      const retention = new Retention(q.db, new ManualClock(1000), { days: 30_000, maxRows: 1 });
      retention.pruneBatch();
      expect(retention.pruneTexts()).toBeGreaterThan(0);
      expect(q.db.prepare('SELECT text FROM history_texts').all()).toEqual([{ text: storeDetail(UNMATCHED('/tv/S19'), '/tv/S19').text }]);
      expect(q.history(10).map((h) => h.detail)).toEqual([UNMATCHED('/tv/S19')]);
    } finally {
      q.close();
    }
  });

  it('a realistic mix takes at most 200 bytes a line on disk (dbstat: history, its index and its texts)', () => {
    const q = new Queue(file, new ManualClock(Date.now()), { delayMs: 0 });
    const N = 20_000;
    try {
      q.db.transaction(() => {
        for (let i = 0; i < N; i++) {
          const show = `Some Show Title ${i % 3000} (20${10 + (i % 15)})`;
          const folder = `/data/media/tv/${show}/Season ${String(1 + (i % 8)).padStart(2, '0')}`;
          // What Sonarr sends: the episode file, under its own root.
          const received = `${folder.replace('/data/media/tv/', '/tv/')}/${show} - S01E${String(1 + (i % 12)).padStart(2, '0')} - Episode Title WEBDL-1080p.mkv`;
          // Mostly confirmed after a few seconds; one in 50 in no library; one in 100 not found.
          const detail =
            i % 50 === 49
              ? UNMATCHED(folder)
              : i % 100 === 7
                ? `Not in the library after the scan ended: no item holds '${folder}/${show} - S01E01.mkv'. Sent to section 2 TV Shows.`
                : `In the library after ${(i % 40) / 10} s (confirmed through api). Basic analyze started (item ${1000 + i}). Sent to section 2 TV Shows.`;
          q.recordUnmatched({ folder, received, source: 'sonarr', event: 'Download', detail });
        }
      })();
      const bytes = q.db
        .prepare<[], { b: number }>("SELECT SUM(pgsize) AS b FROM dbstat WHERE name IN ('history', 'history_finished', 'history_texts', 'history_texts_key')")
        .get()!.b;
      const perLine = bytes / N;
      expect(perLine).toBeLessThanOrEqual(200);
      // Schema 6 stored these lines in about 330 bytes each (the detail and both paths in full on every line).
      expect(perLine).toBeGreaterThan(60);
    } finally {
      q.close();
    }
  });
});
