// GET /health (no secret): is the service up, how big is the queue, how is each target doing.
import type { FastifyPluginAsync } from 'fastify';
import type { AppDeps } from './app.js';

export const healthRoutes: FastifyPluginAsync<AppDeps> = async (app, deps) => {
  app.get('/health', async (_req, reply) => {
    let queue;
    try {
      queue = deps.queue.summary();
    } catch (err) {
      return reply.code(503).send({ status: 'error', error: `queue unreadable: ${(err as Error).message}` });
    }
    const targets = deps.processor?.health() ?? [];
    const held = deps.processor?.held;
    const status = held || targets.some((t) => !t.up) ? 'degraded' : 'ok';
    return { status, held: held ?? null, queue, targets, ...(deps.status?.() ?? {}) };
  });
};
