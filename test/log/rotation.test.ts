// The log file rotated by size (LOG_MAX_SIZE, LOG_KEEP): bounded, nothing out of order among the kept files,
// and `--logfile -` writes no file at all.
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sizeInBytes } from '../../src/log/file.js';
import { createLogger, flushLogs } from '../../src/log/logger.js';
import { runCli } from '../support/child.js';

const tmp = () => mkdtempSync(join(tmpdir(), 'scanrelay-rotate-'));
const numbers = (text: string) => text.trim().split('\n').filter(Boolean).map((l) => Number(JSON.parse(l).msg.split(' ')[1]));

describe('LOG_MAX_SIZE', () => {
  it('reads sizes the way people write them', () => {
    expect(sizeInBytes('10MB')).toBe(10 * 1024 * 1024);
    expect(sizeInBytes('512K')).toBe(512 * 1024);
    expect(sizeInBytes('1.5 gb')).toBe(1.5 * 1024 ** 3);
    expect(sizeInBytes('2048')).toBe(2048);
    expect(sizeInBytes(4096)).toBe(4096);
    expect(() => sizeInBytes('ten')).toThrow(/"10MB"/);
  });

  for (const buffered of [false, true]) {
    it(`${buffered ? 'the server (buffered)' : 'a command'}: past LOG_MAX_SIZE the file moves to .1, at most LOG_KEEP old files stay, none too big`, () => {
      const dir = tmp();
      const file = join(dir, 'scanrelay.log');
      const logger = createLogger({ level: 'info', file, console: null, buffered, rotate: { maxBytes: 20_000, keep: 3 } });
      const line = 'x'.repeat(150);
      for (let i = 0; i < 2_000; i++) {
        logger.info(`line ${i} ${line}`);
        // The buffered stream writes in the background; give it turns like a running server would have.
        if (buffered && i % 50 === 0) flushLogs(logger);
      }
      flushLogs(logger);
      const files = readdirSync(dir).sort();
      expect(files).toEqual(['scanrelay.log', 'scanrelay.log.1', 'scanrelay.log.2', 'scanrelay.log.3']);
      for (const f of files) expect(statSync(join(dir, f)).size, f).toBeLessThanOrEqual(20_000);
      // Oldest to newest, the kept files hold one unbroken run of lines ending with the last one.
      const kept = ['scanrelay.log.3', 'scanrelay.log.2', 'scanrelay.log.1', 'scanrelay.log'].flatMap((f) => numbers(readFileSync(join(dir, f), 'utf8')));
      expect(kept.at(-1)).toBe(1_999);
      expect(kept).toEqual(kept.map((_, i) => kept[0] + i));
      expect(kept.length).toBeGreaterThan(250);
    });
  }

  it('keeps growing where a file already is, and counts what is there (a restart does not reset the budget)', () => {
    const dir = tmp();
    const file = join(dir, 'scanrelay.log');
    writeFileSync(file, `${JSON.stringify({ msg: 'line -1' })}\n`.padStart(19_990, ' '));
    const logger = createLogger({ level: 'info', file, console: null, rotate: { maxBytes: 20_000, keep: 2 } });
    logger.info('line 0');
    flushLogs(logger);
    expect(existsSync(`${file}.1`)).toBe(true);
    expect(numbers(readFileSync(file, 'utf8'))).toEqual([0]);
  });

  it('0 never rotates (logrotate with copytruncate owns the file)', () => {
    const dir = tmp();
    const file = join(dir, 'scanrelay.log');
    const logger = createLogger({ level: 'info', file, console: null, rotate: { maxBytes: 0, keep: 5 } });
    for (let i = 0; i < 500; i++) logger.info(`line ${i} ${'y'.repeat(100)}`);
    flushLogs(logger);
    expect(readdirSync(dir)).toEqual(['scanrelay.log']);
    expect(numbers(readFileSync(file, 'utf8'))).toHaveLength(500);
  });

  it('LOG_KEEP 0 starts the file over and keeps no old one', () => {
    const dir = tmp();
    const file = join(dir, 'scanrelay.log');
    const logger = createLogger({ level: 'info', file, console: null, rotate: { maxBytes: 5_000, keep: 0 } });
    for (let i = 0; i < 300; i++) logger.info(`line ${i} ${'z'.repeat(100)}`);
    flushLogs(logger);
    expect(readdirSync(dir)).toEqual(['scanrelay.log']);
    expect(statSync(file).size).toBeLessThanOrEqual(5_000);
    expect(numbers(readFileSync(file, 'utf8')).at(-1)).toBe(299);
  });

  it('the config keys reach the log of a real command; `--logfile -` writes no file', async () => {
    const dir = tmp();
    const config = join(dir, 'config.json');
    writeFileSync(config, JSON.stringify({ LOG_MAX_SIZE: '1K', LOG_KEEP: 1 }));
    // update_config logs the added keys (one long line) and more: well over 1 KiB on a nearly empty config.
    const child = runCli(['--config', config, '--logfile', join(dir, 'logs', 'scanrelay.log'), '--loglevel', 'DEBUG', 'update_config'], { cwd: dir });
    expect(await child.exited).toBe(0);
    expect(readdirSync(join(dir, 'logs')).sort()).toEqual(['scanrelay.log', 'scanrelay.log.1']);
    // A file holds at most LOG_MAX_SIZE, unless one line alone is longer (the list of added keys): lines are never split.
    const old = join(dir, 'logs', 'scanrelay.log.1');
    expect(statSync(old).size <= 1024 || readFileSync(old, 'utf8').trim().split('\n').length === 1).toBe(true);

    const none = tmp();
    const quiet = runCli(['--config', config, '--logfile', '-', 'update_config'], { cwd: none });
    expect(await quiet.exited).toBe(0);
    expect(quiet.output()).toContain('up to date');
    expect(readdirSync(none)).toEqual([]);
  }, 30_000);
});
