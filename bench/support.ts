// Shared helpers of the benchmarks: the built CLI as a child process, queue prefill, peak RSS, medians, the table.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { request, type Agent } from 'node:http';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ManualClock } from '../src/clock.js';
import { Queue, type FolderRequest } from '../src/queue/store.js';
import { sqliteBindingPath } from '../src/sqlite/binding.js';
import { writeConfigFile } from '../test/support/config-file.js';
import { NODE_FLAGS } from '../test/support/launch.js';
import { until } from '../test/support/until.js';

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const SECRET = 'be9c1a7e5d3f4b2a8c6e0f1d2b3a4c5d';
/**
 * The Node flags every server of the benchmarks starts with: the launchers' (`npm start`), unless
 * BENCH_NODE_FLAGS names others, to measure what a flag changes (an empty string: Node's defaults).
 */
const SERVER_FLAGS: readonly string[] = process.env.BENCH_NODE_FLAGS === undefined ? NODE_FLAGS : process.env.BENCH_NODE_FLAGS.split(' ').filter(Boolean);

/** The Node flags the benchmarks' servers start with (NODE_FLAGS unless BENCH_NODE_FLAGS says otherwise). */
export const serverFlags = (): string[] => [...SERVER_FLAGS];

/** One line of the table. */
export interface Figure {
  id: string;
  name: string;
  value: number;
  unit: string;
  baseline?: { label: string; value: number; unit?: string };
  /** value / baseline (or as the bench defines it). */
  ratio?: number;
  target: string;
  pass: boolean;
  note?: string;
}

export const median = (xs: number[]): number => {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export function tempDir(prefix: string): string {
  return mkdtempSync(join(tmpdir(), `scanrelay-bench-${prefix}-`));
}

export function cleanup(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

let built: string | undefined;
/**
 * The CLI as `npm start` runs it (the bundle scripts/bundle.mjs builds, not tsx), built once per bench run into
 * node_modules/.cache so module resolution still finds the project's node_modules.
 */
export function builtCli(): string {
  if (built) return built;
  // Per checkout: two checkouts sharing one node_modules must not build over each other.
  const out = join(repoRoot, 'node_modules', '.cache', `scanrelay-bench-${createHash('sha1').update(repoRoot).digest('hex').slice(0, 8)}`, 'dist', 'scanrelay.mjs');
  execFileSync(process.execPath, [join(repoRoot, 'scripts', 'bundle.mjs'), out], { cwd: repoRoot, stdio: 'pipe' });
  built = out;
  return built;
}

/** Where the benchmarks' media files live on this machine: Plex's /data/media/tv/ as a user's mount would be. */
export function mediaDir(dir: string): string {
  return join(dir, 'media', 'tv');
}

/**
 * The config a user writes on top of the defaults: the secret, where Plex is, and the two path mappings (the
 * arr's /tv/ is Plex's /data/media/tv/, which this machine sees at mediaDir). Everything else is the default:
 * file checks on, scans followed and confirmed.
 */
export function writeConfig(dir: string, values: Record<string, unknown>): string {
  return writeConfigFile(dir, {
    SERVER_PASS: SECRET,
    SERVER_IP: '127.0.0.1',
    SERVER_PORT: 3468,
    PLEX_SCAN_MODE: 'api',
    SERVER_PATH_MAPPINGS: { '/data/media/tv/': ['/tv/'] },
    SERVER_FILE_EXIST_PATH_MAPPINGS: { [`${mediaDir(dir)}/`]: ['/data/media/tv/'] },
    ...values,
  });
}

/** Creates the episode files that requests name (as Plex sees them, under /data/media/tv/) on the bench's disk. */
export function createMediaFiles(dir: string, plexPaths: Iterable<string>): void {
  const root = mediaDir(dir);
  const made = new Set<string>();
  for (const path of plexPaths) {
    const local = join(root, path.slice('/data/media/tv/'.length));
    const parent = dirname(local);
    if (!made.has(parent)) {
      mkdirSync(parent, { recursive: true });
      made.add(parent);
    }
    writeFileSync(local, '');
  }
}

/** The episode file prefillQueue names for folder i. */
export const prefilledFile = (i: number, prefix = '/data/media/tv/Show') => `${prefix} ${i}/Season 01/e01.mkv`;

export interface ServerChild {
  proc: ChildProcess;
  pid: number;
  url: string;
  exited: Promise<number | null>;
  /** Last few KiB of output. */
  tail(): string;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Launches `scanrelay server` as `npm start` does (the built CLI, the Node flags NODE_FLAGS or BENCH_NODE_FLAGS) and resolves once it prints its URL. */
export function spawnServer(opts: {
  dir: string;
  config: string;
  queuefile: string;
  port?: number;
  loglevel?: string;
  /**
   * 'file': the server's console goes to a file, as under systemd or Docker's log driver, so this process
   * (which also runs the load generator) does not spend its CPU reading the server's log lines.
   */
  console?: 'pipe' | 'file';
  /** The Node binary to run it with (default: the one running the benchmarks). */
  node?: string;
  /** The Node flags in place of the launchers' (NODE_FLAGS or BENCH_NODE_FLAGS); [] starts it as `npx scanrelay` does. */
  nodeFlags?: readonly string[];
  /** More Node flags, after the server's. */
  nodeArgs?: string[];
  /** Another build of the CLI (a scanrelay.mjs), to compare against this checkout's. */
  cli?: string;
  /** More environment, over this process's (the launchers' MALLOC_ENV). */
  env?: Record<string, string>;
}): {
  proc: ChildProcess;
  ready: Promise<ServerChild>;
} {
  const args = [...(opts.nodeFlags ?? SERVER_FLAGS), ...(opts.nodeArgs ?? []), opts.cli ?? builtCli(), '--config', opts.config, '--queuefile', opts.queuefile, '--logfile', join(opts.dir, 'scanrelay.log')];
  if (opts.loglevel) args.push('--loglevel', opts.loglevel);
  args.push('server', '--port', String(opts.port ?? 0));
  if (opts.console === 'file') return spawnToFile(opts.dir, args, opts.env);
  const proc = spawn(opts.node ?? process.execPath, args, { cwd: opts.dir, stdio: ['ignore', 'pipe', 'pipe'], env: opts.env ? { ...process.env, ...opts.env } : undefined });
  let out = '';
  const keep = (d: Buffer) => {
    out = (out + d.toString()).slice(-16_384);
  };
  const exited = new Promise<number | null>((r) => proc.on('exit', (code) => r(code)));
  const ready = new Promise<ServerChild>((resolveReady, reject) => {
    let buf = '';
    const onData = (d: Buffer) => {
      keep(d);
      if (buf === null) return;
      buf += d.toString();
      const m = /(http:\/\/127\.0\.0\.1:\d+)\/[0-9a-f]{32}/.exec(buf);
      if (m) {
        buf = null as unknown as string;
        clearTimeout(timer);
        resolveReady({
          proc,
          pid: proc.pid!,
          url: m[1],
          exited,
          tail: () => out,
          async stop(signal = 'SIGTERM') {
            if (proc.exitCode === null && proc.signalCode === null) proc.kill(signal);
            return exited;
          },
        });
      } else if (buf.length > 1_000_000) buf = buf.slice(-10_000);
    };
    proc.stdout!.on('data', onData);
    proc.stderr!.on('data', keep);
    const timer = setTimeout(() => {
      proc.kill('SIGKILL');
      reject(new Error(`server did not start in 30 s:\n${out}`));
    }, 30_000);
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`server exited before it was ready:\n${out}`));
    });
  });
  return { proc, ready };
}

function spawnToFile(dir: string, args: string[], env?: Record<string, string>): { proc: ChildProcess; ready: Promise<ServerChild> } {
  const file = join(dir, 'console.out');
  const fd = openSync(file, 'a');
  const proc = spawn(process.execPath, args, { cwd: dir, stdio: ['ignore', fd, fd], env: env ? { ...process.env, ...env } : undefined });
  closeSync(fd);
  const tail = () => {
    try {
      return readFileSync(file, 'utf8').slice(-16_384);
    } catch {
      return '';
    }
  };
  const exited = new Promise<number | null>((r) => proc.on('exit', (code) => r(code)));
  const ready = (async (): Promise<ServerChild> => {
    const deadline = Date.now() + 30_000;
    let gone = false;
    void exited.then(() => (gone = true));
    for (;;) {
      const m = /(http:\/\/127\.0\.0\.1:\d+)\/[0-9a-f]{32}/.exec(tail());
      if (m) {
        return {
          proc,
          pid: proc.pid!,
          url: m[1],
          exited,
          tail,
          async stop(signal = 'SIGTERM') {
            if (proc.exitCode === null && proc.signalCode === null) proc.kill(signal);
            return exited;
          },
        };
      }
      if (gone) throw new Error(`server exited before it was ready:\n${tail()}`);
      if (Date.now() > deadline) {
        proc.kill('SIGKILL');
        throw new Error(`server did not start in 30 s:\n${tail()}`);
      }
      await sleep(10);
    }
  })();
  return { proc, ready };
}

export async function startServer(opts: Parameters<typeof spawnServer>[0]): Promise<ServerChild> {
  return spawnServer(opts).ready;
}

/**
 * A bare Node `http` server in its own process, answering {"ok":true} once the body is read. `parse`: it reads
 * the body as text and JSON.parses it; `burnUs`: then spends that much CPU before answering.
 */
function bareServer({ parse = false, burnUs = 0 }: { parse?: boolean; burnUs?: number } = {}): string {
  const read = parse ? `let body = ''; req.setEncoding('utf8'); req.on('data', (d) => { body += d; });` : `req.on('data', () => {});`;
  const work = [parse ? 'JSON.parse(body);' : '', burnUs > 0 ? `const t = process.hrtime.bigint(); while (process.hrtime.bigint() - t < ${burnUs * 1000}n);` : ''].join(' ');
  return `
const http = require('http');
const s = http.createServer((req, res) => {
  ${read}
  req.on('end', () => { ${work} res.writeHead(200, { 'content-type': 'application/json' }); res.end('{"ok":true}'); });
});
s.keepAliveTimeout = 10000;
s.listen(Number(process.argv[1] || 0), '127.0.0.1', () => console.log('http://127.0.0.1:' + s.address().port));
process.on('SIGTERM', () => process.exit(0));
`;
}

/**
 * The least a receiver that never loses a request does: bare Node http that JSON.parses the body, takes the
 * folder out of the Sonarr payload, writes it to a SQLite file (WAL, synchronous NORMAL, as the queue does) in
 * one transaction per turn of the event loop, and answers each request once that transaction has committed.
 */
export function durableFloorServer(dbFile: string): string {
  return `
const http = require('http');
const Database = require(${JSON.stringify(sqliteBindingPath)});
const db = new Database(${JSON.stringify(dbFile)});
db.pragma('journal_mode = WAL');
db.pragma('synchronous = NORMAL');
db.exec('CREATE TABLE IF NOT EXISTS folders (folder TEXT PRIMARY KEY, requests INTEGER NOT NULL)');
const upsert = db.prepare('INSERT INTO folders (folder, requests) VALUES (?, 1) ON CONFLICT(folder) DO UPDATE SET requests = requests + 1');
const write = db.transaction((batch) => { for (const [folder] of batch) upsert.run(folder); });
let waiting = [];
function commit() {
  const batch = waiting;
  waiting = [];
  write(batch);
  for (const [, res] of batch) { res.writeHead(200, { 'content-type': 'application/json' }); res.end('{"ok":true}'); }
}
const s = http.createServer((req, res) => {
  let body = ''; req.setEncoding('utf8'); req.on('data', (d) => { body += d; });
  req.on('end', () => {
    const p = JSON.parse(body);
    const file = p.episodeFile.relativePath;
    if (waiting.length === 0) setImmediate(commit);
    waiting.push([p.series.path + '/' + file.slice(0, file.lastIndexOf('/')), res]);
  });
});
s.keepAliveTimeout = 10000;
s.listen(Number(process.argv[1] || 0), '127.0.0.1', () => console.log('http://127.0.0.1:' + s.address().port));
process.on('SIGTERM', () => process.exit(0));
`;
}

/** The intake baseline: bare Node http that only reads the body. */
export const BARE_SERVER = bareServer();

/**
 * Floors under the intake, driven like the bare server: what any JSON webhook receiver does at least. 'parse':
 * bare Node http that also reads the body as text and JSON.parses it. 'busy': the same, then 100 µs of CPU, a
 * receiver that costs about what scanrelay's intake does (for its p99). 'fastify': Fastify with its default JSON
 * parser and one POST route answering {"ok":true} (no hooks, no log, no schema).
 */
export const FLOOR_SERVERS = {
  parse: bareServer({ parse: true }),
  busy: bareServer({ parse: true, burnUs: 100 }),
  fastify: `
const app = require(${JSON.stringify(join(repoRoot, 'node_modules', 'fastify'))})({ logger: false });
app.post('/:secret', async () => ({ ok: true }));
app.listen({ port: Number(process.argv[1] || 0), host: '127.0.0.1' }).then((url) => console.log(url));
process.on('SIGTERM', () => process.exit(0));
`,
} as const;

export async function startBare(port = 0, script: string = BARE_SERVER, node: string = process.execPath, nodeFlags: readonly string[] = []): Promise<ServerChild> {
  return spawnScript(node, nodeFlags, ['-e', script, String(port)]);
}

/** A program that prints its URL as its first line of output, started as `node <flags> <args>`. */
export async function spawnScript(node: string, nodeFlags: readonly string[], args: string[]): Promise<ServerChild> {
  const proc = spawn(node, [...nodeFlags, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise<number | null>((r) => proc.on('exit', (code) => r(code)));
  const url = await new Promise<string>((res, rej) => {
    const t = setTimeout(() => rej(new Error('bare server did not start')), 30_000);
    proc.stdout!.once('data', (d: Buffer) => {
      clearTimeout(t);
      res(d.toString().trim());
    });
  });
  return {
    proc,
    pid: proc.pid!,
    url,
    exited,
    tail: () => '',
    async stop(signal = 'SIGTERM') {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill(signal);
      return exited;
    },
  };
}

/** Peak resident set size of a live process (Linux VmHWM), in MB. */
export function peakRssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const m = /VmHWM:\s+(\d+)\s+kB/.exec(status);
  if (!m) throw new Error('no VmHWM in /proc/<pid>/status');
  return Number(m[1]) / 1024;
}

/** Polls GET /health until it answers 200; returns when it did (ms since the epoch). */
export async function waitHealth(url: string, timeoutMs = 30_000, everyMs = 5): Promise<number> {
  const healthy = async () => {
    try {
      const res = await fetch(`${url}/health`, { signal: AbortSignal.timeout(2_000) });
      await res.arrayBuffer();
      return res.status === 200;
    } catch {
      return false; // not listening yet
    }
  };
  await until(healthy, { ms: timeoutMs, every: everyMs, what: `no /health 200 from ${url}` });
  return Date.now();
}

/** Writes `n` queued folders straight into a queue file (as if n requests had been acknowledged). */
export function prefillQueue(file: string, n: number, opts: { delayMs: number; prefix?: string }): void {
  const q = new Queue(file, new ManualClock(Date.now()), { delayMs: opts.delayMs });
  const prefix = opts.prefix ?? '/data/media/tv/Show';
  const batch: FolderRequest[] = [];
  for (let i = 0; i < n; i++) {
    batch.push({ folder: `${prefix} ${i}/Season 01`, priority: 0, source: 'sonarr', event: 'Download', fileHint: prefilledFile(i, prefix), deleted: false });
    if (batch.length === 5_000 || i === n - 1) {
      q.enqueueMany(batch);
      batch.length = 0;
    }
  }
  q.db.pragma('wal_checkpoint(TRUNCATE)');
  q.close();
}

/** POSTs a JSON body to the relay over `agent`; resolves once it is answered (whatever the status) or failed. */
export function postJson(agent: Agent, url: URL, body: string): Promise<void> {
  return new Promise<void>((resolve) => {
    const req = request({ agent, host: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
      res.resume();
      res.on('end', () => resolve());
    });
    req.on('error', () => resolve());
    req.end(body);
  });
}

/** A Sonarr v3 "Download" (On Import) webhook for one episode file. */
export function sonarrDownload(show: string, season = 1, episode = 1): string {
  const s = String(season).padStart(2, '0');
  const e = String(episode).padStart(2, '0');
  return JSON.stringify({
    episodes: [{ id: 2210 + episode, episodeNumber: episode, seasonNumber: season, title: `Episode ${episode}`, airDate: '2019-12-22', quality: 'WEBDL-1080p', qualityVersion: 1, releaseGroup: 'NTb' }],
    episodeFile: {
      id: 1804,
      relativePath: `Season ${s}/${show} - S${s}E${e} - Episode WEBDL-1080p.mkv`,
      path: `/tv/${show}/Season ${s}/${show} - S${s}E${e} - Episode WEBDL-1080p.mkv`,
      quality: 'WEBDL-1080p',
      qualityVersion: 1,
      releaseGroup: 'NTb',
      size: 3315040000,
    },
    isUpgrade: false,
    downloadClient: 'NZBGet',
    downloadId: 'NZBGet_1133',
    series: { id: 17, title: show, path: `/tv/${show}`, tvdbId: 289590, imdbId: 'tt4158110', type: 'standard' },
    eventType: 'Download',
  });
}

export const num = (v: number, unit?: string): string => {
  if (!Number.isFinite(v)) return String(v);
  const abs = Math.abs(v);
  const s = abs >= 1000 ? Math.round(v).toLocaleString('en-US') : abs >= 100 ? v.toFixed(0) : abs >= 10 ? v.toFixed(1) : v.toFixed(2);
  return unit ? `${s} ${unit}` : s;
};

/** The table as Markdown (printed as is, and written to docs/performance.md). */
export function table(figures: Figure[]): string {
  const head = '| # | figure | value | baseline (same run) | ratio | target | result |\n|---|---|---|---|---|---|---|';
  const lines = figures.map((f) => {
    const base = f.baseline ? `${num(f.baseline.value, f.baseline.unit ?? f.unit)} (${f.baseline.label})` : '—';
    const ratio = f.ratio === undefined || !Number.isFinite(f.ratio) ? '—' : f.ratio.toFixed(f.ratio < 0.1 ? 3 : 2);
    const result = f.pass ? 'PASS' : `NOTE: ${f.note ?? 'misses its target'}`;
    const name = f.pass && f.note ? `${f.name} (${f.note})` : f.name;
    return `| ${f.id} | ${name} | ${num(f.value, f.unit)} | ${base} | ${ratio} | ${f.target} | ${result} |`;
  });
  return [head, ...lines].join('\n');
}

/** Prints a bench's figures when its file is run on its own. */
export async function standalone(url: string, run: () => Promise<Figure[]>): Promise<void> {
  if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(url)) {
    const figures = await run();
    process.stdout.write(`${table(figures)}\n`);
    process.exit(0);
  }
}

export function log(msg: string): void {
  process.stderr.write(`[bench] ${msg}\n`);
}

/**
 * A config as a user writes it: only the secret, the listen address, a Plex URL and token, the path mapping
 * from the arr app's paths to Plex's, and the file-exist mapping to where this machine sees the media. Every
 * other key keeps its default (SERVER_SCAN_DELAY 180 s, file checks on, PLEX_CONFIRM_SCANS on).
 */
export function writeUserConfig(dir: string, values: { mediaDir: string } & Record<string, unknown>): string {
  const { mediaDir, ...rest } = values;
  return writeConfigFile(dir, {
    SERVER_PASS: SECRET,
    SERVER_IP: '127.0.0.1',
    SERVER_PATH_MAPPINGS: { '/data/media/tv/': ['/tv/'] },
    SERVER_FILE_EXIST_PATH_MAPPINGS: { [`${mediaDir.replace(/\/$/, '')}/tv/`]: ['/data/media/tv/'] },
    ...rest,
  });
}

/**
 * `scanrelay server` like spawnServer with its console in a file, with extra Node flags in front of the CLI
 * (--cpu-prof, --trace-gc, --import of a probe) and extra environment variables.
 */
export function startServerWith(opts: Parameters<typeof spawnServer>[0] & { nodeArgs?: string[]; env?: Record<string, string> }): Promise<ServerChild> {
  const args = [...SERVER_FLAGS, ...(opts.nodeArgs ?? []), builtCli(), '--config', opts.config, '--queuefile', opts.queuefile, '--logfile', join(opts.dir, 'scanrelay.log')];
  if (opts.loglevel) args.push('--loglevel', opts.loglevel);
  args.push('server', '--port', String(opts.port ?? 0));
  return spawnToFile(opts.dir, args, opts.env).ready;
}

/** Resident set size of a live process right now (Linux VmRSS), in MB. */
export function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!m) throw new Error('no VmRSS in /proc/<pid>/status');
  return Number(m[1]) / 1024;
}

/** CPU seconds (user + system) a live process has used so far. */
export function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name, which is in parentheses and may hold spaces.
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) / 100; // utime, stime in clock ticks (USER_HZ = 100 on Linux)
}

/** The 1-minute load average and the core count, for saying how busy the shared machine was. */
export function loadNote(): string {
  const [one] = readFileSync('/proc/loadavg', 'utf8').split(' ');
  return `load ${one} on ${cpus().length} cores`;
}
