// Starts `scanrelay server` again, in place, with the launch setting (src/cli/node-flags.ts) it was started without,
// so the command people run (npx, the installed command, npm start) runs as the image and the unit do. Node's
// process.execve (22.15 and later, not on Windows) replaces the running program with another in the same process:
// same PID, same standard streams, nothing run twice. Called before anything is loaded, opened or written.
import { MALLOC_ENV, NODE_FLAGS } from './node-flags.js';

/** How this Node was started, as far as the relaunch needs it. */
export interface Launch {
  argv: readonly string[];
  execArgv: readonly string[];
  execPath: string;
  env: NodeJS.ProcessEnv;
  platform: NodeJS.Platform;
  /** An IPC channel from a parent (child_process.fork, a process manager): execve would not keep it. */
  hasChannel: boolean;
  execve: ((file: string, args: string[], env: NodeJS.ProcessEnv) => void) | undefined;
}

/** Set in the environment of the relaunched program to what was added, so it can say so; removed there at once. */
export const RELAUNCHED_ENV = 'SCANRELAY_RELAUNCHED';

export interface Relaunch {
  args: string[];
  env: NodeJS.ProcessEnv;
  /** What was added, for the start-up line. */
  added: string;
}

const sameFlags = (flags: readonly string[]) => flags.length === NODE_FLAGS.length && flags.every((f, i) => f === NODE_FLAGS[i]);
const mallocSet = (env: NodeJS.ProcessEnv) => Object.keys(MALLOC_ENV).some((k) => env[k] !== undefined) || env.GLIBC_TUNABLES !== undefined;

/**
 * What to start instead, or undefined to run as started. Started with no Node flag: NODE_FLAGS and MALLOC_ENV.
 * Started with exactly NODE_FLAGS (npm start) on Linux without MALLOC_ENV: the same, with MALLOC_ENV (it matters
 * only to glibc). Run as started when given other Node flags or NODE_OPTIONS (the user chose how Node runs: a flag
 * of ours on the command line would override theirs), when malloc is set already (MALLOC_* or GLIBC_TUNABLES: the
 * user's), when it is the relaunched program, when a parent talks to it over IPC, or when Node cannot execve.
 */
export function relaunchFor(launch: Launch): Relaunch | undefined {
  const { env } = launch;
  if (!launch.execve || launch.hasChannel || env[RELAUNCHED_ENV] !== undefined || (env.NODE_OPTIONS ?? '').trim() !== '') return undefined;
  const addFlags = launch.execArgv.length === 0;
  if (!addFlags && !sameFlags(launch.execArgv)) return undefined;
  const addMalloc = !mallocSet(env) && (addFlags || launch.platform === 'linux');
  if (!addFlags && !addMalloc) return undefined;
  const added = [
    ...(addFlags ? [`Node's flags ${NODE_FLAGS.join(' ')}`] : []),
    ...(addMalloc ? [Object.entries(MALLOC_ENV).map(([k, v]) => `${k}=${v}`).join(' ')] : []),
  ].join(' and ');
  return {
    args: [launch.execPath, ...(addFlags ? NODE_FLAGS : launch.execArgv), ...launch.argv.slice(1)],
    env: { ...env, ...(addMalloc ? MALLOC_ENV : {}), [RELAUNCHED_ENV]: added },
    added,
  };
}

const thisLaunch = (): Launch => ({
  argv: process.argv,
  execArgv: process.execArgv,
  execPath: process.execPath,
  env: process.env,
  platform: process.platform,
  hasChannel: process.channel !== undefined,
  // Not in @types/node 20, which the code is written against (README, "Node versions").
  execve: (process as { execve?: Launch['execve'] }).execve?.bind(process),
});

/**
 * Relaunches when relaunchFor says so: the heap flags hold the server to 115-130 MB under load instead of 170-230,
 * `--expose-gc` lets the quiet-time collection give back what start-up grew (on Node 24 an idle relay otherwise
 * keeps it: V8's own memory reducer never runs in it, docs/performance.md), MALLOC_ENV keeps malloc from holding
 * what it freed. Returns only when it did not relaunch; an execve that fails leaves the program running as started
 * (the start-up line then says how to pass the flags).
 */
export function relaunch(launch: Launch = thisLaunch()): boolean {
  const plan = relaunchFor(launch);
  if (!plan) return false;
  try {
    launch.execve!(launch.execPath, plan.args, plan.env);
  } catch {
    return false;
  }
  return true;
}

/** In the relaunched program, what was added (once: the mark leaves the environment, so nothing the relay runs inherits it). */
export function relaunchedWith(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const added = env[RELAUNCHED_ENV];
  delete env[RELAUNCHED_ENV];
  return added;
}
