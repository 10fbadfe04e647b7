// `npm run bench -- --only <name> --write-docs` rewrites that benchmark's table in docs/performance.md and keeps
// everything else: the other benchmarks' tables and the sections written by hand between and after them.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { performanceDoc } from '../../bench/performance-doc.js';

const previous = [
  '# Performance\n\nold intro\n',
  '## 1. Intake\n\nRun 2026-11-01.\n\n| 1 | old |\n',
  '## 2. Coalescing\n\n| 2 | old |\n\n',
  '## The suite\n\nwritten by hand\n',
  '## Notes\n\nmore by hand\n',
].join('\n');

describe('docs/performance.md after --write-docs', () => {
  it('replaces the tables that ran, keeps the others and every section written by hand, in their order', () => {
    const doc = performanceDoc(previous, '# Performance\n\nnew intro\n', new Map([['2', '## 2. Coalescing\n\n| 2 | new |\n']]), ['1', '2', '3']);
    expect(doc).toBe(
      [
        '# Performance\n\nnew intro\n',
        '## 1. Intake\n\nRun 2026-11-01.\n\n| 1 | old |\n',
        '## 2. Coalescing\n\n| 2 | new |\n',
        '## The suite\n\nwritten by hand\n',
        '## Notes\n\nmore by hand\n',
      ].join('\n'),
    );
  });

  it('adds a benchmark that had no table in its place among the others; a first run writes the tables alone', () => {
    const doc = performanceDoc(previous, '# P\n', new Map([['3', '## 3. Durability\n\n| 3 |\n']]), ['1', '3', '2']);
    expect(doc.match(/^## .*/gm)).toEqual(['## 1. Intake', '## 3. Durability', '## 2. Coalescing', '## The suite', '## Notes']);
    expect(performanceDoc('', '# P\n', new Map([['1', '## 1. Intake\n']]), ['1'])).toBe('# P\n\n## 1. Intake\n');
  });

  it('rewritten with nothing fresh, the document in the repository stays as it is but for its opening', () => {
    const doc = readFileSync(join(import.meta.dirname, '../../docs/performance.md'), 'utf8');
    const opening = doc.slice(0, doc.indexOf('\n## '));
    const order = [...doc.matchAll(/^## (\d+)\. /gm)].map((m) => m[1]!);
    expect(performanceDoc(doc, opening, new Map(), order)).toBe(doc);
  });
});
