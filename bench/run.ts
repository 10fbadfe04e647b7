// `npm run bench`: runs the benchmarks, prints one table (figure, baseline from the same run, ratio, target,
// PASS/NOTE) and, with --write-docs, writes each benchmark's table to docs/performance.md with the date and the
// machine it ran on. `npm run bench -- --only intake,drain` runs some of them (and rewrites only their tables).
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, totalmem, type as osType, release } from 'node:os';
import { join } from 'node:path';
import { performanceDoc } from './performance-doc.js';
import { log, num, repoRoot, table, type Figure } from './support.js';

const benches: { id: string; name: string; title: string; measures: string; load: () => Promise<{ run: () => Promise<Figure[]> }> }[] = [
  { id: '1', name: 'intake', title: 'Intake', measures: 'Sonarr v4 webhooks from wrk for a minute against the bundle with the default config: requests/s and per CPU-second against a bare Node http server, p99, RSS.', load: () => import('./intake.js') },
  { id: '2', name: 'coalescing', title: 'Coalescing', measures: 'many events for few folders: refreshes sent per target.', load: () => import('./coalescing.js') },
  { id: '3', name: 'durability', title: 'Durability', measures: 'kill -9 during a burst of requests: acknowledged requests lost.', load: () => import('./durability.js') },
  { id: '4', name: 'memory', title: 'Memory', measures: 'RSS of an idle relay 40 s after start, per launch and per Node, against a bare Node http server; peak RSS with 100,000 folders queued.', load: () => import('./memory.js') },
  { id: '5', name: 'drain', title: 'Drain', measures: '100,000 folders to a fake Plex: folders/s, and the pause kept between scans.', load: () => import('./drain.js') },
  { id: '6', name: 'startup', title: 'Start-up', measures: 'launch to /health 200 with 100,000 folders queued.', load: () => import('./startup.js') },
  { id: '7', name: 'follow', title: 'Follow', measures: "following Plex's scans to their end: throughput, the wait after a scan ends, /activities requests, the cap during a library scan.", load: () => import('./follow.js') },
  { id: '8', name: 'failing-server', title: 'A failing media server', measures: 'attempts against a Plex answering 500; a healthy folder behind hung refreshes.', load: () => import('./failing-server.js') },
  { id: '9', name: 'fold', title: 'Fold', measures: 'the event loop while one 1,000-path webhook is folded; 1,001 paths refused.', load: () => import('./fold.js') },
  { id: '10', name: 'soak', title: 'Soak', measures: "100, 300 and as many webhooks/s as answered for 60 s: the WAL, requests lost, RSS, Plex's backlog; history bytes per line.", load: () => import('./soak.js') },
  { id: '11', name: 'jellyfin-scans', title: 'Jellyfin scans', measures: 'webhook to shown in Jellyfin, and entries walked, per scan method.', load: () => import('./jellyfin-scans.js') },
  { id: '12', name: 'plex-confirm', title: 'Plex confirmation', measures: "confirming scans from Plex's notification socket against polling: latency, bytes and requests per file.", load: () => import('./plex-confirm.js') },
  { id: '13', name: 'backpressure', title: 'Back-pressure', measures: "apps three times faster than Plex: Plex's backlog, the scans it ran, the drain.", load: () => import('./backpressure.js') },
  { id: '14', name: 'timeline-flood', title: 'Timeline flood', measures: "a hostile Plex flooding the notification socket: the relay's RSS, /health's latency, folders still refreshed.", load: () => import('./timeline-flood.js') },
  { id: '15', name: 'catch-up', title: 'Catch-up', measures: "a week down, caught up from Sonarr's history: time, /health meanwhile, RSS, folders against the same events as webhooks.", load: () => import('./catch-up.js') },
  { id: '16', name: 'reconcile', title: 'Reconcile', measures: "`scanrelay reconcile` with 20,000 episode files against a Plex section and a Jellyfin library of 20,000 items each: time, bytes read, peak RSS.", load: () => import('./reconcile.js') },
  { id: '17', name: 'hostile-sonarr', title: 'A hostile Sonarr', measures: "the relay catching up every second on a hostile Sonarr's worst answers: /health's latency, webhooks delivered to Plex meanwhile, peak RSS.", load: () => import('./hostile-sonarr.js') },
  { id: '18', name: 'outage', title: 'After an outage', measures: "200 season folders of ten files each, waiting while Plex was down, to a Plex whose scans end at once, take 40 ms, or send their items' \"processed\" entries seconds later: first refresh to last against 2 × Plex's own floor + 5 s, all confirmed, none twice.", load: () => import('./outage.js') },
  { id: '19', name: 'busy-folders', title: 'Busy folders', measures: '60 s of webhooks at 100/s over 600 folders, 50 asked every second, socket on and silent: the longest wait for a refresh, Plex idle while folders are due, the pace, the drain.', load: () => import('./busy-folders.js') },
];

const args = process.argv.slice(2);
const writeDocs = args.includes('--write-docs');
const onlyArg = args.find((a) => a.startsWith('--only'));
const only = onlyArg ? (onlyArg.includes('=') ? onlyArg.split('=')[1] : args[args.indexOf(onlyArg) + 1]).split(',') : undefined;

const machine = `${cpus()[0]?.model ?? 'unknown CPU'}, ${cpus().length} cores, ${Math.round(totalmem() / 2 ** 30)} GiB, ${osType()} ${release()}, Node ${process.version}`;

const figures: Figure[] = [];
const started = Date.now();
for (const b of benches) {
  if (only && !only.includes(b.name) && !only.includes(b.id)) continue;
  log(`${b.id}. ${b.name}…`);
  const t0 = Date.now();
  try {
    const mod = await b.load();
    figures.push(...(await mod.run()));
  } catch (err) {
    figures.push({ id: b.id, name: `${b.name}: did not complete`, value: NaN, unit: '', target: '—', pass: false, note: (err as Error).message.split('\n')[0] });
  }
  log(`${b.name} took ${((Date.now() - t0) / 1000).toFixed(0)} s`);
}

/** The benchmark a figure belongs to: "7b" is benchmark 7's. */
function benchOf(id: string): string {
  return /^\d+/.exec(id)?.[0] ?? id;
}

/** A figure's name without its parenthesised details (stdout keeps them): a row that fits a screen. */
const shortName = (name: string): string => {
  let out = name;
  for (let prev = ''; prev !== out; ) [prev, out] = [out, out.replace(/\s*\([^()]*\)/g, '')];
  return out.trim();
};

/** One benchmark's table for docs/performance.md: figure, latest value, baseline, target, result. */
function docTable(fs: Figure[]): string {
  const rows = fs.map((f) => {
    const base = f.baseline ? `${num(f.baseline.value, f.baseline.unit ?? f.unit)} (${shortName(f.baseline.label)})` : '—';
    return `| ${f.id} | ${shortName(f.name)} | ${num(f.value, f.unit)} | ${base} | ${f.target} | ${f.pass ? 'PASS' : 'NOTE'} |`;
  });
  return ['| # | figure | latest | baseline (same run) | target | result |', '|---|---|---|---|---|---|', ...rows].join('\n');
}

const out = table(figures);
process.stdout.write(`\nscanrelay benchmarks — ${machine}\n\n${out}\n\n`);
const failed = figures.filter((f) => !f.pass).length;
process.stdout.write(`${figures.length - failed} PASS, ${failed} NOTE; ${((Date.now() - started) / 1000).toFixed(0)} s\n`);

if (writeDocs) {
  const date = new Date().toISOString().slice(0, 10);
  const preamble = `# Performance

Where scanrelay stands: one table per benchmark, the latest figure of each against its target. Every figure is
measured with a baseline in the same run, because the machines are shared and noisy: a ratio to the baseline
says more than a lone timing. Medians are of several runs; each benchmark's file under \`bench/\` says exactly
what it measures and how. Every benchmark runs the defaults a user gets (file checks on, scans followed and
confirmed), against the server as users start it (the bundle, \`npm start\`'s Node flags).

- **Command:** \`npm run bench -- --write-docs\` (\`--only <name>\` runs one and rewrites only its table)
- **When and where:** each table says the day it ran and the machine.
`;
  const fresh = new Map(
    benches
      .filter((b) => figures.some((f) => benchOf(f.id) === b.id))
      .map((b) => [b.id, `## ${b.id}. ${b.title}\n\n${b.measures[0]!.toUpperCase()}${b.measures.slice(1)}\n\nRun ${date} on ${machine}.\n\n${docTable(figures.filter((f) => benchOf(f.id) === b.id))}\n`]),
  );
  // The tables of benchmarks not run this time, and the sections written by hand, are kept as they were.
  const file = join(repoRoot, 'docs', 'performance.md');
  const previous = existsSync(file) ? readFileSync(file, 'utf8') : '';
  writeFileSync(file, performanceDoc(previous, preamble, fresh, benches.map((b) => b.id)));
  log('wrote docs/performance.md');
}
process.exit(0);
