// The Node flags the server runs with. `npm start`, the image and the systemd unit start Node with NODE_FLAGS;
// `scanrelay server` started with no Node flag at all (npx, the installed command, `node dist/scanrelay.mjs`)
// starts itself again with them, in place (relaunch, below); a server that runs without them says so at start.
//
// Why the heap flags: V8 lets the old generation grow between collections by a factor whose ceiling depends on
// the heap limit (1.3 at 256 MB, about 1.4 at 512 MB, 2 just under 2 GB, 4 from 2 GB up), and Node's default
// limit is 2-4 GB on any machine with a few GB of memory. Under a sustained webhook load that let the heap reach
// about 90 MB between collections, and the young generation grew to two 16 MB semi-spaces: 170-190 MB of RSS,
// where these flags keep it at 115-130 MB for the same work and CPU. 512 MB is several times what the server's
// heap holds in any benchmark.
//
// Why --expose-gc (one of Node's own options, `node --help`): the global `gc` the quiet-time collection runs
// (src/idle-memory.ts), which gives back what loading and requests grew the young generation to
// (docs/performance.md, idle memory: about 8 MB of an idle relay on Node 24). Without it the trim is off; nothing
// sets it at run time.
//
// Nothing else: no V8 compiler flag (a later V8 may rename or drop one, and then `node` refuses to start).
import { getHeapStatistics } from 'node:v8';

export const HEAP_FLAGS = ['--max-semi-space-size=8', '--max-old-space-size=512'] as const;
export const NODE_FLAGS = [...HEAP_FLAGS, '--expose-gc'] as const;

/** Above this limit V8's growth factor is over 1.6: the heap flags (or NODE_OPTIONS) were not given. */
const LARGE_LIMIT_BYTES = 1024 * 1024 * 1024;

/**
 * How this Node was started, as far as the relaunch needs it. `execve`: Node's process.execve (22.15 and later,
 * not on Windows), which replaces the running program with another in the same process: same PID, same standard
 * streams, nothing run twice.
 */
export interface Launch {
  argv: readonly string[];
  execArgv: readonly string[];
  execPath: string;
  env: NodeJS.ProcessEnv;
  /** An IPC channel from a parent (child_process.fork, a process manager): execve would not keep it. */
  hasChannel: boolean;
  execve: ((file: string, args: string[], env: NodeJS.ProcessEnv) => void) | undefined;
}

/** Set in the environment of the relaunched program, so it can say it was; removed there at once. */
export const RELAUNCHED_ENV = 'SCANRELAY_RELAUNCHED';

/**
 * The command line that starts this program again with NODE_FLAGS, or undefined when it runs as started: it was
 * given Node flags or NODE_OPTIONS (the user chose how Node runs: a flag of ours on the command line would
 * override theirs), it is the relaunched one already, a parent talks to it over IPC, or Node cannot execve.
 */
export function relaunchArgs(launch: Launch): string[] | undefined {
  if (!launch.execve || launch.hasChannel || launch.execArgv.length > 0) return undefined;
  if ((launch.env.NODE_OPTIONS ?? '').trim() !== '' || launch.env[RELAUNCHED_ENV] !== undefined) return undefined;
  return [launch.execPath, ...NODE_FLAGS, ...launch.argv.slice(1)];
}

const thisLaunch = (): Launch => ({
  argv: process.argv,
  execArgv: process.execArgv,
  execPath: process.execPath,
  env: process.env,
  hasChannel: process.channel !== undefined,
  // Not in @types/node 20, which the code is written against (README, "Node versions").
  execve: (process as { execve?: Launch['execve'] }).execve?.bind(process),
});

/**
 * Starts `scanrelay server` again with NODE_FLAGS when it was started without any Node flag, so the command people
 * run (npx, the installed command) runs as npm start, the image and the unit do: the heap flags hold it to
 * 115-130 MB under load instead of 170-230, and `--expose-gc` lets the quiet-time collection give back what start-up
 * grew (on Node 24 an idle relay otherwise keeps it: V8's own memory reducer never runs in it, docs/performance.md).
 * Called before anything is loaded, opened or written. Returns only when it did not relaunch; an execve that fails
 * leaves the program running as started (the start-up line then says how to pass the flags).
 */
export function relaunchWithFlags(launch: Launch = thisLaunch()): boolean {
  const args = relaunchArgs(launch);
  if (!args) return false;
  try {
    launch.execve!(launch.execPath, args, { ...launch.env, [RELAUNCHED_ENV]: '1' });
  } catch {
    return false;
  }
  return true;
}

/** True in the relaunched program (once: the mark leaves the environment, so nothing the relay runs inherits it). */
export function wasRelaunched(env: NodeJS.ProcessEnv = process.env): boolean {
  const relaunched = env[RELAUNCHED_ENV] !== undefined;
  delete env[RELAUNCHED_ENV];
  return relaunched;
}

export interface NodeRun {
  heapLimitBytes: number;
}

const thisNode = (): NodeRun => ({ heapLimitBytes: getHeapStatistics().heap_size_limit });

/** One line for the start of the server when Node runs without the server's heap flags, else undefined. */
export function flagAdvice(run: NodeRun = thisNode()): string | undefined {
  if (run.heapLimitBytes <= LARGE_LIMIT_BYTES) return undefined;
  return (
    `Node runs with a heap limit of ${Math.round(run.heapLimitBytes / 1024 / 1024)} MB, so under load this server holds 40-100 MB more memory than it needs. ` +
    `npm start, the Docker image and the systemd unit start it as \`node ${NODE_FLAGS.join(' ')} dist/scanrelay.mjs server\`: ` +
    `start it the same way (an installed command: \`node ${NODE_FLAGS.join(' ')} "$(command -v scanrelay)" server\`), or put them in NODE_OPTIONS (Node takes all three there). ` +
    `(\`scanrelay server\` given no Node flag and no NODE_OPTIONS starts itself with them on Node 22.15 and later, not on Windows.)`
  );
}
