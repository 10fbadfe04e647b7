// The repository is self-contained: no test, bench, script or source file reads a folder beside the checkout,
// and every fixture under test/fixtures is listed in its README with the upstream definition it follows.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fixturesDir, repoRoot } from './fixtures.js';

/** Files under `dir`, relative to the repository, with '/' separators. */
function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(join(repoRoot, dir))) {
    const rel = `${dir}/${entry}`;
    if (statSync(join(repoRoot, rel)).isDirectory()) out.push(...filesUnder(rel));
    else out.push(rel);
  }
  return out;
}

// Spelled in pieces, so this file does not match itself.
const outside = [
  ['..', 'shared'].join('/'),
  ['..', 'shared'].join('\\\\'),
  ['shared', 'fixtures'].join('/'),
  ['SCANRELAY', 'SHARED', 'FIXTURES'].join('_'),
];

describe('the repository is self-contained', () => {
  it.each(['src', 'test', 'bench', 'scripts'])('no file under %s/ refers to a folder beside the checkout', (dir) => {
    const found: string[] = [];
    for (const file of filesUnder(dir)) {
      const text = readFileSync(join(repoRoot, file), 'utf8');
      for (const needle of outside) if (text.includes(needle)) found.push(`${file}: ${needle}`);
    }
    expect(found).toEqual([]);
  });

  const readme = readFileSync(join(fixturesDir, 'README.md'), 'utf8');
  /** README table rows: fixture path -> upstream definition cell. */
  const rows = new Map(
    [...readme.matchAll(/^\| `([^`]+)` \| ([^|]*) \|/gm)].map((m) => [m[1]!, m[2]!.trim()] as const),
  );
  const fixtures = filesUnder('test/fixtures')
    .map((f) => relative(fixturesDir, join(repoRoot, f)).split(sep).join('/'))
    .filter((f) => f !== 'README.md');

  it('every fixture is in test/fixtures/README.md with the upstream definition it follows', () => {
    expect(fixtures.filter((f) => !rows.has(f))).toEqual([]);
    expect(fixtures.filter((f) => rows.has(f) && rows.get(f)!.length < 10)).toEqual([]);
  });

  it('every fixture the README lists exists', () => {
    expect([...rows.keys()].filter((f) => !fixtures.includes(f))).toEqual([]);
  });
});
