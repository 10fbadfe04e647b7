// The server's modules import one way: app.ts builds the app from the route plugins, and no plugin imports
// app.ts back (they take AppDeps from deps.ts and Metrics from metrics.ts).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../support/fixtures.js';

const dir = join(repoRoot, 'src', 'server');
const files = readdirSync(dir).filter((f) => f.endsWith('.ts'));
/** Each file's imports of its siblings (type-only ones too: a circle of types is still a circle to read). */
const imports = new Map(
  files.map((f) => [f, [...readFileSync(join(dir, f), 'utf8').matchAll(/from '\.\/([\w-]+)\.js'/g)].map((m) => `${m[1]}.ts`)]),
);

function circleFrom(start: string): string[] | undefined {
  const walk = (file: string, path: string[]): string[] | undefined => {
    for (const next of imports.get(file) ?? []) {
      if (next === start) return [...path, next];
      if (!path.includes(next)) {
        const found = walk(next, [...path, next]);
        if (found) return found;
      }
    }
    return undefined;
  };
  return walk(start, [start]);
}

describe('src/server imports', () => {
  it('no route plugin imports app.ts', () => {
    expect(files.filter((f) => imports.get(f)?.includes('app.ts'))).toEqual([]);
  });

  it('no file is part of an import circle', () => {
    expect(files.map(circleFrom).filter(Boolean)).toEqual([]);
  });
});
