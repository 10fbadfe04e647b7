import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    pool: 'forks',
    // Test files share a worker's loaded modules instead of each loading Fastify, zod and the sources again: most of
    // a file's own time was that import. Nothing a test changes outlives its file: servers, timers and the
    // environment are put back in its hooks, and the whole suite passes in any order (docs/performance.md, "The suite").
    isolate: false,
    // One worker more than the cores: much of the suite waits on real child processes, sockets, a browser and
    // SQLite files rather than computing, and a worker that waits leaves a core idle. More than that, and tests that
    // measure real time meet a machine busier than they allow for (docs/performance.md, "The suite").
    maxWorkers: availableParallelism() + 1,
    globalSetup: ['test/support/temp-global.ts', 'test/support/dist-global.ts', 'test/support/log-audit-global.ts'],
  },
});
