// "Say it once" for Plex's database: the service keeps one handle and opens one more per scanner section read, and
// all of them retry a database that is missing. Before, each handle said so on its own (five lines in twelve
// seconds at a start without Plex); now the condition is shared and said once, summarized, and ended once.
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { ConditionLog } from '../../src/log/condition.js';
import { openPlexDatabase } from '../../src/targets/plex/database.js';
import { PLEX_DATABASE_PATH_DEFAULT } from '../../src/targets/plex/keys.js';
import { makePlexDb } from '../support/plex-db.js';
import { logCollector } from '../drive/harness.js';

describe('Plex database unavailable', () => {
  it('several handles retrying a missing database for 25 minutes: one warning, summaries at most every 10 minutes, one line when it is readable', () => {
    const path = join(mkdtempSync(join(tmpdir(), 'scanrelay-plexdb-')), 'com.plexapp.plugins.library.db');
    const clock = new ManualClock();
    const log = logCollector('info');
    const conditions = new ConditionLog({ logger: log.logger, clock });
    const kept = openPlexDatabase(path, { logger: log.logger, clock, conditions, retryMs: 60_000 });
    // Start-up: the kept handle and four section reads (each a fresh handle, as the scanner target's probes are).
    expect(kept.hasFile('/tv/a.mkv')).toBe('unknown');
    for (let i = 0; i < 4; i++) {
      const probe = openPlexDatabase(path, { logger: log.logger, clock, conditions });
      expect(probe.sectionLocations()).toBe('unknown');
      probe.close();
      clock.advance(3_000);
    }
    expect(log.messages()).toHaveLength(1);
    expect(log.messages()[0]).toMatch(/^Plex database unavailable \(cannot open .*com\.plexapp\.plugins\.library\.db: .*\); scans are confirmed through the Plex API instead\.$/);
    // Then a retry a minute for 25 minutes.
    for (let minute = 1; minute <= 25; minute++) {
      clock.set(Date.UTC(2026, 0, 1) + minute * 60_000);
      expect(kept.hasFile('/tv/a.mkv')).toBe('unknown');
    }
    expect(log.messages()).toHaveLength(3);
    expect(log.messages()[1]).toMatch(/^Still, for 10 min \(\d+ more time\(s\) in the last 10 min\): Plex database unavailable/);
    expect(log.messages()[2]).toMatch(/^Still, for 20 min \(10 more time\(s\) in the last 10 min\): Plex database unavailable/);
    // Plex comes up: said once.
    makePlexDb(path, { parts: [{ file: '/tv/a.mkv', size: 1 }] });
    clock.advance(60_000);
    expect(kept.hasFile('/tv/a.mkv')).toBe(true);
    expect(kept.hasFile('/tv/a.mkv')).toBe(true);
    expect(log.messages()).toHaveLength(4);
    expect(log.messages()[3]).toMatch(/^Plex database is readable again \(after 26 min, seen \d+ time\(s\)\)$/);
    kept.close();
  });
});

describe('no Plex database configured', () => {
  it('a scan with PLEX_DATABASE_PATH at its default and no file there: nothing at INFO, one DEBUG line', async () => {
    const { testService, SECRET } = await import('../support/service.js');
    const t = await testService();
    try {
      expect(t.service.config.PLEX_DATABASE_PATH).toBe(PLEX_DATABASE_PATH_DEFAULT);
      expect(existsSync(PLEX_DATABASE_PATH_DEFAULT)).toBe(false);
      t.plex.onDisk.add('/data/media/tv/Show/Season 01/e1.mkv');
      const res = await t.service.app.inject({ method: 'POST', url: `/${SECRET}`, payload: { eventType: 'Manual', filepath: '/data/media/tv/Show/Season 01/e1.mkv' } });
      expect(res.statusCode).toBe(200);
      t.clock.advance(t.service.config.SERVER_SCAN_DELAY * 1000);
      await t.service.processor.drain();
      expect(t.plex.refreshes).toHaveLength(1);
      const about = t.logs.map((l) => JSON.parse(l) as { level: string; msg: string }).filter((l) => l.msg.includes('Plex database'));
      expect(about.map((l) => l.level)).toEqual(['debug']);
    } finally {
      await t.close();
    }
  });
});
