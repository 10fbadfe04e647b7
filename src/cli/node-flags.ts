// The Node flags the server runs with. `npm start`, the image and the systemd unit start Node with NODE_FLAGS;
// a server started another way (the `scanrelay` command, `node dist/scanrelay.mjs`) says at start which of them
// it runs without.
//
// Why the heap flags: V8 lets the old generation grow between collections by a factor whose ceiling depends on
// the heap limit (1.3 at 256 MB, about 1.4 at 512 MB, 2 just under 2 GB, 4 from 2 GB up), and Node's default
// limit is 2-4 GB on any machine with a few GB of memory. Under a sustained webhook load that let the heap reach
// about 90 MB between collections, and the young generation grew to two 16 MB semi-spaces: 170-190 MB of RSS,
// where these flags keep it at 115-130 MB for the same work and CPU. 512 MB is several times what the server's
// heap holds in any benchmark.
//
// Why --no-concurrent-recompilation: with it on, Node 24's RSS jumps by about 35 MB within the first half-second
// of a burst, while the request path is optimized on V8's background threads, and never comes back down; the heap
// itself grows by 4 MB. Optimizing on the main thread instead left the peak 25-30 MB lower on Node 24 (165 ->
// 136-143 MB through 60 s) with the same CPU per request. V8 reads it only at start: NODE_OPTIONS refuses it and
// v8.setFlagsFromString comes too late, so only the command line carries it. Figures: docs/performance.md.
//
// Nothing else: every flag here is one a later Node could rename or drop, and then `node` refuses to start.
import { getHeapStatistics } from 'node:v8';

export const HEAP_FLAGS = ['--max-semi-space-size=8', '--max-old-space-size=512'] as const;
const COMPILER_FLAG = '--no-concurrent-recompilation';
export const NODE_FLAGS = [...HEAP_FLAGS, COMPILER_FLAG] as const;

/** Above this limit V8's growth factor is over 1.6: the heap flags (or NODE_OPTIONS) were not given. */
const LARGE_LIMIT_BYTES = 1024 * 1024 * 1024;

export interface NodeRun {
  heapLimitBytes: number;
  execArgv: readonly string[];
}

const thisNode = (): NodeRun => ({ heapLimitBytes: getHeapStatistics().heap_size_limit, execArgv: process.execArgv });

/** One line for the start of the server when Node runs without the server's flags, else undefined. */
export function flagAdvice(run: NodeRun = thisNode()): string | undefined {
  const largeHeap = run.heapLimitBytes > LARGE_LIMIT_BYTES;
  const concurrent = !run.execArgv.includes(COMPILER_FLAG);
  if (!largeHeap && !concurrent) return undefined;
  const what = [
    largeHeap ? `with a heap limit of ${Math.round(run.heapLimitBytes / 1024 / 1024)} MB` : undefined,
    concurrent ? `without ${COMPILER_FLAG}` : undefined,
  ].filter(Boolean);
  const extra = largeHeap ? '40-100 MB' : '5-30 MB';
  return (
    `Node runs ${what.join(' and ')}, so under load this server holds ${extra} more memory than it needs. ` +
    `npm start, the Docker image and the systemd unit start it as \`node ${NODE_FLAGS.join(' ')} dist/scanrelay.mjs server\`: ` +
    `start it the same way (an installed command: \`node ${NODE_FLAGS.join(' ')} "$(command -v scanrelay)" server\`). ` +
    `NODE_OPTIONS can carry the two heap flags, not ${COMPILER_FLAG}.`
  );
}
