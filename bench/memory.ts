// Benchmark 4 — memory: peak RSS (VmHWM) of the server process, idle and with 100,000 folders queued, measured
// in the child process so the harness does not count. Baseline: a bare Node http server process, same run.
// First, what a home server holds all year: RSS 40 s after start of an idle relay (a Plex target, every other
// setting its default) beside a bare Node http server (no flags) started at the same moment on the same Node, on
// every Node the suite runs on (20, 22, 24: the machine's and the others from the npm registry, bench/other-node.ts),
// launched each way users launch it: as `npx scanrelay server` does (no Node flag), as npm start does (its heap
// options), as the image's command does (the same, with the malloc setting and NODE_ENV=production) and as the
// systemd unit's does (the heap options and the malloc setting). Target for each: at most 32 MB above bare. A bare
// server with the relay's flags runs beside them, for the log. The same runs count how often each process is woken
// (context switches of all its threads per second, 40-60 s after start, once start-up is over; at most 5/s).
// `node --import tsx bench/memory.ts --idle` runs only that part; `--by-part` prints where the relay's memory goes,
// part by part (bench/memory-parts.ts), on each Node.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FakePlex } from '../test/fakes/plex.js';
import { MALLOC_ENV } from '../test/support/launch.js';
import { buildParts, partsRound, type PartRss } from './memory-parts.js';
import { testedNodes, versionOf } from './other-node.js';
import { cleanup, createMediaFiles, log, median, peakRssMb, prefilledFile, prefillQueue, rssMb, SECRET, serverFlags, sleep, standalone, startBare, startServer, tempDir, writeConfig, type Figure } from './support.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const FOLDERS = 100_000;
/**
 * A relay that sits idle all year should let the CPU sleep: its timers (the WAL looks spaced to 5 s, the event
 * loop's lag sampled once a second) wake it a few times a second at most.
 */
const MAX_IDLE_WAKEUPS = 5;
/** How long after start the idle relay is measured. */
const IDLE_MS = 40_000;
// Three, for a median one odd run cannot move (on Node 24 a run now and then idles several MB higher).
const IDLE_ROUNDS = Number(process.env.BENCH_IDLE_ROUNDS ?? 3);

/** How far above a bare Node http server an idle relay may be, however it is launched, on any tested Node. */
const IDLE_ALLOWANCE_MB = 32;

/** The ways users launch the relay (README, Dockerfile, deploy/scanrelay.service). */
const LAUNCHES: { name: string; flags: readonly string[]; env?: Record<string, string> }[] = [
  { name: 'as `npx scanrelay server` launches it (no Node flag)', flags: [] },
  { name: 'as npm start launches it (the heap options)', flags: serverFlags() },
  { name: "as the image's command launches it (the heap options, the malloc setting, NODE_ENV=production)", flags: serverFlags(), env: { ...MALLOC_ENV, NODE_ENV: 'production' } },
  { name: "as the systemd unit's launches it (the heap options, the malloc setting)", flags: serverFlags(), env: { ...MALLOC_ENV } },
];

interface IdleRound {
  bare: number;
  bareFlags: number;
  /** One per launch, in LAUNCHES' order. */
  relays: number[];
  /** Times each process was woken per second over the last 30 s of the idle time (context switches): bare, then one per launch. */
  wakeups: number[];
}

/**
 * Context switches of a live process so far, voluntary and not, of all its threads (V8's and libuv's helpers wake
 * too; /proc/<pid>/status alone counts the main thread): each is one time a thread of it was woken.
 */
function switches(pid: number): number {
  let n = 0;
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    try {
      const status = readFileSync(`/proc/${pid}/task/${task}/status`, 'utf8');
      for (const m of status.matchAll(/^(?:non)?voluntary_ctxt_switches:\s+(\d+)/gm)) n += Number(m[1]);
    } catch {
      // A thread that ended between the listing and the read: its switches went with it.
    }
  }
  return n;
}

/**
 * How long the wakeups are counted, from the RSS reading on: start-up is over by then, V8's memory reducer included
 * (on Node 20 and 22 it collects once or twice in an idle process's first half-minute, each collection waking its
 * threads many times; docs/performance.md, "Idle memory"), so what is counted is what idling costs.
 */
const WAKEUPS_MS = 20_000;

/** RSS of an idle relay per launch, of a bare http server and of one with the relay's flags, all started together on `node`, after IDLE_MS. */
async function idleRound(node: string, plexUrl: string, token: string): Promise<IdleRound> {
  const dirs = LAUNCHES.map(() => tempDir('mem-idle'));
  try {
    const [bare, bareFlags, ...relays] = await Promise.all([
      startBare(0, undefined, node),
      startBare(0, undefined, node, serverFlags()),
      ...LAUNCHES.map((launch, i) => {
        const config = writeConfig(dirs[i], { PLEX_LOCAL_URL: plexUrl, PLEX_TOKEN: token });
        return startServer({ dir: dirs[i], config, queuefile: join(dirs[i], 'queue.db'), node, nodeFlags: launch.flags, env: launch.env });
      }),
    ]);
    try {
      const counted = [bare, ...relays];
      await sleep(IDLE_MS);
      const rss = { bare: rssMb(bare.pid), bareFlags: rssMb(bareFlags.pid), relays: relays.map((r) => rssMb(r.pid)) };
      const before = counted.map((c) => switches(c.pid));
      await sleep(WAKEUPS_MS);
      const wakeups = counted.map((c, i) => (switches(c.pid) - before[i]) / (WAKEUPS_MS / 1000));
      return { ...rss, wakeups };
    } finally {
      await Promise.all([bare.stop(), bareFlags.stop(), ...relays.map((r) => r.stop())]);
    }
  } finally {
    dirs.forEach(cleanup);
  }
}

async function idleFigures(): Promise<Figure[]> {
  const plex = await new FakePlex({ sections: [{ key: '2', title: 'TV', type: 'show', locations: ['/data/media/tv'] }] }).start();
  const nodes = testedNodes();
  const figures: Figure[] = [];
  const mb = (x: number) => `${x >= 0 ? '+' : ''}${x.toFixed(1)}`;
  try {
    for (const node of nodes) {
      const version = versionOf(node);
      const rounds: IdleRound[] = [];
      for (let r = 0; r < IDLE_ROUNDS; r++) {
        const round = await idleRound(node, plex.url, plex.token);
        rounds.push(round);
        const relays = LAUNCHES.map((l, i) => `${l.name}: ${round.relays[i].toFixed(1)} MB (${mb(round.relays[i] - round.bare)})`);
        log(`idle on Node ${version}, round ${r + 1}/${IDLE_ROUNDS}: bare ${round.bare.toFixed(1)} MB, bare with the relay's flags ${round.bareFlags.toFixed(1)} MB; relay ${relays.join('; ')}; woken per second: bare ${round.wakeups[0].toFixed(1)}, relay ${round.wakeups.slice(1).map((w) => w.toFixed(1)).join(' / ')}`);
      }
      LAUNCHES.forEach((launch, i) => {
        const above = rounds.map((p) => p.relays[i] - p.bare);
        const v = median(above);
        const relay = median(rounds.map((p) => p.relays[i]));
        const against = `${mb(v)} MB above bare (${mb(median(rounds.map((p) => p.relays[i] - p.bareFlags)))} against bare with the relay's flags)`;
        const pass = v <= IDLE_ALLOWANCE_MB;
        log(`Node ${version}, ${launch.name}, median of ${rounds.length}: relay ${relay.toFixed(1)} MB, ${against}, target <= ${IDLE_ALLOWANCE_MB} MB: ${pass ? 'PASS' : 'FAIL'}`);
        figures.push({
          id: '4',
          name: `memory: RSS ${IDLE_MS / 1000} s after start, idle, ${launch.name}, above a bare Node http server (no flags) started beside it, Node ${version} (${Math.min(...above).toFixed(1)}-${Math.max(...above).toFixed(1)} MB over ${rounds.length} runs; relay ${relay.toFixed(1)} MB)`,
          value: v,
          unit: 'MB',
          baseline: { label: 'bare Node http, same Node, same moment', value: median(rounds.map((p) => p.bare)) },
          ratio: median(rounds.map((p) => p.relays[i] / p.bare)),
          target: `<= ${IDLE_ALLOWANCE_MB} MB above bare`,
          pass,
          note: pass ? undefined : `${v.toFixed(1)} MB above bare; see Notes`,
        });
        const wakeups = median(rounds.map((p) => p.wakeups[i + 1]));
        figures.push({
          id: '4',
          name: `idle wakeups: times the idle relay was woken per second (context switches, ${IDLE_MS / 1000}-${(IDLE_MS + WAKEUPS_MS) / 1000} s after start), ${launch.name}, Node ${version}`,
          value: wakeups,
          unit: '/s',
          baseline: { label: 'bare Node http, same moment', value: median(rounds.map((p) => p.wakeups[0])) },
          target: `<= ${MAX_IDLE_WAKEUPS}/s`,
          pass: wakeups <= MAX_IDLE_WAKEUPS,
        });
      });
    }
  } finally {
    await plex.stop();
  }
  return figures;
}

/** Exercises the server a little (health, API, a few webhooks) so the figure is not a cold process. */
async function exercise(url: string): Promise<void> {
  for (let i = 0; i < 20; i++) {
    await (await fetch(`${url}/health`)).arrayBuffer();
    await (await fetch(`${url}/api/${SECRET}?cmd=queue_count`)).arrayBuffer();
  }
}

async function measure(queued: number, plexUrl: string, token: string, dispatching: boolean): Promise<number> {
  const dir = tempDir('mem');
  try {
    const queuefile = join(dir, 'queue.db');
    // Waiting: a long delay keeps all of them queued. Dispatching: delay 0 and a Plex that refuses everything,
    // so the processor works through all of them and they stay queued with pending deliveries.
    const delay = dispatching ? 0 : 3600;
    if (queued) prefillQueue(queuefile, queued, { delayMs: delay * 1000 });
    // Dispatching: every file is there, so all of them pass the default file check and reach the refusing Plex.
    if (queued && dispatching) createMediaFiles(dir, Array.from({ length: queued }, (_, i) => prefilledFile(i)));
    const config = writeConfig(dir, { SERVER_SCAN_DELAY: delay, PLEX_LOCAL_URL: plexUrl, PLEX_TOKEN: token });
    const server = await startServer({ dir, config, queuefile });
    await exercise(server.url);
    await sleep(dispatching ? 5_000 : 1_000);
    await exercise(server.url);
    const mb = peakRssMb(server.pid);
    await server.stop();
    return mb;
  } finally {
    cleanup(dir);
  }
}

/** `--by-part`: the table of bench/memory-parts.ts on each tested Node, medians of BENCH_IDLE_ROUNDS rounds. */
async function byPart(): Promise<Figure[]> {
  const plex = await new FakePlex({ sections: [{ key: '2', title: 'TV', type: 'show', locations: ['/data/media/tv'] }] }).start();
  const parts = await buildParts();
  const nodes = testedNodes();
  const figures: Figure[] = [];
  try {
    for (const node of nodes) {
      const version = versionOf(node);
      const rounds: PartRss[][] = [];
      for (let r = 0; r < IDLE_ROUNDS; r++) {
        const dir = tempDir('mem-parts');
        try {
          const config = writeConfig(dir, { PLEX_LOCAL_URL: plex.url, PLEX_TOKEN: plex.token });
          rounds.push(await partsRound(node, parts, dir, () => startServer({ dir, config, queuefile: join(dir, 'queue.db'), node }), IDLE_MS));
        } finally {
          cleanup(dir);
        }
        log(`by part on Node ${version}, round ${r + 1}/${IDLE_ROUNDS} done`);
      }
      const names = rounds[0].map((p) => p.name);
      const rss = names.map((_, i) => median(rounds.map((round) => round[i].rss)));
      const anon = names.map((_, i) => median(rounds.map((round) => round[i].anon)));
      const file = names.map((_, i) => median(rounds.map((round) => round[i].file)));
      const signed = (x: number) => `${x >= 0 ? '+' : ''}${x.toFixed(1)}`;
      const lines = names.map((name, i) => {
        // Steps: each part against the one before it; the first part against the bare server with the same flags.
        const before = i >= 2 ? i - 1 : 0;
        const step = i === 0 ? '' : signed(rss[i] - rss[before]);
        return `| ${name} | ${rss[i].toFixed(1)} | ${step} | ${signed(rss[i] - rss[0])} | ${signed(anon[i] - anon[0])} | ${signed(file[i] - file[0])} |`;
      });
      process.stdout.write(
        `\nIdle RSS after ${IDLE_MS / 1000} s by part, Node ${version}, median of ${rounds.length} (flags: ${serverFlags().join(' ') || 'none'})\n` +
          `| program (each adds to the one above; the relay is the real one) | RSS MB | step MB | above bare MB | of it anonymous | of it file pages |\n|---|---:|---:|---:|---:|---:|\n${lines.join('\n')}\n`,
      );
      const relay = rss.at(-1)!;
      figures.push({ id: '4', name: `memory by part: the relay after ${IDLE_MS / 1000} s idle, Node ${version}`, value: relay - rss[0], unit: 'MB', baseline: { label: 'bare Node http, no flags', value: rss[0] }, ratio: relay / rss[0], target: `<= ${IDLE_ALLOWANCE_MB} MB above bare`, pass: relay - rss[0] <= IDLE_ALLOWANCE_MB });
    }
  } finally {
    await plex.stop();
  }
  return figures;
}

export async function run(): Promise<Figure[]> {
  if (process.argv.includes('--by-part')) return byPart();
  const sideBySide = await idleFigures();
  if (process.argv.includes('--idle')) return sideBySide;
  const plex = await new FakePlex({ sections: [{ key: '2', title: 'TV', type: 'show', locations: ['/data/media/tv'] }] }).start();
  plex.failure = { status: 503 };
  const bare: number[] = [];
  const idle: number[] = [];
  const full: number[] = [];
  const busy: number[] = [];
  try {
    for (let r = 0; r < ROUNDS; r++) {
      const b = await startBare();
      for (let i = 0; i < 20; i++) await (await fetch(b.url)).arrayBuffer();
      bare.push(peakRssMb(b.pid));
      await b.stop();
      idle.push(await measure(0, plex.url, plex.token, false));
      full.push(await measure(FOLDERS, plex.url, plex.token, false));
      busy.push(await measure(FOLDERS, plex.url, plex.token, true));
      log(`memory round ${r + 1}/${ROUNDS}: bare ${bare[r].toFixed(1)} MB, idle ${idle[r].toFixed(1)} MB, 100k waiting ${full[r].toFixed(1)} MB, 100k dispatching to a refusing Plex ${busy[r].toFixed(1)} MB`);
    }
  } finally {
    await plex.stop();
  }
  const base = median(bare);
  const fig = (name: string, values: number[], limit: number): Figure => {
    const v = median(values);
    return {
      id: '4',
      name: `${name} (median of ${values.length})`,
      value: v,
      unit: 'MB',
      baseline: { label: 'bare Node http process', value: base },
      ratio: v / base,
      target: `< ${limit} MB`,
      pass: v < limit,
      note: v < limit ? undefined : 'peak RSS over target',
    };
  };
  return [
    ...sideBySide,
    fig('memory: peak RSS idle', idle, 100),
    fig('memory: peak RSS with 100,000 folders queued (waiting)', full, 250),
    fig('memory: peak RSS with 100,000 folders queued (all due, Plex refusing)', busy, 250),
  ];
}

await standalone(import.meta.url, run);
