// How the server's Node is started: the Node flags (NODE_FLAGS) and one setting of the C library's malloc
// (MALLOC_ENV). The image and the systemd unit start it with both; `npm start` passes the flags, and a
// `scanrelay server` started without part of them starts itself again with all of it (src/cli/relaunch.ts); a
// server that runs without the flags says so at start.
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
//
// Why MALLOC_TRIM_THRESHOLD_ (glibc's malloc, mallopt(3), an environment variable read when a program starts):
// glibc raises its mmap threshold each time a block it had mmapped is freed, up to 32 MiB, and its trim threshold
// with it, so after start-up (V8 and Node free a few such blocks) large blocks come from the main heap and what is
// freed there stays resident. Setting any of these thresholds turns that adjustment off; this one is set to its
// default, 128 KiB. An idle relay's malloc heap was 6.3 MB with the adjustment and 4.0 MB without it, on Node 24
// (docs/performance.md). musl (Alpine) and macOS ignore the variable.
import { getHeapStatistics } from 'node:v8';

export const HEAP_FLAGS = ['--max-semi-space-size=8', '--max-old-space-size=512'] as const;
export const NODE_FLAGS = [...HEAP_FLAGS, '--expose-gc'] as const;
export const MALLOC_ENV = { MALLOC_TRIM_THRESHOLD_: '131072' } as const;

/** Above this limit V8's growth factor is over 1.6: the heap flags (or NODE_OPTIONS) were not given. */
const LARGE_LIMIT_BYTES = 1024 * 1024 * 1024;

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
