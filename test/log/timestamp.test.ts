// Each log line's time: pino's ISO form, formatted once per millisecond and never stale across milliseconds.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createLogger, isoTime } from '../../src/log/logger.js';

afterEach(() => vi.useRealTimers());

describe('log timestamps', () => {
  it('is the ISO time of the millisecond the line is written, as pino writes it', () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-11-23T08:00:00.123Z'));
    expect(isoTime()).toBe(',"time":"2026-11-23T08:00:00.123Z"');
    expect(isoTime()).toBe(',"time":"2026-11-23T08:00:00.123Z"');
    vi.setSystemTime(new Date('2026-11-23T08:00:00.124Z'));
    expect(isoTime()).toBe(',"time":"2026-11-23T08:00:00.124Z"');
  });

  it('lines a millisecond apart carry their own times', () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const lines: string[] = [];
    const logger = createLogger({ level: 'info', console: { write: (l: string) => lines.push(l) } as unknown as NodeJS.WritableStream });
    vi.setSystemTime(new Date('2026-11-23T08:00:00.500Z'));
    logger.info('first');
    logger.info('second');
    vi.setSystemTime(new Date('2026-11-23T08:00:01.000Z'));
    logger.info('third');
    expect(lines.map((l) => JSON.parse(l).time)).toEqual(['2026-11-23T08:00:00.500Z', '2026-11-23T08:00:00.500Z', '2026-11-23T08:00:01.000Z']);
  });
});
