// A week of a busy seedbox in a couple of minutes: 5,000 imports a day through intake, the processor and a
// media server, on an injected clock. The queue file, its WAL and the log stay under a stated bound, and stay
// flat once the first retention period (HISTORY_DAYS, 2 here) has passed.
import { existsSync, mkdtempSync, readdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { defaultConfig } from '../../src/config/load.js';
import type { Config } from '../../src/config/schema.js';
import { createLogger, flushLogs } from '../../src/log/logger.js';
import { createService } from '../../src/service.js';
import type { Target } from '../../src/scan.js';

const MIN = 60_000;
const DAY = 24 * 60 * MIN;
const IMPORTS_PER_DAY = 5_000;
const STEP = 5 * MIN;
const LOG_MAX = 512 * 1024;
const LOG_KEEP = 3;
/** The bounds this test holds the service to, with two days of history at 5,000 imports a day. */
const BOUND = { queue: 2 * 1024 * 1024, wal: 4 * 1024 * 1024, log: LOG_MAX * (LOG_KEEP + 1) };

const size = (file: string) => (existsSync(file) ? statSync(file).size : 0);

describe('a simulated week', () => {
  it('keeps the queue file, the WAL and the log under their bounds and flat after the retention period', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'scanrelay-week-'));
    const queuefile = join(dir, 'queue.db');
    const logfile = join(dir, 'scanrelay.log');
    const clock = new ManualClock(Date.UTC(2026, 2, 1));
    const config = {
      ...defaultConfig(() => 'f0e1d2c3b4a5968778695a4b3c2d1e0f'),
      SERVER_PATH_MAPPINGS: { '/data/media/': ['/mnt/unionfs/Media/'] },
      SERVER_MAX_FILE_CHECKS: 0,
      SERVER_SCAN_PRIORITIES: {},
      HISTORY_DAYS: 2,
    } as Config;
    const logger = createLogger({ level: 'info', file: logfile, console: null, buffered: true, rotate: { maxBytes: LOG_MAX, keep: LOG_KEEP } });
    let scans = 0;
    const plex: Target = { name: 'plex', kind: 'test', pauseMs: 0, scan: async () => (scans++, { status: 'scanned', detail: 'TV Shows (section 2)' }), available: async () => ({ ok: true }) };
    const service = await createService({ config, queuefile, logger, clock, targets: [plex], pathState: async () => 'file' });

    const steps = DAY / STEP;
    // Exactly 5,000 a day, spread evenly over the day's steps.
    const importsAt = (k: number) => Math.floor(((k + 1) * IMPORTS_PER_DAY) / steps) - Math.floor((k * IMPORTS_PER_DAY) / steps);
    const days: { day: number; queue: number; wal: number; log: number; history: number }[] = [];
    let n = 0;
    let walMost = 0;
    try {
      for (let day = 1; day <= 7; day++) {
        for (let k = 0, t = 0; k < steps; k++, t += STEP) {
          // A burst of imports: a few episodes of many shows, as Sonarr sends them.
          await Promise.all(
            Array.from({ length: importsAt(k) }, () => {
              const i = n++;
              return service.intake.submit([{ path: `/mnt/unionfs/Media/tv/Show ${i % 1500}/Season ${1 + (Math.floor(i / 1500) % 30)}/Episode ${i}.mkv`, source: 'sonarr', event: 'Download', kind: 'file' }], '127.0.0.1');
            }),
          );
          clock.advance(STEP);
          await service.processor.drain();
          // The server checkpoints the WAL every second of real time (300 times per 5 simulated minutes); once
          // per step is the slower schedule, so the WAL measured here is if anything larger than on a real box.
          service.queue.checkpoint();
          // The server prunes every minute of real time; here the clock runs faster, so once per simulated hour.
          if (t % (60 * MIN) === 0) await service.retention.prune();
          walMost = Math.max(walMost, size(`${queuefile}-wal`));
        }
        await service.retention.prune();
        flushLogs(logger);
        const logBytes = readdirSync(dir).filter((f) => f.startsWith('scanrelay.log')).reduce((sum, f) => sum + size(join(dir, f)), 0);
        const history = (service.queue.db.prepare('SELECT COUNT(*) AS n FROM history').get() as { n: number }).n;
        days.push({ day, queue: size(queuefile), wal: walMost, log: logBytes, history });
      }
    } finally {
      await service.close();
    }
    console.log(`simulated week, ${n} imports:\n${days.map((d) => `  day ${d.day}: queue ${(d.queue / 1024).toFixed(0)} KiB, WAL at most ${(d.wal / 1024).toFixed(0)} KiB, log ${(d.log / 1024).toFixed(0)} KiB, history ${d.history} lines`).join('\n')}`);

    expect(n).toBe(7 * IMPORTS_PER_DAY);
    expect(scans).toBeGreaterThan(6.9 * IMPORTS_PER_DAY);
    for (const d of days) {
      expect(d.queue, `queue file on day ${d.day}`).toBeLessThanOrEqual(BOUND.queue);
      expect(d.wal, `WAL on day ${d.day}`).toBeLessThanOrEqual(BOUND.wal);
      expect(d.log, `log on day ${d.day}`).toBeLessThanOrEqual(BOUND.log);
    }
    // History holds two days, give or take the hour between prunes.
    for (const d of days.slice(2)) expect(d.history).toBeLessThanOrEqual(2 * IMPORTS_PER_DAY + 300);
    // Flat: from day 3 on, the queue file grows by no more than 10% (freed pages are reused, not added).
    const settled = days[2];
    for (const d of days.slice(3)) expect(d.queue, `queue file on day ${d.day}`).toBeLessThanOrEqual(settled.queue * 1.1);
    // The log reached its rotation budget and stays within it.
    expect(days.at(-1)!.log).toBeGreaterThan(LOG_MAX * LOG_KEEP);
    expect(readdirSync(dir).filter((f) => f.startsWith('scanrelay.log')).sort()).toEqual(['scanrelay.log', 'scanrelay.log.1', 'scanrelay.log.2', 'scanrelay.log.3']);
  }, 600_000);
});
