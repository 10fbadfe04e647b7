// Where an idle relay's JS heap goes, by source module: a heap snapshot of `scanrelay server` (the bundle, the
// launchers' flags, a Plex target) after 20 s idle, each function's closure, shared info and bytecode put down
// to the module its code came from (through the chunk's source map), the rest by V8's kind of object.
//
//   node --import tsx bench/heap-by-module.ts [--node24] [--top N]
//   (HEAP_MODULE_NAMES=<module> lists that module's functions on stderr; HEAP_SNAPSHOT_COPY=<file> keeps the snapshot)
//
// Self sizes, not retained sizes: what a module's code costs in the heap (its functions, their bytecode and
// feedback), plus each chunk's source text, which V8 keeps for lazily compiled functions. Objects that data
// structures hold (strings, arrays, maps) are listed by kind; they are few in an idle relay.
import { copyFileSync, existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FakePlex } from '../test/fakes/plex.js';
import { nodeOfMajor, versionOf } from './other-node.js';
import { cleanup, sleep, startServer, tempDir, writeConfig } from './support.js';

interface Snapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[]]; edge_fields: string[]; edge_types: [string[]]; location_fields: string[] } };
  nodes: number[];
  edges: number[];
  strings: string[];
  locations: number[];
}

/** Decodes a source map's mappings into, per generated line, sorted [column, source index] pairs. */
function decodeMap(file: string): { sources: string[]; lines: number[][][] } {
  const map = JSON.parse(readFileSync(file, 'utf8')) as { sources: string[]; mappings: string };
  const chars = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  const lines: number[][][] = [];
  let source = 0;
  for (const line of map.mappings.split(';')) {
    const segs: number[][] = [];
    let col = 0;
    for (const seg of line.split(',')) {
      if (!seg) continue;
      const vals: number[] = [];
      let shift = 0;
      let value = 0;
      for (const ch of seg) {
        const d = chars.indexOf(ch);
        value += (d & 31) << shift;
        if (d & 32) shift += 5;
        else {
          vals.push(value & 1 ? -(value >> 1) : value >> 1);
          value = 0;
          shift = 0;
        }
      }
      col += vals[0];
      if (vals.length > 1) source += vals[1];
      segs.push([col, source]);
      // name, original line and column are not needed
    }
    lines.push(segs);
  }
  return { sources: map.sources, lines };
}

/** `zod`, `fastify`, `@fastify/formbody`, or `src/server` for a source path. */
function moduleOf(source: string): string {
  const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(source);
  if (m) return m[1];
  const s = /(?:^|\/)(src\/(?:[^/]+\/)?)/.exec(source);
  return s ? s[1].replace(/\/$/, '').replace(/^src\/([^/]+)\.ts$/, 'src') : source.replace(/^(\.\.\/)+/, '');
}

export function analyse(file: string, top: number): string {
  const snap = JSON.parse(readFileSync(file, 'utf8')) as Snapshot;
  const nf = snap.snapshot.meta.node_fields;
  const ef = snap.snapshot.meta.edge_fields;
  const N = nf.length;
  const E = ef.length;
  const types = snap.snapshot.meta.node_types[0];
  const etypes = snap.snapshot.meta.edge_types[0];
  const T = nf.indexOf('type');
  const NAME = nf.indexOf('name');
  const SIZE = nf.indexOf('self_size');
  const EC = nf.indexOf('edge_count');
  const { nodes, edges, strings } = snap;
  const count = nodes.length / N;
  const firstEdge = new Uint32Array(count + 1);
  for (let i = 0; i < count; i++) firstEdge[i + 1] = firstEdge[i] + nodes[i * N + EC] * E;
  // Node 20's V8 names some edges differently (script_or_debug_info for script).
  const edgeTo = (node: number, name: string): number | undefined => {
    for (let e = firstEdge[node]; e < firstEdge[node + 1]; e += E) {
      const t = etypes[edges[e]];
      if (t !== 'element' && t !== 'hidden' && (strings[edges[e + 1]] === name || strings[edges[e + 1]] === `${name}_or_debug_info`)) return edges[e + 2] / N;
    }
    return undefined;
  };
  const children = (node: number) => {
    const out: number[] = [];
    for (let e = firstEdge[node]; e < firstEdge[node + 1]; e += E) if (etypes[edges[e]] !== 'weak') out.push(edges[e + 2] / N);
    return out;
  };
  const type = (n: number) => types[nodes[n * N + T]];
  const name = (n: number) => strings[nodes[n * N + NAME]];
  const size = (n: number) => nodes[n * N + SIZE];

  // The bundle's chunks, by URL, with their source maps.
  const maps = new Map<string, ReturnType<typeof decodeMap> | null>();
  const mapFor = (url: string) => {
    if (!maps.has(url)) {
      let m: ReturnType<typeof decodeMap> | null = null;
      try {
        const path = url.startsWith('file:') ? fileURLToPath(url) : url;
        if (existsSync(`${path}.map`)) m = decodeMap(`${path}.map`);
      } catch {
        m = null;
      }
      maps.set(url, m);
    }
    return maps.get(url)!;
  };
  // Closures' locations: node index -> [line, column].
  const lf = snap.snapshot.meta.location_fields;
  const loc = new Map<number, [number, number]>();
  for (let i = 0; i < snap.locations.length; i += lf.length) loc.set(snap.locations[i + lf.indexOf('object_index')] / N, [snap.locations[i + lf.indexOf('line')], snap.locations[i + lf.indexOf('column')]]);

  const byModule = new Map<string, { code: number; functions: number }>();
  const add = (module: string, bytes: number, fn = 0) => {
    const m = byModule.get(module) ?? { code: 0, functions: 0 };
    m.code += bytes;
    m.functions += fn;
    byModule.set(module, m);
  };
  const counted = new Uint8Array(count);
  const sourceText = new Map<string, number>();
  let attributed = 0;
  for (let n = 0; n < count; n++) {
    if (type(n) !== 'closure') continue;
    const shared = edgeTo(n, 'shared');
    const script = shared === undefined ? undefined : edgeTo(shared, 'script');
    const scriptName = script === undefined ? undefined : edgeTo(script, 'name');
    const url = scriptName === undefined ? '' : name(scriptName);
    let module = url.startsWith('node:') || url === '' ? '(Node itself)' : '(other scripts)';
    const map = url ? mapFor(url) : null;
    const at = loc.get(n);
    if (map && at) {
      const segs = map.lines[at[0]] ?? [];
      let lo = 0;
      let hi = segs.length - 1;
      let found = -1;
      while (lo <= hi) {
        const mid = (lo + hi) >> 1;
        if (segs[mid][0] <= at[1]) {
          found = mid;
          lo = mid + 1;
        } else hi = mid - 1;
      }
      if (found >= 0) module = moduleOf(map.sources[segs[found][1]]);
    } else if (/\/dist\/|scanrelay/.test(url)) module = '(bundle, unmapped)';
    let bytes = counted[n] ? 0 : size(n);
    counted[n] = 1;
    // The function's shared info and what only it holds: bytecode, feedback metadata, scope info.
    if (shared !== undefined && !counted[shared]) {
      counted[shared] = 1;
      bytes += size(shared);
      for (const c of children(shared)) {
        if (counted[c]) continue;
        const t = type(c);
        const nm = name(c);
        if (t === 'code' || /Bytecode|ScopeInfo|feedback|FeedbackMetadata|UncompiledData|PreparseData/i.test(nm)) {
          counted[c] = 1;
          bytes += size(c);
          for (const cc of children(c)) if (!counted[cc] && type(cc) === 'code') ((counted[cc] = 1), (bytes += size(cc)));
        }
      }
    }
    const fb = edgeTo(n, 'feedback_cell');
    if (fb !== undefined && !counted[fb]) {
      counted[fb] = 1;
      bytes += size(fb);
      for (const c of children(fb)) if (!counted[c] && /Feedback/i.test(name(c))) ((counted[c] = 1), (bytes += size(c)));
    }
    attributed += bytes;
    add(module, bytes, 1);
    if (process.env.HEAP_MODULE_NAMES === module) process.stderr.write(`${module}: ${name(n)} ${url.replace(/^.*\//, '')}:${at?.join(':')}\n`);
    if (script !== undefined && url && !sourceText.has(url)) {
      const src = edgeTo(script, 'source');
      sourceText.set(url, src === undefined ? 0 : size(src));
      if (src !== undefined) counted[src] = 1;
    }
  }
  let total = 0;
  const byType = new Map<string, number>();
  for (let n = 0; n < count; n++) {
    total += size(n);
    if (counted[n]) continue;
    byType.set(type(n), (byType.get(type(n)) ?? 0) + size(n));
  }
  const kb = (b: number) => (b / 1024).toFixed(0);
  const rows = [...byModule.entries()].sort((a, b) => b[1].code - a[1].code);
  const shown = rows.slice(0, top);
  const rest = rows.slice(top).reduce((s, [, v]) => s + v.code, 0);
  const bundleSources = [...sourceText.entries()].filter(([u]) => u.includes('scanrelay') || u.includes('/chunks/'));
  return [
    `heap ${kb(total)} KB in all (self sizes). Functions by the module of their code: ${kb(attributed)} KB`,
    '| module | functions | closures, shared infos, bytecode, feedback KB |',
    '|---|---:|---:|',
    ...shown.map(([m, v]) => `| ${m} | ${v.functions} | ${kb(v.code)} |`),
    `| ${rows.length - shown.length} more modules | | ${kb(rest)} |`,
    '',
    `source text kept of the bundle's files loaded: ${bundleSources.map(([u, b]) => `${u.replace(/^.*\//, '')} ${kb(b)} KB`).join(', ')}`,
    '',
    '| the rest, by kind of object | KB |',
    '|---|---:|',
    ...[...byType.entries()].sort((a, b) => b[1] - a[1]).map(([t, b]) => `| ${t} | ${kb(b)} |`),
  ].join('\n');
}

async function main(): Promise<void> {
  const top = Number(process.argv[process.argv.indexOf('--top') + 1]) || 25;
  const node = process.argv.includes('--node24') ? nodeOfMajor(24) : process.execPath;
  if (!node) throw new Error('no Node 24 (see bench/other-node.ts)');
  const plex = await new FakePlex({ sections: [{ key: '2', title: 'TV', type: 'show', locations: ['/data/media/tv'] }] }).start();
  const dir = tempDir('heap-by-module');
  try {
    const config = writeConfig(dir, { PLEX_LOCAL_URL: plex.url, PLEX_TOKEN: plex.token });
    const server = await startServer({ dir, config, queuefile: join(dir, 'queue.db'), node, nodeArgs: ['--heapsnapshot-signal=SIGUSR2'] });
    await sleep(20_000);
    server.proc.kill('SIGUSR2');
    let file: string | undefined;
    for (let i = 0; i < 200 && !file; i++) {
      await sleep(100);
      const f = readdirSync(dir).find((x) => x.endsWith('.heapsnapshot'));
      // Written in one go by the time the process answers the next signal; wait for the size to settle.
      if (f) {
        const a = readFileSync(join(dir, f)).length;
        await sleep(500);
        if (readFileSync(join(dir, f)).length === a && a > 0) file = join(dir, f);
      }
    }
    await server.stop();
    if (!file) throw new Error('no heap snapshot written');
    if (process.env.HEAP_SNAPSHOT_COPY) copyFileSync(file, process.env.HEAP_SNAPSHOT_COPY);
    process.stdout.write(`Idle relay on Node ${versionOf(node)}, heap snapshot after 20 s\n${analyse(file, top)}\n`);
  } finally {
    await plex.stop();
    cleanup(dir);
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
