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
    // Vitest's default in a run is one worker fewer than the cores: one worker on a 2-core machine, which then sits
    // half idle, since much of the suite waits on real child processes, sockets and SQLite files rather than computing
    // (user + system time was 291 s of a 302 s run). One worker per core, never fewer than two.
    maxWorkers: Math.max(2, availableParallelism()),
    globalSetup: ['test/support/dist-global.ts', 'test/support/log-audit-global.ts'],
  },
});
