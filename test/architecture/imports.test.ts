// No two files of src/ import each other, however long the way round (type imports count: they tie the files as
// much for a reader), and the shared nouns (src/scan.ts) import nothing, so every part may use them. And src/
// loads no devDependency: the image prunes them (Dockerfile), so what the program loads must be a dependency.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../support/fixtures.js';

const src = join(repoRoot, 'src');

function sources(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(folder, e.name)) : e.name.endsWith('.ts') ? [join(folder, e.name)] : [],
  );
}

/** The files of src/ a file imports: `import … from`, `import type`, `export … from` and `import('…')`, relative only. */
export function importsOf(file: string, text = readFileSync(file, 'utf8')): string[] {
  const found = new Set<string>();
  const specifier = /(?:^|[^\w.])(?:import|export)\s+(?:type\s+)?(?:[\w*{}\s,$]+?\s+from\s+)?['"](\.{1,2}\/[^'"]+)['"]|import\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/gm;
  for (const m of text.matchAll(specifier)) {
    const spec = m[1] ?? m[2];
    found.add(resolve(dirname(file), spec.replace(/\.js$/, '.ts')));
  }
  return [...found];
}

/** The first import circle found, as the files around it, or undefined. */
export function findCircle(graph: Map<string, string[]>): string[] | undefined {
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const visit = (file: string): string[] | undefined => {
    if (state.get(file) === 'done') return undefined;
    if (state.get(file) === 'open') return [...path.slice(path.indexOf(file)), file];
    state.set(file, 'open');
    path.push(file);
    for (const next of graph.get(file) ?? []) {
      const circle = visit(next);
      if (circle) return circle;
    }
    path.pop();
    state.set(file, 'done');
    return undefined;
  };
  for (const file of graph.keys()) {
    const circle = visit(file);
    if (circle) return circle;
  }
  return undefined;
}

describe('the import graph of src/', () => {
  const files = sources(src);
  const graph = new Map(files.map((f) => [f, importsOf(f).filter((g) => files.includes(g))]));
  const named = (list: string[]) => list.map((f) => relative(repoRoot, f)).join(' -> ');

  it('has no circle', () => {
    const circle = findCircle(graph);
    expect(circle && named(circle), 'an import circle').toBeUndefined();
  });

  it('src/scan.ts, the shared nouns, imports nothing of src/', () => {
    expect(named(graph.get(join(src, 'scan.ts'))!)).toBe('');
  });

  it("the import commands' parsers: yaml and smol-toml in their readers only, which only foreign-config.ts uses, loaded by import()", () => {
    const text = (f: string) => readFileSync(f, 'utf8');
    const importing = (pkg: string) => named(files.filter((f) => new RegExp(`from ['"]${pkg}['"]`).test(text(f))));
    expect(importing('yaml')).toBe('src/config/yaml.ts');
    expect(importing('smol-toml')).toBe('src/config/toml.ts');
    const reader = join(src, 'config', 'foreign-config.ts');
    for (const format of ['yaml.ts', 'toml.ts']) expect(named(files.filter((f) => graph.get(f)!.includes(join(src, 'config', format))))).toBe(named([reader]));
    // The reader's chunk of the bundle holds the parsers (scripts/bundle.mjs): a static import would put them in the
    // chunk of whatever imports it (test/deploy/bundle.test.ts checks the chunks themselves).
    const staticImport = /^\s*(?:import|export)\s+(?!type\b)[^;]*?from\s+['"][^'"]*\/foreign-config\.js['"]/m;
    expect(named(files.filter((f) => staticImport.test(text(f))))).toBe('');
    expect(named(files.filter((f) => graph.get(f)!.includes(reader)))).toBe('src/cli/import-output.ts');
  });

  it('the walk sees type imports, re-exports and a circle through them', () => {
    const a = join(src, 'a.ts');
    const b = join(src, 'b.ts');
    expect(importsOf(a, "import type { X } from './b.js';")).toEqual([b]);
    expect(importsOf(a, "export { y } from './b.js';")).toEqual([b]);
    expect(importsOf(a, "import {\n  x,\n  type Y,\n} from './b.js';")).toEqual([b]);
    expect(importsOf(a, "const m = await import('./b.js');")).toEqual([b]);
    expect(named(findCircle(new Map([[a, [b]], [b, [a]]]))!)).toBe('src/a.ts -> src/b.ts -> src/a.ts');
  });
});

describe('the packages src/ loads', () => {
  it('are dependencies, not devDependencies (type-only imports aside: they are gone once compiled)', () => {
    const { devDependencies } = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> };
    const loads = /(?:^|[^\w.])(?:import|export)\s+(?!type\s)(?:[\w*{}\s,$]+?\s+from\s+)?['"]([^'".][^'"]*)['"]|import\(\s*['"]([^'".][^'"]*)['"]\s*\)/gm;
    const packageOf = (spec: string) => spec.split('/').slice(0, spec.startsWith('@') ? 2 : 1).join('/');
    const found = sources(src).flatMap((file) =>
      [...readFileSync(file, 'utf8').matchAll(loads)].map((m) => packageOf(m[1] ?? m[2])).filter((p) => p in devDependencies).map((p) => `${relative(repoRoot, file)}: ${p}`),
    );
    expect(found).toEqual([]);
  });
});
