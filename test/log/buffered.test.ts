// The server's buffered log: lines reach the console and the file within a fraction of a second when quiet,
// are scrubbed of secrets like any other line, and are all written when the process exits.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createLogger, flushLogs } from '../../src/log/logger.js';
import { until } from '../support/until.js';

const SECRET = 'f00dfeedcafe4b2a8c6e0f1d2b3a4c5d';
const read = (file: string) => {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
};

describe('buffered logging (the server)', () => {
  it('a quiet service still shows its line in the log file within half a second, scrubbed', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'scanrelay-log-')), 'logs', 'scanrelay.log');
    const logger = createLogger({ level: 'info', file, console: null, buffered: true, secrets: [SECRET] });
    logger.info({ url: `/api/${SECRET}/queue` }, `one line with ${SECRET}`);
    await until(() => read(file).includes('one line'), { ms: 500, every: 10, what: () => `the log file holds: ${read(file)}` });
    const text = read(file);
    expect(text).toContain('one line with ***');
    expect(text).not.toContain(SECRET);
  });

  it('flushLogs writes everything out at once (before the URL banner is printed)', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'scanrelay-log-')), 'scanrelay.log');
    const logger = createLogger({ level: 'info', file, console: null, buffered: true });
    for (let i = 0; i < 100; i++) logger.info(`line ${i}`);
    flushLogs(logger);
    expect(read(file).trim().split('\n')).toHaveLength(100);
  });

  it('every line logged before process.exit() reaches both the console and the file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'scanrelay-log-'));
    const file = join(dir, 'scanrelay.log');
    const script = `
      import { createLogger } from ${JSON.stringify(resolve('src/log/logger.ts'))};
      const logger = createLogger({ level: 'info', file: ${JSON.stringify(file)}, buffered: true });
      for (let i = 0; i < 2000; i++) logger.info('exit line ' + i);
      process.exit(0);
    `;
    const res = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(res.status).toBe(0);
    expect(res.stdout.match(/exit line \d+/g)).toHaveLength(2000);
    expect(read(file).match(/exit line \d+/g)).toHaveLength(2000);
  });
});
