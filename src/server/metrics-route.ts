// GET /metrics: the service's metrics in Prometheus' text format, behind SERVER_METRICS_TOKEN when it is set.
import type { FastifyPluginAsync } from 'fastify';
import type { AppDeps } from './deps.js';
import { Metrics } from './metrics.js';
import { secretMatches } from './secret.js';

export const metricsRoutes: FastifyPluginAsync<AppDeps> = async (app, deps) => {
  const metrics = deps.metrics ?? new Metrics({ activity: deps.activity, queue: deps.queue, processor: deps.processor });
  if (!deps.metrics) app.addHook('onClose', async () => metrics.close());
  const token = deps.metricsToken ?? '';

  app.get('/metrics', async (req, reply) => {
    if (token) {
      const header = req.headers.authorization ?? '';
      const given = header.startsWith('Bearer ') ? header.slice('Bearer '.length).trim() : '';
      if (!secretMatches(given, token)) {
        deps.logger.warn({ client: req.ip }, `Refused /metrics to '${req.ip}': missing or wrong bearer token (SERVER_METRICS_TOKEN).`);
        return reply.code(401).header('www-authenticate', 'Bearer realm="scanrelay metrics"').send({ error: 'unauthorized: send Authorization: Bearer <SERVER_METRICS_TOKEN>' });
      }
    }
    return reply.type(metrics.registry.contentType).send(await metrics.registry.metrics());
  });
};
