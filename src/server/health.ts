// GET /health (no secret): is the service up, how big is the queue, how is each target doing, which version.
// GET /health?ready: 503 until the queue is open and every target has been probed once, then as /health.
import type { FastifyPluginAsync } from 'fastify';
import type { AppView } from '../arr/connected.js';
import { version } from '../version.js';
import { rule } from './access.js';
import type { AppDeps } from './deps.js';

export const healthRoutes: FastifyPluginAsync<AppDeps> = async (app, deps) => {
  app.get<{ Querystring: Record<string, string | undefined> }>('/health', rule('public'), async (req, reply) => {
    const readiness = deps.readiness?.state() ?? { ready: true, waitingFor: [], targets: [] };
    let queue;
    try {
      queue = deps.queue.summary();
    } catch (err) {
      return reply.code(503).send({ status: 'error', version, ready: false, error: `queue unreadable: ${(err as Error).message}` });
    }
    if ('ready' in (req.query ?? {}) && !readiness.ready) {
      return reply.code(503).send({ status: 'starting', version, ready: false, waitingFor: readiness.waitingFor });
    }
    const targets = deps.processor?.health() ?? [];
    const held = deps.processor?.held;
    const extra = deps.status?.() ?? {};
    // An app whose catch-up fails, or whose answer was skipped unread, is missed work as a target down is.
    const apps = (extra.arr ?? []) as AppView[];
    const appFailing = apps.some((a) => a.skipped !== null || a.state === 'down' || a.state === 'refused' || a.state === 'failing');
    const status = held || targets.some((t) => !t.up) || appFailing ? 'degraded' : 'ok';
    return { status, version, ready: readiness.ready, held: held ?? null, queue, targets, ...extra };
  });
};
