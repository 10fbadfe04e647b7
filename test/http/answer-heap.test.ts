// Issue 52, finding 2: an answer under its byte cap, shaped for the parser ([{},{},…], [0,0,…], [[[…]]]), ran the
// 512 MB heap out and killed the relay at every restart. Here every cap of src/answer-caps.ts gets an answer of
// exactly its size in each such shape, read as the relay reads it, in a process started with the production heap
// flags (test/support/answer-heap-child.ts), the arr apps' lists also as they are read, entry by entry: it lives through all of them, each answer parsed or refused with why,
// and a common answer at every cap is parsed, so no cap promises more than the weighing lets through.
import { spawnSync } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import * as caps from '../../src/http/answer-caps.js';
import { NODE_FLAGS } from '../support/launch.js';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

interface Line {
  bytes: number;
  reader: 'json' | 'list';
  shape: string;
  outcome: string;
}

describe('an answer at every cap, shaped for the worst parse, under the production heap flags', () => {
  it('is parsed or refused, never the end of the process; a common answer at the cap is parsed', () => {
    const run = spawnSync(process.execPath, [...NODE_FLAGS, '--import', 'tsx', join(repoRoot, 'test/support/answer-heap-child.ts')], { encoding: 'utf8', cwd: repoRoot, maxBuffer: 16 * 1024 * 1024 });
    expect(run.stderr).not.toMatch(/heap out of memory|Maximum call stack/);
    expect(run.status).toBe(0);
    const lines: Line[] = run.stdout.trim().split('\n').map((l) => JSON.parse(l));
    const sizes = new Set(Object.values(caps).flatMap((c) => (typeof c === 'object' && c !== null && 'bytes' in c ? [c.bytes] : [])));
    expect(new Set(lines.map((l) => l.bytes))).toEqual(sizes);
    for (const l of lines.filter((l) => l.shape === 'common')) expect(l.outcome, `${l.bytes} bytes`).toBe('parsed');
    for (const l of lines.filter((l) => l.shape === 'nested')) expect(l.outcome).toMatch(/not parsed: it nests deeper than 64 levels/);
    const largest = Math.max(...sizes);
    for (const reader of ['json', 'list']) {
      expect(lines.find((l) => l.bytes === largest && l.reader === reader && l.shape === 'objects')?.outcome).toMatch(/not parsed: parsed, it would take more than 160 MiB of memory/);
    }
  }, 600_000);
});
