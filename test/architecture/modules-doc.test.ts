// docs/architecture.md, "Modules", gives every folder of src/ and every file at its root one line of purpose, and
// names nothing src/ does not have.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../support/fixtures.js';

const doc = readFileSync(join(repoRoot, 'docs', 'architecture.md'), 'utf8');
const section = doc.slice(doc.indexOf('## Modules'), doc.indexOf('\n## ', doc.indexOf('## Modules') + 1));
const rows = [...section.matchAll(/^\| `src\/([^`]+)` \| (.+) \|$/gm)].map((m) => ({ module: m[1], purpose: m[2] }));
const modules = readdirSync(join(repoRoot, 'src'), { withFileTypes: true })
  .filter((e) => e.isDirectory() || e.name.endsWith('.ts'))
  .map((e) => (e.isDirectory() ? `${e.name}/` : e.name));

describe('docs/architecture.md, "Modules"', () => {
  it('has one row for each folder of src/ and each file at its root, one line each', () => {
    expect(modules.filter((m) => !rows.some((r) => r.module === m))).toEqual([]);
    for (const r of rows) expect(r.purpose.length, r.module).toBeLessThanOrEqual(120);
  });

  it('names nothing src/ does not have', () => {
    const names = (m: string) => m.replace(/\/$/, '');
    const exists = (m: string) => { try { readdirSync(join(repoRoot, 'src', names(m))); return true; } catch { return modules.includes(m); } };
    expect(rows.map((r) => r.module).filter((m) => !exists(m))).toEqual([]);
  });

  it('src/ holds at most 12 files at its root: what every layer shares', () => {
    expect(modules.filter((m) => m.endsWith('.ts')).length).toBeLessThanOrEqual(12);
  });
});
