import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
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
    expect(row.due_at).toBe(clock.now() + 180_000);
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
    expect(q.startDispatch(row, ['plex', 'jellyfin'])).toBe(true);
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
    q.startDispatch(row, ['plex']);
    q.enqueue(req('/tv/A'));
    // The in-flight answer belongs to the old generation: ignored, the folder stays.
    expect(q.recordDelivery(row, 'plex', { state: 'scanned' }, ['plex'])).toBe(false);
    expect(q.get('/tv/A')!.state).toBe('waiting');
  });

  it('a deleted request skips nothing else: all_deleted only when every merged request was a delete', () => {
    const { q } = open();
    q.enqueue(req('/tv/A', { deleted: true }));
    expect(q.get('/tv/A')!.all_deleted).toBe(1);
    q.enqueue(req('/tv/A'));
    const row = q.get('/tv/A')!;
    expect([row.all_deleted, row.any_deleted]).toEqual([0, 1]);
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
