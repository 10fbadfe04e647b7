// Storage faults: a queue that cannot be written (read-only, locked by another process, disk full) makes the
// webhook answer 503, the log says why, nothing is believed queued that was not, and service resumes after.
import Database from '../../src/sqlite/binding.js';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { leakedSecrets } from '../support/log-audit.js';
import { SECRET, serviceLogs, testService, type TestService } from '../support/service.js';

let t: TestService;
beforeEach(async () => {
  t = await testService({ config: { SERVER_SCAN_DELAY: 0, PLEX_CONFIRM_SCANS: false } as never });
});
afterEach(async () => {
  await t.close();
});
afterAll(() => expect(leakedSecrets(serviceLogs())).toEqual([]));

const webhook = (show: string, name = 'S01E01.mkv') =>
  t.service.app.inject({
    method: 'POST',
    url: `/${SECRET}`,
    headers: { 'content-type': 'application/json' },
    payload: JSON.stringify({ eventType: 'Download', series: { path: `/data/media/tv/${show}` }, episodeFile: { path: `/data/media/tv/${show}/Season 01/${name}` } }),
  });
const folderOf = (show: string) => `/data/media/tv/${show}/Season 01`;

describe('storage faults', () => {
  it('a read-only queue: 503, the log says why, nothing recorded; writable again: 200 and queued', async () => {
    expect((await webhook('Before')).statusCode).toBe(200);
    // As root chmod does not stop writes; query_only makes the service's own handle refuse every write.
    t.service.queue.db.pragma('query_only = ON');
    const res = await webhook('During');
    expect(res.statusCode).toBe(503);
    expect(res.json().error).toMatch(/could not write the queue/);
    const manual = await t.service.app.inject({ method: 'POST', url: `/${SECRET}`, payload: { eventType: 'Manual', filepath: '/data/media/tv/Manual/Season 01/e.mkv' } });
    expect(manual.statusCode).toBe(503);
    const logged = t.logs.join('');
    expect(logged).toMatch(/Could not queue a sonarr request: could not write the queue \(SQLITE_READONLY\)/);
    expect(logged).toContain('Answered 503');
    // /health still answers (reads work) and the service is up.
    expect((await t.service.app.inject({ url: '/health' })).statusCode).toBe(200);
    t.service.queue.db.pragma('query_only = OFF');
    expect(t.service.queue.get(folderOf('During'))).toBeUndefined();
    expect((await webhook('After')).statusCode).toBe(200);
    expect(t.service.queue.get(folderOf('After'))).toBeDefined();
    expect(t.service.queue.get(folderOf('Before'))).toBeDefined();
  });

  it('disk full (max_page_count): 503 with SQLITE_FULL, every 200 is queued, and it resumes when space is back', async () => {
    const db = t.service.queue.db;
    const pages = db.pragma('page_count', { simple: true }) as number;
    db.pragma(`max_page_count = ${pages + 2}`);
    const long = 'x'.repeat(1500);
    const answered: { show: string; status: number }[] = [];
    for (let i = 0; i < 200; i++) {
      const show = `Show ${i} ${long}`;
      const status = (await webhook(show)).statusCode;
      answered.push({ show, status });
      if (status === 503) break;
    }
    expect(answered.at(-1)!.status).toBe(503);
    for (const a of answered) {
      if (a.status === 200) expect(t.service.queue.get(folderOf(a.show))).toBeDefined();
      else expect(t.service.queue.get(folderOf(a.show))).toBeUndefined();
    }
    expect(t.logs.join('')).toMatch(/could not write the queue \(SQLITE_FULL\): check that the queue file's disk has space/);
    db.pragma('max_page_count = 1073741823');
    expect((await webhook('Space again')).statusCode).toBe(200);
    expect(t.service.queue.get(folderOf('Space again'))).toBeDefined();
  });

  it('a second process holding an exclusive lock: 503 after the busy timeout, then 200 once it lets go', async () => {
    // The service's own wait (250 ms): the event loop is held no longer than that.
    expect(t.service.queue.db.pragma('busy_timeout', { simple: true })).toBe(250);
    const other = new Database(t.queuefile);
    other.pragma('busy_timeout = 0');
    other.exec('BEGIN EXCLUSIVE');
    try {
      const started = performance.now();
      const res = await webhook('Locked');
      expect(performance.now() - started).toBeLessThan(1_000);
      expect(res.statusCode).toBe(503);
      expect(t.logs.join('')).toMatch(/could not write the queue \(SQLITE_BUSY\): another process holds the queue file locked/);
    } finally {
      other.exec('ROLLBACK');
      other.close();
    }
    expect((await webhook('Unlocked')).statusCode).toBe(200);
    expect(t.service.queue.get(folderOf('Locked'))).toBeUndefined();
    expect(t.service.queue.get(folderOf('Unlocked'))).toBeDefined();
  });

  it('a storage fault while scans are in flight does not crash the processor; the folder is scanned after the fix', async () => {
    t.plex.latencyMs = 150;
    expect((await webhook('InFlight')).statusCode).toBe(200);
    const tick = t.service.processor.tick();
    await tick;
    // The scan is now in flight; the queue goes read-only before its result is recorded.
    t.service.queue.db.pragma('query_only = ON');
    await t.service.processor.idle();
    expect(t.logs.join('')).toMatch(/could not record|failed/i);
    t.service.queue.db.pragma('query_only = OFF');
    t.plex.latencyMs = 0;
    t.clock.advance(10 * 60_000);
    await t.service.processor.drain();
    expect(t.service.queue.get(folderOf('InFlight'))).toBeUndefined();
    expect(t.plex.refreshes.some((r) => r.path === folderOf('InFlight'))).toBe(true);
  });
});
