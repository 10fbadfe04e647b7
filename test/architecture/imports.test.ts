// The import graph of src/ in layers: each folder of src/, and each file at its root, is a module with a layer, and
// no module imports one of a higher layer. No two files import each other, however long the way round (type
// imports count: they tie the files as much for a reader), and the shared nouns (src/scan.ts) import nothing, so
// every part may use them. And src/ loads no devDependency: the image prunes them (Dockerfile), so what the
// program loads must be a dependency.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
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

/**
 * The layers, from the top down: a module may import its own layer's modules and any lower layer's, never a higher
 * one's (docs/architecture.md, "Layers"). A new folder or root file of src/ takes its place here.
 */
export const LAYERS: { layer: string; modules: string[] }[] = [
  { layer: 'the commands', modules: ['cli/'] },
  { layer: 'the wiring of a running service', modules: ['service.ts'] },
  { layer: 'the HTTP edge', modules: ['server/'] },
  { layer: 'the stages around the queue, and the path doctor', modules: ['hash-hold.ts', 'hash-scope.ts', 'watch/', 'doctor/', 'processor/', 'arr/'] },
  { layer: "the config, whose TARGETS keys are the kinds' own", modules: ['config/'] },
  { layer: 'the target kinds', modules: ['targets/'] },
  { layer: 'Plex', modules: ['plex/'] },
  { layer: 'the follow-up stage, the intake and the Drive monitor', modules: ['follow/', 'intake.ts', 'intake-gate.ts', 'drive/'] },
  { layer: 'the queue, notifications, rclone, the scan commands', modules: ['queue/', 'notify/', 'rclone/', 'scan-commands.ts'] },
  {
    layer: 'calls, paths, triggers, logs and value rules',
    modules: ['api-call.ts', 'http-fetch.ts', 'media-socket.ts', 'google/', 'triggers/', 'paths/', 'value-rules.ts', 'log.ts', 'log-file.ts', 'log-condition.ts', 'log-fatal.ts', 'hash-read.ts'],
  },
  {
    layer: 'the ground: shared nouns and small means',
    modules: [
      'scan.ts',
      'request.ts',
      'clock.ts',
      'activity.ts',
      'retry-after.ts',
      'http-answer.ts',
      'answer-caps.ts',
      'json-cost.ts',
      'url-credentials.ts',
      'log-per-client.ts',
      'file-system.ts',
      'private-files.ts',
      'log-format.ts',
      'sqlite.ts',
      'migrations.ts',
      'edit-distance.ts',
      'text-cut.ts',
      'idle-memory.ts',
      'version.ts',
    ],
  },
];

/** The module a file of src/ belongs to: its top folder (`queue/`) or, at the root, the file itself. */
export function moduleOf(file: string): string {
  const path = relative(src, file).split(sep).join('/');
  const slash = path.indexOf('/');
  return slash === -1 ? path : path.slice(0, slash + 1);
}

/** Each import that runs from a module to one of a higher layer, as "from -> to". */
export function upwardImports(graph: Map<string, string[]>, layerOf: (module: string) => number | undefined): string[] {
  const found: string[] = [];
  for (const [file, imports] of graph) {
    for (const target of imports) {
      const from = layerOf(moduleOf(file));
      const to = layerOf(moduleOf(target));
      if (from !== undefined && to !== undefined && to < from) found.push(`${relative(repoRoot, file)} -> ${relative(repoRoot, target)}`);
    }
  }
  return found;
}

describe('the import graph of src/', () => {
  const files = sources(src);
  const graph = new Map(files.map((f) => [f, importsOf(f).filter((g) => files.includes(g))]));
  const named = (list: string[]) => list.map((f) => relative(repoRoot, f)).join(' -> ');

  it('has no circle', () => {
    const circle = findCircle(graph);
    expect(circle && named(circle), 'an import circle').toBeUndefined();
  });

  const layerOf = (module: string): number | undefined => {
    const at = LAYERS.findIndex((l) => l.modules.includes(module));
    return at === -1 ? undefined : at;
  };

  it('every module of src/ has one layer, and every module a layer names is in src/', () => {
    const modules = [...new Set(files.map(moduleOf))];
    const listed = LAYERS.flatMap((l) => l.modules);
    expect(modules.filter((m) => layerOf(m) === undefined), 'modules without a layer: add each to LAYERS').toEqual([]);
    expect(listed.filter((m, i) => listed.indexOf(m) !== i), 'modules in two layers').toEqual([]);
    expect(listed.filter((m) => !modules.includes(m)), 'LAYERS names a module src/ does not have').toEqual([]);
  });

  it('no module imports one of a higher layer', () => {
    expect(upwardImports(graph, layerOf)).toEqual([]);
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

  it('a file is of its top folder, or its own module at the root; an import into a higher layer is found', () => {
    const low = join(src, 'queue', 'store.ts');
    const high = join(src, 'processor', 'deep', 'loop.ts');
    expect([moduleOf(low), moduleOf(high), moduleOf(join(src, 'scan.ts'))]).toEqual(['queue/', 'processor/', 'scan.ts']);
    const layers = (module: string) => ({ 'processor/': 0, 'queue/': 1 })[module];
    expect(upwardImports(new Map([[high, [low]]]), layers)).toEqual([]);
    expect(upwardImports(new Map([[low, [high]]]), layers)).toEqual(['src/queue/store.ts -> src/processor/deep/loop.ts']);
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
