// Issue 52, finding 2: an answer under its byte cap, shaped for the parser ([{},{},…], [0,0,…], [[[…]]]), ran the
// 512 MB heap out and killed the relay at every restart. Here every cap of src/answer-caps.ts gets an answer of
// exactly its size in each such shape, read as the relay reads it, in a process started with the production heap
// flags (test/support/answer-heap-child.ts), each read as the relay reads it: whole, or in pieces for the caps that
// say so (an arr app's library list, keeping each entry's folder or every entry; a page of its history). It lives
// through all of them, each answer parsed or refused with why, and a common answer at every cap is parsed as the
// relay reads it, so no cap promises more than the reading lets through.
import { spawnSync } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import * as caps from '../../src/http/answer-caps.js';
import type { Reader } from '../support/answer-heap-child.js';
import { NODE_FLAGS } from '../support/launch.js';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

interface Line {
  bytes: number;
  cap: string;
  reader: Reader;
  shape: string;
  outcome: string;
}

describe('an answer at every cap, shaped for the worst parse, under the production heap flags', () => {
  it('is parsed or refused, never the end of the process; a common answer at the cap is parsed', () => {
    const run = spawnSync(process.execPath, [...NODE_FLAGS, '--import', 'tsx', join(repoRoot, 'test/support/answer-heap-child.ts')], { encoding: 'utf8', cwd: repoRoot, maxBuffer: 16 * 1024 * 1024 });
    expect(run.stderr).not.toMatch(/heap out of memory|Maximum call stack/);
    expect(run.status).toBe(0);
    const lines: Line[] = run.stdout.trim().split('\n').map((l) => JSON.parse(l));
    const all = Object.values(caps).filter((c): c is caps.AnswerCap => typeof c === 'object' && c !== null && 'bytes' in c);
    expect(new Set(lines.map((l) => l.bytes))).toEqual(new Set(all.map((c) => c.bytes)));
    // Each cap read in pieces at its own size, as each of its readers reads it.
    for (const c of all.filter((c) => c.pieces)) expect(lines.filter((l) => l.cap === c.what && l.reader !== 'whole').length, c.what).toBeGreaterThan(0);
    // A common answer at every cap is parsed as the relay reads it (a library list keeps each entry's folder).
    for (const l of lines.filter((l) => l.shape === 'common' && l.reader !== 'pieces, all kept' || l.cap === caps.ARR_HISTORY_PAGE.what && l.shape === 'common')) {
      expect(l.outcome, `${l.cap}, ${l.reader}`).toBe('parsed');
    }
    for (const l of lines.filter((l) => l.shape === 'nested')) expect(l.outcome).toMatch(/not parsed: it nests deeper than 64 levels/);
    const largestWhole = Math.max(...all.filter((c) => !c.pieces).map((c) => c.bytes));
    expect(lines.find((l) => l.bytes === largestWhole && l.shape === 'objects')?.outcome).toMatch(/not parsed: parsed, it would take more than 160 MiB of memory/);
    expect(lines.find((l) => l.cap === caps.ARR_LIBRARY.what && l.reader === 'pieces, all kept' && l.shape === 'objects and numbers')?.outcome).toMatch(/not parsed: parsed, it would take more than 160 MiB of memory/);
    expect(lines.find((l) => l.cap === caps.ARR_HISTORY_PAGE.what && l.shape === 'page of objects')?.outcome).toMatch(/not parsed: parsed, it would take more than 16 MiB of memory/);
  }, 600_000);
});
