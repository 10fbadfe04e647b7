// The "say it once" logger on its own: a start line, summaries with a count at most every 10 minutes, an end line.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { ConditionLog, duration } from '../../src/log/condition.js';
import { logCollector } from '../drive/harness.js';

type Line = { level: string; msg: string; times?: number; folder?: string };

function setup() {
  const clock = new ManualClock();
  const log = logCollector('info');
  const conditions = new ConditionLog({ logger: log.logger, clock });
  const lines = () => log.lines.map((l) => JSON.parse(l) as Line);
  return { clock, conditions, lines };
}

describe('ConditionLog', () => {
  it('a condition seen every 5 s for 25 minutes: one start line, two summaries with their counts, one end line', () => {
    const { clock, conditions, lines } = setup();
    for (let t = 0; t < 25 * 60; t += 5) {
      conditions.holds('db', 'Plex database unavailable (cannot open it).');
      clock.advance(5_000);
    }
    conditions.ends('db', 'Plex database is readable again');
    expect(lines()).toEqual([
      expect.objectContaining({ level: 'warn', msg: 'Plex database unavailable (cannot open it).' }),
      expect.objectContaining({ level: 'warn', times: 120, msg: 'Still, for 10 min (120 more time(s) in the last 10 min): Plex database unavailable (cannot open it).' }),
      expect.objectContaining({ level: 'warn', times: 120, msg: 'Still, for 20 min (120 more time(s) in the last 10 min): Plex database unavailable (cannot open it).' }),
      expect.objectContaining({ level: 'info', times: 300, msg: 'Plex database is readable again (after 25 min, seen 300 time(s))' }),
    ]);
  });

  it('each key starts and ends on its own; an end without a start says nothing; a new start after an end is said again', () => {
    const { clock, conditions, lines } = setup();
    conditions.ends('a', 'never started');
    conditions.holds('a', 'A is down', { folder: 'a' });
    conditions.holds('b', 'B is down', { folder: 'b' });
    conditions.holds('a', 'A is down', { folder: 'a' });
    clock.advance(30_000);
    conditions.endAllBut((k) => k === 'b', (k) => `${k.toUpperCase()} is back`);
    expect(conditions.isHeld('a')).toBe(false);
    expect(conditions.isHeld('b')).toBe(true);
    conditions.holds('a', 'A is down again');
    expect(lines().map((l) => l.msg)).toEqual(['A is down', 'B is down', 'A is back (after 30 s, seen 2 time(s))', 'A is down again']);
  });

  it('the latest description goes into the summary; ERROR when asked', () => {
    const clock = new ManualClock();
    const log = logCollector('info');
    const conditions = new ConditionLog({ logger: log.logger, clock, level: 'error' });
    conditions.holds('d', 'failed: 500');
    clock.advance(11 * 60_000);
    conditions.holds('d', 'failed: 503');
    expect(log.lines.map((l) => JSON.parse(l) as Line)).toEqual([
      expect.objectContaining({ level: 'error', msg: 'failed: 500' }),
      expect.objectContaining({ level: 'error', times: 1, msg: 'Still, for 11 min (1 more time(s) in the last 11 min): failed: 503' }),
    ]);
  });

  it('durations read as a person says them', () => {
    expect([0, 45_000, 12 * 60_000, 185 * 60_000, 3 * 3600_000, 52 * 3600_000, 48 * 3600_000].map(duration)).toEqual(['0 s', '45 s', '12 min', '3 h 5 min', '3 h', '2 d 4 h', '2 d']);
  });
});
