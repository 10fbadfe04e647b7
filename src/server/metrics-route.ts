// GET /metrics: the service's metrics in Prometheus' text format; `public`, or `bearer` when SERVER_METRICS_TOKEN
// is set (the gate in guard.ts checks the token before this runs).
import type { FastifyPluginAsync } from 'fastify';
import { rule } from './access.js';
import type { AppDeps } from './deps.js';
import { Metrics } from './metrics.js';

export const metricsRoutes: FastifyPluginAsync<AppDeps> = async (app, deps) => {
  const metrics = deps.metrics ?? new Metrics({ activity: deps.activity, queue: deps.queue, processor: deps.processor });
  if (!deps.metrics) app.addHook('onClose', async () => metrics.close());

  app.get('/metrics', rule(deps.metricsToken ? 'bearer' : 'public'), async (_req, reply) =>
    reply.type(metrics.registry.contentType).send(await metrics.registry.metrics()),
  );
};
