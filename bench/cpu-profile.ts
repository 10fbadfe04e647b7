// Reads a V8 CPU profile (node --cpu-prof) and prints where the time went: the functions with the most self time,
// and the longest unbroken stretches spent inside one function (a stretch of 100 ms or more is a stall of the
// event loop that no request can be answered during). Usage: node --import tsx bench/cpu-profile.ts <file>...
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: Node[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
}

const where = (n: Node) => {
  const f = n.callFrame;
  const file = f.url ? basename(f.url.replace(/^file:\/\//, '')) : '';
  return `${f.functionName || '(anonymous)'}${file ? ` ${file}:${f.lineNumber + 1}` : ''}`;
};

export function summarise(file: string, top = 25, minRunMs = 50): string {
  const p = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const stackOf = new Map<number, string[]>();
  const stack = (id: number): string[] => {
    let s = stackOf.get(id);
    if (s) return s;
    const up = parent.get(id);
    s = [...(up === undefined ? [] : stack(up)), where(byId.get(id)!)];
    stackOf.set(id, s);
    return s;
  };
  const self = new Map<string, number>();
  const total = new Map<string, number>();
  const run = new Map<string, { len: number; at: number }>();
  const best = new Map<string, { ms: number; atMs: number }>();
  let t = 0;
  let all = 0;
  for (let i = 0; i < p.samples.length; i++) {
    // A sample's time is the gap to the next one: what the profiler saw running until then.
    const dt = (p.timeDeltas[i + 1] ?? 0) / 1000;
    t += p.timeDeltas[i] / 1000;
    all += dt;
    const s = stack(p.samples[i]);
    const leaf = s[s.length - 1];
    self.set(leaf, (self.get(leaf) ?? 0) + dt);
    const here = new Set(s);
    for (const f of here) total.set(f, (total.get(f) ?? 0) + dt);
    for (const [f, r] of run) {
      if (!here.has(f)) {
        const b = best.get(f);
        if (!b || r.len > b.ms) best.set(f, { ms: r.len, atMs: r.at });
        run.delete(f);
      }
    }
    for (const f of here) {
      const r = run.get(f);
      if (r) r.len += dt;
      else run.set(f, { len: dt, at: t });
    }
  }
  for (const [f, r] of run) {
    const b = best.get(f);
    if (!b || r.len > b.ms) best.set(f, { ms: r.len, atMs: r.at });
  }
  const pct = (ms: number) => `${((ms / all) * 100).toFixed(1)}%`;
  const lines = [`${basename(file)}: ${(all / 1000).toFixed(1)} s sampled`, '', 'self time:'];
  for (const [f, ms] of [...self].sort((a, b) => b[1] - a[1]).slice(0, top)) lines.push(`  ${pct(ms).padStart(6)}  ${f}`);
  lines.push('', 'inclusive time (selected):');
  for (const [f, ms] of [...total].filter(([f]) => !/^\((root|program)\)/.test(f)).sort((a, b) => b[1] - a[1]).slice(0, top)) lines.push(`  ${pct(ms).padStart(6)}  ${f}`);
  lines.push('', `unbroken stretches inside one function of ${minRunMs} ms or more (innermost first at each start):`);
  const runs = [...best].filter(([f, b]) => b.ms >= minRunMs && !/^\((root|program|idle)\)/.test(f)).sort((a, b) => b[1].ms - a[1].ms);
  for (const [f, b] of runs.slice(0, top)) lines.push(`  ${b.ms.toFixed(0).padStart(5)} ms at ${(b.atMs / 1000).toFixed(2)} s  ${f}`);
  return lines.join('\n');
}

if (process.argv[1] && basename(process.argv[1]).startsWith('cpu-profile')) {
  const files = process.argv.slice(2);
  if (files.length === 0 || files.includes('--help')) {
    process.stdout.write('usage: node --import tsx bench/cpu-profile.ts <file.cpuprofile>...\n');
    process.exit(files.length ? 0 : 1);
  }
  for (const f of files) process.stdout.write(`${summarise(f)}\n\n`);
}
