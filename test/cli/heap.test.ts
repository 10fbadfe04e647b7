// The Node heap flags the launchers pass (src/cli/heap.ts): they bring the heap limit down to where V8 grows the
// heap slowly, and a server started with a large limit says so once at start, naming the flags.
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { HEAP_FLAGS, heapAdvice } from '../../src/cli/heap.js';
import { killChildren, startServer } from '../support/child.js';
import { writeConfigFile } from '../support/config-file.js';

const MB = 1024 * 1024;
afterAll(() => killChildren());

const limitWith = (flags: readonly string[]) =>
  Number(execFileSync(process.execPath, [...flags, '-p', "require('node:v8').getHeapStatistics().heap_size_limit"], { encoding: 'utf8' }));

describe('HEAP_FLAGS', () => {
  it('are accepted by this Node and set a heap limit of about 512 MB, which needs no advice', () => {
    const limit = limitWith(HEAP_FLAGS);
    expect(limit / MB).toBeGreaterThanOrEqual(512);
    expect(limit / MB).toBeLessThan(600);
    expect(heapAdvice(limit)).toBeUndefined();
  });

  it("a limit like Node's default on a machine with a few GB gets one line naming the flags", () => {
    const advice = heapAdvice(4144 * MB)!;
    expect(advice).toContain('heap limit of 4144 MB');
    expect(advice).toContain(`node ${HEAP_FLAGS.join(' ')} dist/scanrelay.mjs server`);
    expect(advice).toContain(`NODE_OPTIONS="${HEAP_FLAGS.join(' ')}"`);
  });

  it('a server started with a large heap limit logs the advice once, after it listens', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'scanrelay-heap-'));
    const config = writeConfigFile(dir, { SERVER_PASS: 'a11ce0a11ce0a11ce0a11ce0a11ce0a1', SERVER_IP: '127.0.0.1' });
    const { child } = await startServer({ config, queuefile: join(dir, 'queue.db'), dir, nodeArgs: ['--max-old-space-size=2048'] });
    await child.waitFor(/heap limit of \d+ MB/);
    const out = child.output();
    expect(out.indexOf('Listening on')).toBeLessThan(out.indexOf('heap limit of'));
    expect(out.match(/heap limit of/g)).toHaveLength(1);
  }, 60_000);
});
