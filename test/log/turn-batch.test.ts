// The server's log keeps up with any burst: the lines logged in one turn of the event loop are in the file when
// the turn is over, so a burst never leaves lines waiting in memory.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log/logger.js';

const lines = (file: string) => readFileSync(file, 'utf8').split('\n').filter(Boolean);

describe('batched server log under a burst', () => {
  it('after each turn every line logged in it is in the file, whatever the burst size', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'scanrelay-log-')), 'scanrelay.log');
    const logger = createLogger({ level: 'info', file, console: null, buffered: true });
    const path = `/data/media/tv/Severance (2022)/Season 02/${'x'.repeat(120)}.mkv`;
    let logged = 0;
    for (const burst of [1, 10, 3_000, 200, 5_000]) {
      for (let i = 0; i < burst; i++) logger.info({ client: '127.0.0.1', source: 'sonarr', path }, `Added '${path}' to the queue (${logged++}).`);
      await new Promise((r) => setImmediate(r));
      const written = lines(file);
      expect(written).toHaveLength(logged);
      expect(written.at(-1)).toContain(`(${logged - 1}).`);
    }
  });

  it('two loggers in one turn: each file holds all of its own lines, in order, when the turn is over', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'scanrelay-log-'));
    const a = createLogger({ level: 'info', file: join(dir, 'a.log'), console: null, buffered: true });
    const b = createLogger({ level: 'info', file: join(dir, 'b.log'), console: null, buffered: true });
    for (let i = 0; i < 500; i++) {
      a.info(`a ${i}`);
      b.info(`b ${i}`);
    }
    await new Promise((r) => setImmediate(r));
    expect(lines(join(dir, 'a.log')).map((l) => JSON.parse(l).msg)).toEqual(Array.from({ length: 500 }, (_, i) => `a ${i}`));
    expect(lines(join(dir, 'b.log')).map((l) => JSON.parse(l).msg)).toEqual(Array.from({ length: 500 }, (_, i) => `b ${i}`));
  });
});
