// `npm run bench`: runs the benchmarks, prints one table (figure, baseline from the same run, ratio, target,
// PASS/NOTE) and, with --write-docs, writes it to docs/performance.md with the date and the machine.
// `npm run bench -- --only intake,drain` runs some of them.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, totalmem, type as osType, release } from 'node:os';
import { join } from 'node:path';
import { log, repoRoot, table, type Figure } from './support.js';

/** Everything from this heading on in docs/performance.md is written by hand and survives --write-docs. */
const NOTES_HEADING = '## Notes';

const benches: { id: string; name: string; load: () => Promise<{ run: () => Promise<Figure[]> }> }[] = [
  { id: '1', name: 'intake', load: () => import('./intake.js') },
  { id: '2', name: 'coalescing', load: () => import('./coalescing.js') },
  { id: '3', name: 'durability', load: () => import('./durability.js') },
  { id: '4', name: 'memory', load: () => import('./memory.js') },
  { id: '5', name: 'drain', load: () => import('./drain.js') },
  { id: '6', name: 'startup', load: () => import('./startup.js') },
  { id: '7', name: 'follow', load: () => import('./follow.js') },
  { id: '8', name: 'failing-server', load: () => import('./failing-server.js') },
  { id: '9', name: 'fold', load: () => import('./fold.js') },
  { id: '10', name: 'soak', load: () => import('./soak.js') },
  { id: '11', name: 'jellyfin-scans', load: () => import('./jellyfin-scans.js') },
  { id: '12', name: 'plex-confirm', load: () => import('./plex-confirm.js') },
  { id: '13', name: 'backpressure', load: () => import('./backpressure.js') },
  { id: '14', name: 'timeline-flood', load: () => import('./timeline-flood.js') },
  { id: '15', name: 'catch-up', load: () => import('./catch-up.js') },
  { id: '16', name: 'hostile-sonarr', load: () => import('./hostile-sonarr.js') },
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

const out = table(figures);
process.stdout.write(`\nscanrelay benchmarks — ${machine}\n\n${out}\n\n`);
const failed = figures.filter((f) => !f.pass).length;
process.stdout.write(`${figures.length - failed} PASS, ${failed} NOTE; ${((Date.now() - started) / 1000).toFixed(0)} s\n`);

if (writeDocs) {
  const date = new Date().toISOString().slice(0, 10);
  const doc = `# Performance

The latest figures of \`npm run bench\`. Every figure is measured with a baseline in the same run,
because the machines are shared and noisy: a ratio to the baseline says more than a lone timing. Medians are
of several runs; each benchmark's file under \`bench/\` says exactly what it measures.

- **Run:** ${date}
- **Machine:** ${machine}
- **Command:** \`npm run bench -- --write-docs\`

${out}

## What each line measures

Every server starts with the Node flags \`npm start\` passes (\`src/cli/node-flags.ts\`);
\`BENCH_NODE_FLAGS='--max-semi-space-size=8' npm run bench\` replaces them, to measure what a flag changes.

1. **Intake** — what users send: a Sonarr v4 \`Download\` webhook (about 3 KB, every field Sonarr sends) from
   wrk (its own process, 64 keep-alive connections, 2 threads) for a sustained minute against the server as
   users run it (the bundle, \`dist/scanrelay.mjs\`) with the default config, all to one folder and each to a new
   folder. Each measured minute follows 5 s of the same load on the same server, which warms up V8's compiled
   code as a server that has run for a while has; the p99 line gives that warm-up's own p99 and max, and the
   peak RSS counts it. Baseline: a bare Node \`http\` server driven the same way in the same run, with 1 and
   with 2 wrk threads, to show the client is not the limit. Three floors show what is left of bare for any JSON
   webhook receiver: bare \`http\` that also \`JSON.parse\`s the body; Fastify with one route answering
   \`{"ok":true}\`; and bare \`http\` that parses the body and commits its folder to a SQLite file (WAL, one
   transaction per turn of the event loop) before it answers, the least a receiver that never loses a request
   does. Another, the same bare server burning 100 µs of CPU per request, shows the p99 that cost alone brings.
   The p99 line also gives how long the server itself held each request (from its headers read to its answer
   written, recorded by the probe), apart from the time before the server reads a request and after it answers.
   The server's RSS is sampled every second, and requests per CPU-second are shown beside req/s because they do
   not depend on how busy the machine is. After each run the queue file must hold every request answered 2xx.
2. **Coalescing** — 10,000 webhooks over 500 season folders inside \`SERVER_SCAN_DELAY\`, two Plex targets;
   then 24 one-episode imports of one season. Baseline: one scan per event.
3. **Durability** — 64 concurrent clients send a 20,000-request burst to the real server; \`kill -9\` lands at a
   random request; the server is restarted on the same queue file and drains to a fake Plex (with its
   notification socket, as a real Plex). Every acknowledged folder must reach Plex.
4. **Memory** — RSS 40 s after start of an idle relay (a Plex target, defaults) above a bare Node \`http\` server
   (no flags) started beside it, on the machine's Node and on Node 24, the relay launched both ways users launch
   it: as \`npm start\`, the image and the unit do (the Node flags, target +20 MB) and as \`npx scanrelay server\`
   does (no flags, target +24 MB); then peak RSS (VmHWM) of the server process itself, idle, with 100,000 queued
   folders waiting, and with 100,000 due while Plex refuses every scan. Baseline: a bare Node \`http\` process.
5. **Drain** — 100,000 queued folders, delay 0, a fake Plex answering each call in 5 ms (with its notification
   socket, so each scan's end frees its place under \`PLEX_MAX_OUTSTANDING\`). Baseline: a plain
   client with the same concurrency (8) against the same fake Plex, i.e. what the fake can take. Then
   \`PLEX_SCAN_PAUSE\` is set and the gaps between scans are checked.
6. **Start-up** — from spawn to the first 200 on \`/health\` with 100,000 queued folders, running the bundle as
   \`npm start\` does. Baselines: an empty queue, and a bare Node \`http\` process.
7. **Follow** — a queued backlog, delay 0, default settings, against three fake Plex behaviours, each with its
   notification socket (\`BENCH_FOLLOW=poll\` refuses it: the polling fallback): (a) scans that
   end before anyone can poll (an empty \`/activities\`): folders delivered per second against a plain client,
   and the slowest follow-up after its scan; (b) one scan at a time for 40 ms each, shown in \`/activities\`
   (Plex's floor: N × 40 ms), for N = 200 and 2,000: first refresh to last outcome, and the \`/activities\`
   requests in that time; (c) a 60 s library scan while 100 folders are due: how many refreshes Plex is handed
   while it runs (at most \`PLEX_MAX_OUTSTANDING\`, the rest wait in the relay), and the last follow-up after
   the scan ended.
8. **Failing server** — the default config against a fake Plex that (a) answers every refresh with 500: refresh
   attempts in 60 s of the service's clock; (b) never answers 8 refreshes (PLEX_SCAN_CONCURRENCY): how long a
   healthy folder due behind them waits for its refresh. The service runs on a ManualClock moved in 100 ms steps.
9. **Fold** — one Sonarr "On Import Complete" webhook naming SERVER_MAX_REQUEST_PATHS (1,000) files, each in a
   folder of its own, through the service as users run it (default config, real disk check, a log file, a Plex
   whose library holds the folders): the longest the event loop is held while it is received, folded and
   committed (perf_hooks' event-loop delay), median of 7; baseline: JSON.parse of the same body. And one path
   more than the limit, which must be a 413 before anything is folded.
10. **Soak** — Sonarr webhooks at a steady 100/s, then 300/s, then as fast as 48 clients get answers, each for
   \`BENCH_SOAK_SECONDS\` (300) on a fresh server (the bundle), over 3,000 season folders with
   \`SERVER_SCAN_DELAY\` 5, against a fake Plex that scans one folder at a time, 24 ms each (about 42 a second,
   slower than the load), with its notification socket as a real Plex has it (\`test/fakes/plex-notifications.ts\`).
   Printed over time: Plex's own backlog (scans queued at Plex, capped by PLEX_MAX_OUTSTANDING), the relay's
   queue, the WAL file's size (sampled every 100 ms) and the server's RSS; at the end, refreshes per folder, the
   largest WAL, the drain after the load, requests still queued when the bench stops waiting (120 s), requests
   lost (answered 2xx, no refresh of the folder after, and not queued any more), refreshes sent twice (a refresh
   with no request answered since the one before, or in the 2 s before it), and RSS at its peak and settled
   after the drain. \`BENCH_SOAK_FOLLOW=poll\` runs it without the socket (polling \`/activities\`). Then 20,000 folders
   (\`BENCH_SOAK_HISTORY\`) are pushed through a fast Plex into history, one in 50 outside every library, and the
   queue file's bytes per history line are measured with \`dbstat\` (the history table, its index and its texts).
   \`BENCH_SOAK_RATES=100,300,max\` picks the rates.
11. **Jellyfin scans** — a model Jellyfin 10.11 (\`test/fakes/jellyfin-server.ts\`, built from jellyfin v10.11.11 and
   the Targeted Scans plugin at 0b5cabe: a TV library of 20,000 episodes and a movie library of 2,000 movies, 2 ms
   per entry walked, one refresh at a time from a .NET PriorityQueue, the library monitor's 60 s timer, the
   plugin's own refreshes, metadata replacement counted per item) behind the real service (default config,
   SERVER_SCAN_DELAY 1, a \`jellyfin\` TARGETS entry) on one ManualClock. (a) One burst of Sonarr and Radarr webhooks
   200 ms apart: 3 new episodes in existing seasons, a new season, a deleted episode, 2 new movies and a movie
   upgrade that renames the file (its \`deletedFiles\` names the old one). For SCAN_METHOD \`auto\` without and with
   the plugin and \`media-updated\`: the worst time from a webhook to the change shown (the upgrade's old file gone
   included), the entries the server walked against one walk of the library, existing items whose metadata was
   replaced, and whether the upgrade's old file is still an item. (b) 8 season imports and 2 new movies, no plugin,
   while the server walks the TV library: seasons that were items before the movie library walk began, and
   follow-ups that ended \`not-found\` (and first looks that needed the second scan).
12. **Plex confirmation** — a fake Plex of 5,000 movies and 5,000 episodes whose scans run one at a time, 300 ms
   each, no database; 200 new files across 100 folders (50 movie, 50 season folders), every scan asked at once,
   the follower with its defaults. (a) On Plex's notification socket: time from each scan's end to \`confirmed\`
   (p95, p50), bytes read from Plex per confirmed file (HTTP answers with their headers, plus the socket's
   frames), requests per confirmed file. Baseline, in the same run: the same follower without the socket,
   polling \`/activities\` every second with the database.
13. **Back-pressure** — the apps three times faster than Plex: 30 Sonarr webhooks/s for 60 s of the service's
   clock (\`BENCH_PRESSURE_SECONDS\`) against a fake Plex that scans one folder at a time, 10 a second, with its
   notification socket, through the real service on a stepped clock (\`test/support/pressure.ts\`),
   \`SERVER_SCAN_DELAY\` 1 s, \`PLEX_CONFIRM_TIMEOUT\` 60 s; every webhook a new folder, then 300 folders asked in
   turn. Plex's largest backlog (scans waiting and running), the scans Plex ran during the load of those it
   could (and how many it idled while folders waited in the relay), refreshes per folder, outcomes, files lost,
   refreshes sent while the same folder still waited in Plex, and the drain after the load: with
   \`PLEX_MAX_OUTSTANDING\` 100,000 (the old behaviour, baseline) and with the default 8; then the default 8
   without the socket (polling \`/activities\`), a finding beside it.
14. **Timeline flood** — a Plex that never stops sending timeline entries: the relay as users start it (the bundle
   with \`npm start\`'s Node flags, a 512 MB heap; the default config but \`SERVER_SCAN_DELAY\` 1 s) against a hostile
   fake Plex on 127.0.0.1 in its own process (\`bench/hostile-plex.ts\`) that scans the relay's folders one at a
   time, 50 ms each, with its notification socket. Once the socket is open, 10 s of one Sonarr webhook a second for
   a new folder (the baseline), then 60 s of the same while the fake sends 6,000,000 timeline entries (500 to a
   frame, for ten sections holding none of the relay's folders) and 10 scans a second \`started\` and never
   \`ended\`. The relay's peak RSS (VmHWM) against its RSS before the flood; \`GET /health\` every 50 ms (p50, p99,
   max) against a bare Node http server probed the same way at the same time (what the machine's load alone does)
   and the relay's own before the flood, with what a probe inside the relay saw (event-loop stalls, how long it
   held each request); the folders refreshed at Plex and their outcomes; the entries the fake got onto the socket.
   \`BENCH_FLOOD_AGAINST=<another build's scanrelay.mjs>\` runs the same against that build too.
15. **Catch-up** — a week down: the relay (the bundle) first meets a fake Sonarr, is stopped, and its cursor is put
   back a week; Sonarr's history holds 10,000 events (8,500 imports of 850 season packs, 300 upgrades, 600
   renames of which 100 from an old series folder, 300 deleted files). Started again: the time from its first
   request to Sonarr to the last event handed on (and the slowest \`/health\` answer meanwhile, polled every
   20 ms), its peak RSS, and the folders it queued against those the same events queue as 9,700 webhooks sent
   16 at a time to a fresh relay (the baseline run: its time and peak RSS). No media server is configured, so what
   was queued is what is counted.

Every benchmark runs the defaults a user gets (file checks on, scans followed and confirmed), with the two path
mappings a user writes; the files the requests name exist on the benchmark's disk and in the fake Plex.

For scale: plex_autoscan with its SQLite queue takes ~26 requests/s when each names a new folder on
this machine size, answering 4-5% with 500 and 7-8% with 200 without queueing them.
`;
  // The hand-written notes below the generated part (what limits a figure, what changed) are kept.
  const file = join(repoRoot, 'docs', 'performance.md');
  const previous = existsSync(file) ? readFileSync(file, 'utf8') : '';
  const notesAt = previous.indexOf(NOTES_HEADING);
  writeFileSync(file, notesAt >= 0 ? `${doc}\n${previous.slice(notesAt)}` : doc);
  log('wrote docs/performance.md');
}
process.exit(0);
