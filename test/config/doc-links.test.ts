// Every relative link in README.md and docs/ leads somewhere: the file exists and, with a #fragment, the heading
// does (GitHub's anchors: lower case, punctuation dropped, spaces to hyphens).
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../support/fixtures.js';

function markdownFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? markdownFiles(path) : name.endsWith('.md') ? [path] : [];
  });
}

function anchors(text: string): Set<string> {
  const out = new Set<string>();
  const seen = new Map<string, number>();
  for (const m of text.matchAll(/^#{1,6} (.+)$/gm)) {
    const base = m[1].trim().toLowerCase().replace(/[^\p{L}\p{N} _-]/gu, '').replace(/ /g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

const files = [join(repoRoot, 'README.md'), ...markdownFiles(join(repoRoot, 'docs'))];

describe('links in the docs', () => {
  it.each(files.map((f) => [relative(repoRoot, f), f]))('%s', (_name, file) => {
    const text = readFileSync(file, 'utf8').replace(/```[\s\S]*?```/g, '');
    const broken: string[] = [];
    for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      const link = m[1];
      if (/^[a-z]+:/i.test(link)) continue;
      const [path, fragment] = link.split('#');
      const target = path === '' ? file : join(dirname(file), decodeURIComponent(path));
      if (!existsSync(target)) {
        broken.push(`${link}: no such file`);
        continue;
      }
      if (fragment && target.endsWith('.md') && !anchors(readFileSync(target, 'utf8')).has(fragment)) broken.push(`${link}: no such heading`);
    }
    expect(broken).toEqual([]);
  });
});
