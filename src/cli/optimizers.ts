// V8's optimizing compilers (TurboFan, and Maglev from Node 22) are held while the server starts, and released
// the first time it is busy.
//
// Why: the first optimization touches megabytes of the optimizing compilers' own code in the Node binary and
// leaves their working memory with malloc, and V8 optimizes whatever ran often for a moment: the start-up code,
// which runs once (the config's schema, the route tables, the modules' set-up), and, released at start, one of
// Node's small functions a few seconds later (Node 20; an idle relay's stat or timer code on Node 24). A relay
// that idles, or gets a few webhooks an hour, kept that all year: 3.3 MB of RSS on Node 20 and 2.2 MB on Node 24
// (docs/performance.md, memory). Held, its code runs in V8's interpreter and baseline compiler, which at that
// load costs a fraction of a millisecond a request; once the event loop is busy more than 5% of a 2 s spell
// (a burst of webhooks, a queue to dispatch) they are released for good and the busy code is optimized from then
// on (on the main thread where the launchers' --no-concurrent-recompilation is given, src/cli/node-flags.ts).
//
// The launchers pass --no-turbofan --no-maglev (NODE_FLAGS) so that Node's own start, before this file runs, is
// held too (on Node 24 one function of Node's path handling was optimized there, and that alone touched the
// compiler's code). A Node started another way is held from the entry on. A Node run with --jitless is left
// alone. V8 reads both flags at each decision to optimize (its tiering manager), so setting them at run time
// takes effect at once; a test proves that for this Node (test/cli/optimizers.test.ts).
import { performance } from 'node:perf_hooks';
import { setFlagsFromString } from 'node:v8';

/** The flags that hold them; the launchers' NODE_FLAGS carry the same. */
export const HOLD_FLAGS = ['--no-turbofan', '--no-maglev'] as const;

let held = false;

const jitless = (): boolean => process.execArgv.includes('--jitless') || /(^|\s)--jitless\b/.test(process.env.NODE_OPTIONS ?? '');

/** Maglev is on by default where this Node's V8 has it built in and is 12 or later (Node 22 on); Node 20 ships it off. */
export function maglevByDefault(v8Version = process.versions.v8, built = (process.config.variables as { v8_enable_maglev?: number }).v8_enable_maglev): boolean {
  return built === 1 && Number(v8Version.split('.')[0]) >= 12;
}

/** Called first of all, by the entry: no optimization until releaseOptimizers(). */
export function holdOptimizers(): void {
  if (jitless()) return;
  for (const flag of HOLD_FLAGS) setFlagsFromString(flag);
  held = true;
}

/**
 * Gives the compilers back as Node has them by default: at the server's first busy spell (releaseWhenBusy), for
 * every other command before it starts its work. Also when the launchers' flags held them and the entry did not
 * run first.
 */
export function releaseOptimizers(): void {
  if (jitless()) return;
  if (!held && !HOLD_FLAGS.some((flag) => process.execArgv.includes(flag))) return;
  setFlagsFromString('--turbofan');
  if (maglevByDefault()) setFlagsFromString('--maglev');
  held = false;
}

export interface BusyWatchOptions {
  /** How long a spell is. */
  everyMs: number;
  /** The share of a spell the event loop must have been busy for. */
  busyShare: number;
  /** The event loop's busy share since the last call. */
  utilization: () => number;
  release: () => void;
}

/** Releases at the end of the first spell busy enough; true once it has. */
export class BusyWatch {
  private released = false;

  constructor(private readonly opts: Pick<BusyWatchOptions, 'busyShare' | 'utilization' | 'release'>) {}

  tick(): boolean {
    if (this.released) return true;
    if (this.opts.utilization() <= this.opts.busyShare) return false;
    this.released = true;
    this.opts.release();
    return true;
  }
}

/** The event loop's utilization (Node's own measure: the share of time not waiting for events) between calls. */
function loopUtilization(): () => number {
  let last = performance.eventLoopUtilization();
  return () => {
    const now = performance.eventLoopUtilization();
    const share = performance.eventLoopUtilization(now, last).utilization;
    last = now;
    return share;
  };
}

/** The server's watch: every 2 s, off the event loop's books; stops once it released. Returns a stop function. */
export function releaseWhenBusy(opts: Partial<BusyWatchOptions> = {}): () => void {
  const watch = new BusyWatch({ busyShare: opts.busyShare ?? 0.05, utilization: opts.utilization ?? loopUtilization(), release: opts.release ?? releaseOptimizers });
  const timer = setInterval(() => {
    if (watch.tick()) clearInterval(timer);
  }, opts.everyMs ?? 2_000);
  timer.unref();
  return () => clearInterval(timer);
}
