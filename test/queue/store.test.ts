import Database from '../../src/sqlite/binding.js';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { FILES_KEPT } from '../../src/queue/files.js';
import { schemaVersion } from '../../src/queue/schema.js';
import { Queue, type FolderRequest } from '../../src/queue/store.js';

const dirs: Queue[] = [];
function open(file = join(mkdtempSync(join(tmpdir(), 'scanrelay-q-')), 'queue.db'), clock = new ManualClock()) {
  const q = new Queue(file, clock, { delayMs: 180_000 });
  dirs.push(q);
  return { q, clock, file };
}
afterEach(() => dirs.splice(0).forEach((q) => q.close()));

const req = (folder: string, extra: Partial<FolderRequest> = {}): FolderRequest => ({
  folder,
  priority: 1,
  source: 'sonarr',
  event: 'Download',
  fileHint: `${folder}/e.mkv`,
  deleted: false,
  ...extra,
});

describe('queue', () => {
  // One turn's webhooks are committed together; requests for one folder are folded before the SQL runs. Whatever
  // the mix, the row must be the one the same requests give when enqueued one at a time.
  const sequences: [string, FolderRequest[]][] = [
    ['a season pack: one folder, several episodes', [req('/tv/S/S01', { fileHint: '/tv/S/S01/e1.mkv' }), req('/tv/S/S01', { fileHint: '/tv/S/S01/e2.mkv', priority: 0 }), req('/tv/S/S01', { fileHint: '/tv/S/S01/e3.mkv', priority: 3 })]],
    ['deleted after a download keeps the download\'s file to check', [req('/tv/S/S01'), req('/tv/S/S01', { deleted: true, fileHint: '/tv/S/S01/gone.mkv', event: 'EpisodeFileDelete' })]],
    ['only deletions', [req('/tv/S/S01', { deleted: true }), req('/tv/S/S01', { deleted: true, source: 'radarr' })]],
    ['a deletion, then a download', [req('/tv/S/S01', { deleted: true }), req('/tv/S/S01', { fileHint: '/tv/S/S01/new.mkv' })]],
    ['refresh: item wins, otherwise the latest given', [req('/tv/S/S01', { refresh: 'item-if-enabled' }), req('/tv/S/S01', { refresh: 'item' }), req('/tv/S/S01', { refresh: 'item-if-enabled' })]],
    ['ids and received: the latest given', [req('/tv/S/S01', { ids: { tvdb: '1' }, received: '/a' }), req('/tv/S/S01'), req('/tv/S/S01', { ids: { tvdb: '2' } })]],
    ['an upgrade: the new file and the one it replaced', [req('/m/A', { fileHint: '/m/A/new.mkv', event: 'Upgrade' }), req('/m/A', { fileHint: '/m/A/old.mkv', deleted: true, event: 'Upgrade' })]],
    ['two folders interleaved', [req('/tv/A/S01'), req('/tv/B/S01', { priority: 0 }), req('/tv/A/S01', { event: 'Upgrade' }), req('/tv/B/S01', { deleted: true })]],
  ];
  const rowsOf = (q: Queue, folders: string[]) => folders.map((f) => {
    const { id: _id, ...row } = q.get(f)!;
    return row;
  });

  it.each(sequences)('folds one turn\'s requests for a folder like one at a time: %s', (_name, reqs) => {
    const folders = [...new Set(reqs.map((r) => r.folder))];
    for (const existing of [false, true]) {
      const one = open();
      const many = open();
      if (existing) {
        for (const { q } of [one, many]) q.enqueue(req(folders[0], { priority: 5, refresh: 'item-if-enabled' }));
      }
      const seq = reqs.map((r) => one.q.enqueue(r));
      const together = many.q.enqueueMany(reqs);
      expect(together.map((r) => r.merged)).toEqual(seq.map((r) => r.merged));
      expect(rowsOf(many.q, folders)).toEqual(rowsOf(one.q, folders));
    }
  });

  it('keeps every file the requests named, new and deleted, the latest request about a path deciding', () => {
    const { q } = open();
    q.enqueueMany([req('/m/A', { fileHint: '/m/A/new.mkv' }), req('/m/A', { fileHint: '/m/A/old.mkv', deleted: true })]);
    expect(q.get('/m/A')!.files).toEqual({ live: ['/m/A/new.mkv'], gone: ['/m/A/old.mkv'] });
    // Imported again after it was deleted: it is a live file now.
    q.enqueue(req('/m/A', { fileHint: '/m/A/old.mkv' }));
    expect(q.get('/m/A')!.files).toEqual({ live: ['/m/A/new.mkv', '/m/A/old.mkv'], gone: [] });
    q.enqueue(req('/m/B', { fileHint: undefined }));
    expect(q.get('/m/B')!.files).toBeUndefined();
  });

  it('keeps at most FILES_KEPT paths and says there were more, so the folder is scanned whole', () => {
    const { q } = open();
    q.enqueueMany(Array.from({ length: FILES_KEPT + 5 }, (_, i) => req('/tv/S/S01', { fileHint: `/tv/S/S01/e${i}.mkv` })));
    const files = q.get('/tv/S/S01')!.files!;
    expect([files.live.length, files.more]).toEqual([FILES_KEPT, true]);
  });

  it('keeps one row per folder; a new request resets the due time and keeps the higher priority', () => {
    const { q, clock } = open();
    q.enqueue(req('/tv/Show/S01', { priority: 2 }));
    clock.advance(60_000);
    const r = q.enqueue(req('/tv/Show/S01', { priority: 0 }));
    expect(r.merged).toBe(true);
    expect(q.count()).toBe(1);
    const row = q.get('/tv/Show/S01')!;
    expect(row.priority).toBe(0);
    expect(row.requests).toBe(2);
    expect(row.dueAt).toBe(clock.now() + 180_000);
  });

  it('is durable: a reopened file holds every committed request', () => {
    const { q, file } = open();
    for (let i = 0; i < 50; i++) q.enqueue(req(`/tv/Show ${i}`));
    q.close();
    const again = new Queue(file, new ManualClock(), { delayMs: 0 });
    dirs.push(again);
    expect(again.count()).toBe(50);
  });

  it('returns due folders by priority, then due time', () => {
    const { q, clock } = open();
    q.enqueue(req('/b', { priority: 2 }));
    q.enqueue(req('/a', { priority: 0 }));
    clock.advance(180_000);
    expect(q.dueWaiting(10).map((r) => r.folder)).toEqual(['/a', '/b']);
  });

  it('records per-target delivery and moves a folder to history only when every target answered', () => {
    const { q, clock } = open();
    q.enqueue(req('/tv/A'));
    clock.advance(180_000);
    const row = q.dueWaiting(1)[0];
    expect(q.startDispatchMany([row], ['plex', 'jellyfin'])).toBe(1);
    expect(q.recordDelivery(row, 'plex', { state: 'scanned', detail: 'section 2' }, ['plex', 'jellyfin'])).toBe(false);
    expect(q.pendingFor('plex', 10)).toHaveLength(0);
    expect(q.pendingFor('jellyfin', 10)).toHaveLength(1);
    q.recordDelivery(row, 'jellyfin', { state: 'retry', error: 'down', nextAt: clock.now() + 5000 }, ['plex', 'jellyfin']);
    expect(q.pendingFor('jellyfin', 10)).toHaveLength(0);
    clock.advance(5000);
    expect(q.pendingFor('jellyfin', 10)[0].attempts).toBe(1);
    expect(q.recordDelivery(row, 'jellyfin', { state: 'scanned' }, ['plex', 'jellyfin'])).toBe(true);
    expect(q.count()).toBe(0);
    expect(q.history(10).map((h) => [h.target, h.outcome])).toEqual(
      expect.arrayContaining([['plex', 'scanned'], ['jellyfin', 'scanned']]),
    );
  });

  it('a request arriving during dispatch makes the folder wait and scan again', () => {
    const { q, clock } = open();
    q.enqueue(req('/tv/A'));
    clock.advance(180_000);
    const row = q.dueWaiting(1)[0];
    q.startDispatchMany([row], ['plex']);
    q.enqueue(req('/tv/A'));
    // The in-flight answer belongs to the old generation: ignored, the folder stays.
    expect(q.recordDelivery(row, 'plex', { state: 'scanned' }, ['plex'])).toBe(false);
    expect(q.get('/tv/A')!.state).toBe('waiting');
  });

  it('a deleted request skips nothing else: all_deleted only when every merged request was a delete', () => {
    const { q } = open();
    q.enqueue(req('/tv/A', { deleted: true }));
    expect(q.get('/tv/A')!.allDeleted).toBe(true);
    q.enqueue(req('/tv/A'));
    const row = q.get('/tv/A')!;
    expect([row.allDeleted, row.anyDeleted]).toEqual([false, true]);
  });

  it('drop and scan-now are person actions recorded in history', () => {
    const { q, clock } = open();
    q.enqueue(req('/tv/A'));
    expect(q.scanNow('/tv/A')).toBe(true);
    expect(q.dueWaiting(1)).toHaveLength(1);
    expect(q.drop('/tv/A')).toBe(true);
    expect(q.history(1)[0]).toMatchObject({ folder: '/tv/A', outcome: 'dropped' });
    expect(q.drop('/tv/missing')).toBe(false);
    void clock;
  });
});

describe('queue order at scale', () => {
  it('steps through priorities in order and by due time within each, honouring the limit', () => {
    const { q, clock } = open();
    const order: string[] = [];
    for (const [folder, priority] of [['/p5-a', 5], ['/p0-a', 0], ['/p5-b', 5], ['/pneg', -3], ['/p0-b', 0]] as const) {
      q.enqueue(req(folder, { priority }));
      order.push(folder);
      clock.advance(1_000);
    }
    clock.advance(180_000);
    expect(q.dueWaiting(10).map((r) => r.folder)).toEqual(['/pneg', '/p0-a', '/p0-b', '/p5-a', '/p5-b']);
    expect(q.dueWaiting(3).map((r) => r.folder)).toEqual(['/pneg', '/p0-a', '/p0-b']);
    q.startDispatchMany(q.dueWaiting(10), ['plex']);
    expect(q.pendingFor('plex', 4).map((r) => r.folder)).toEqual(['/pneg', '/p0-a', '/p0-b', '/p5-a']);
    expect(q.pendingFor('other', 4)).toEqual([]);
  });

  it('leaves not-yet-due folders out and reports the earliest due time across folders and deliveries', () => {
    const { q, clock } = open();
    const start = clock.now();
    q.enqueue(req('/late', { priority: 0 }));
    clock.advance(10_000);
    q.enqueue(req('/later', { priority: 9 }));
    expect(q.dueWaiting(10)).toEqual([]);
    expect(q.nextDue(['plex'])).toBe(start + 180_000);
    clock.advance(170_000);
    const [row] = q.dueWaiting(10);
    q.startDispatchMany([row], ['plex']);
    q.recordDelivery(row, 'plex', { state: 'retry', error: 'down', nextAt: clock.now() + 5_000 }, ['plex']);
    expect(q.nextDue(['plex'])).toBe(clock.now() + 5_000);
    expect(q.pendingFor('plex', 10)).toEqual([]);
  });

  it('never sorts the whole queue to pick the next folders or deliveries (every query walks an index)', () => {
    const { q } = open();
    // The very statements the queue prepares, explained with placeholder values.
    const stmts = (q as unknown as { stmt: Record<string, Database.Statement> }).stmt;
    const names = ['waitingPriorityAfter', 'dueWaitingAt', 'nextWaitingDueAt', 'pendingPriorityAfter', 'pendingAt', 'nextDeliveryDueAt'];
    const plans = names.map((name) => {
      const sql = stmts[name].source;
      const params = Array.from({ length: (sql.match(/\?/g) ?? []).length }, () => 0);
      return (q.db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[]).map((r) => r.detail).join(' | ');
    });
    for (const plan of plans) {
      expect(plan).not.toMatch(/TEMP B-TREE|SCAN (folders|deliveries|d|f)\b/);
      expect(plan).toMatch(/USING (COVERING )?INDEX (folders_order|deliveries_order)/);
    }
  });

  it('upgrades a schema-1 queue file: pending deliveries keep their folder priority and are still found', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'scanrelay-q-')), 'queue.db');
    const old = new Database(file);
    old.exec(`CREATE TABLE folders (id INTEGER PRIMARY KEY, folder TEXT NOT NULL UNIQUE, priority INTEGER NOT NULL DEFAULT 0,
      due_at INTEGER NOT NULL, first_at INTEGER NOT NULL, last_at INTEGER NOT NULL, requests INTEGER NOT NULL DEFAULT 1,
      source TEXT NOT NULL, event TEXT NOT NULL, file_hint TEXT, all_deleted INTEGER NOT NULL DEFAULT 0,
      any_deleted INTEGER NOT NULL DEFAULT 0, checks INTEGER NOT NULL DEFAULT 0, generation INTEGER NOT NULL DEFAULT 1,
      state TEXT NOT NULL DEFAULT 'waiting', last_error TEXT);
      CREATE INDEX folders_due ON folders (state, due_at);
      CREATE TABLE deliveries (folder_id INTEGER NOT NULL REFERENCES folders (id) ON DELETE CASCADE, target TEXT NOT NULL,
        state TEXT NOT NULL DEFAULT 'pending', attempts INTEGER NOT NULL DEFAULT 0, next_at INTEGER NOT NULL DEFAULT 0,
        last_error TEXT, detail TEXT, PRIMARY KEY (folder_id, target));
      CREATE INDEX deliveries_pending ON deliveries (target, state, next_at);
      CREATE TABLE history (id INTEGER PRIMARY KEY, folder TEXT NOT NULL, source TEXT NOT NULL, event TEXT NOT NULL,
        requests INTEGER NOT NULL, first_at INTEGER NOT NULL, finished_at INTEGER NOT NULL, target TEXT, outcome TEXT NOT NULL,
        detail TEXT, attempts INTEGER NOT NULL DEFAULT 0);
      CREATE INDEX history_finished ON history (finished_at);
      INSERT INTO folders (id, folder, priority, due_at, first_at, last_at, source, event, state) VALUES
        (1, '/tv/Urgent', -1, 0, 0, 0, 'sonarr', 'Download', 'dispatching'),
        (2, '/tv/Normal', 4, 0, 0, 0, 'sonarr', 'Download', 'dispatching'),
        (3, '/tv/Waiting', 0, 0, 0, 0, 'radarr', 'Download', 'waiting');
      INSERT INTO deliveries (folder_id, target, next_at) VALUES (2, 'plex', 0), (1, 'plex', 5);
      PRAGMA user_version = 1;`);
    old.close();
    const q = new Queue(file, new ManualClock(10), { delayMs: 0 });
    dirs.push(q);
    expect(q.db.pragma('user_version', { simple: true })).toBe(schemaVersion);
    expect(q.pendingFor('plex', 10).map((r) => [r.folder, r.priority])).toEqual([['/tv/Urgent', -1], ['/tv/Normal', 4]]);
    expect(q.dueWaiting(10).map((r) => r.folder)).toEqual(['/tv/Waiting']);
  });
});

describe('scheduled checkpoints (the server)', () => {
  it('no commit runs a checkpoint; checkpoint() moves every committed page into the database file', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'scanrelay-q-')), 'queue.db');
    const q = new Queue(file, new ManualClock(), { delayMs: 0, checkpointEveryMs: 60_000 });
    dirs.push(q);
    expect(q.db.pragma('wal_autocheckpoint', { simple: true })).toBe(0);
    for (let i = 0; i < 3_000; i++) q.enqueue(req(`/tv/Show ${i}`));
    const before = q.db.pragma('wal_checkpoint(NOOP)') as { log: number; checkpointed: number }[];
    expect(before[0].log).toBeGreaterThan(1_000); // SQLite's own checkpoint would have run by now
    expect(before[0].checkpointed).toBe(0);
    q.checkpoint();
    const after = q.db.pragma('wal_checkpoint(NOOP)') as { log: number; checkpointed: number }[];
    expect(after[0].checkpointed).toBe(after[0].log);
    q.close();
    const again = new Queue(file, new ManualClock(), { delayMs: 0 });
    dirs.push(again);
    expect(again.count()).toBe(3_000);
  });
});
