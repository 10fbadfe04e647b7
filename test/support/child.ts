// Runs the real `scanrelay` CLI as a child process: dist/scanrelay.mjs, the program users start (kept current by
// test/support/dist-global.ts), or another checkout's sources through tsx.
import { spawn, type ChildProcess } from 'node:child_process';
import { repoRoot } from './fixtures.js';
import { DIST } from './dist.js';
import { lineAuditor } from './log-audit.js';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

// Resolved from the repository, so the child may run in any working directory.
const tsxLoader = pathToFileURL(join(repoRoot, 'node_modules/tsx/dist/loader.mjs')).href;

export interface Child {
  proc: ChildProcess;
  output: () => string;
  /** Resolves with the first stdout/stderr text matching `re`. */
  waitFor(re: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  exited: Promise<number | null>;
}

/** Children started by this test file and not yet exited, for killChildren. */
const running = new Set<ChildProcess>();

/**
 * `entry`: the program to run (default: this checkout's dist/scanrelay.mjs). `root`: another checkout, whose src/
 * runs through tsx (it has no build of its own).
 * `nodeArgs`: Node flags in front of the program (the launchers' NODE_FLAGS).
 */
export function runCli(args: string[], opts: { env?: NodeJS.ProcessEnv; cwd?: string; input?: string; root?: string; entry?: string; nodeArgs?: readonly string[] } = {}): Child {
  const program = opts.root && !opts.entry ? ['--import', tsxLoader, join(opts.root, 'src/cli/index.ts')] : [opts.entry ?? DIST];
  const proc = spawn(process.execPath, [...(opts.nodeArgs ?? []), ...program, ...args], {
    cwd: opts.cwd ?? repoRoot,
    env: { ...process.env, ...opts.env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  const listeners = new Set<() => void>();
  const audit = { stdout: lineAuditor(), stderr: lineAuditor() };
  const onData = (d: Buffer, from: 'stdout' | 'stderr') => {
    out += d.toString();
    audit[from](d.toString());
    listeners.forEach((l) => l());
  };
  proc.stdout!.on('data', (d: Buffer) => onData(d, 'stdout'));
  proc.stderr!.on('data', (d: Buffer) => onData(d, 'stderr'));
  if (opts.input !== undefined) proc.stdin!.end(opts.input);
  running.add(proc);
  const exited = new Promise<number | null>((resolve) => proc.on('exit', (code) => (running.delete(proc), resolve(code))));
  return {
    proc,
    output: () => out,
    exited,
    waitFor(re, timeoutMs = 15_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const m = out.match(re);
          if (m) {
            listeners.delete(check);
            clearTimeout(timer);
            resolve(m);
          }
        };
        const timer = setTimeout(() => {
          listeners.delete(check);
          reject(new Error(`timed out waiting for ${re}; output so far:\n${out}`));
        }, timeoutMs);
        listeners.add(check);
        void exited.then(() => setTimeout(() => {
          if (listeners.has(check)) {
            listeners.delete(check);
            clearTimeout(timer);
            reject(new Error(`process exited before ${re}; output:\n${out}`));
          }
        }, 50));
        check();
      });
    },
  };
}

/** Kills every child this test file started that still runs (for an afterEach or afterAll hook). */
export function killChildren(signal: NodeJS.Signals = 'SIGKILL'): void {
  for (const proc of running) if (proc.exitCode === null && proc.signalCode === null) proc.kill(signal);
}

/**
 * `scanrelay server` on a config and a queue file, with its log file and working directory in `dir` and a
 * port of its own choosing; resolves with the base URL once the server prints its webhook URL.
 */
export async function startServer(opts: { config: string; queuefile: string; dir: string; timeoutMs?: number; root?: string; entry?: string; nodeArgs?: readonly string[]; env?: NodeJS.ProcessEnv }): Promise<{ child: Child; url: string }> {
  const child = runCli(['--config', opts.config, '--queuefile', opts.queuefile, '--logfile', join(opts.dir, 'log.txt'), 'server', '--port', '0'], { cwd: opts.dir, root: opts.root, entry: opts.entry, nodeArgs: opts.nodeArgs, env: opts.env });
  const m = await child.waitFor(/(http:\/\/127\.0\.0\.1:\d+)\/[0-9a-f]{32}/, opts.timeoutMs);
  return { child, url: m[1]! };
}
