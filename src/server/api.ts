// /api/<SERVER_PASS>: plex_autoscan's API (cmd=queue_count), answered exactly as it did.
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { AppDeps } from './app.js';
import { secretMatches } from './secret.js';

type Params = { secret: string };

export const apiRoutes: FastifyPluginAsync<AppDeps> = async (app, deps) => {
  const handler = async (req: FastifyRequest<{ Params: Params }>, reply: import('fastify').FastifyReply) => {
    if (!secretMatches(req.params.secret, deps.secret)) {
      deps.logger.warn({ client: req.ip }, 'API request with a wrong secret rejected');
      return reply.code(401).send({ error: 'unauthorized' });
    }
    const source = (req.method === 'GET' ? req.query : (req.body ?? req.query)) as Record<string, unknown>;
    const cmd = typeof source?.cmd === 'string' ? source.cmd.toLowerCase() : undefined;
    if (!cmd) {
      deps.logger.error({ client: req.ip }, `Unknown ${req.method} API call from '${req.ip}'`);
      return { error: 'No cmd parameter was supplied' };
    }
    if (cmd === 'queue_count') {
      try {
        return { queue_count: deps.queue.count() };
      } catch (err) {
        deps.logger.error({ err: String(err) }, 'queue_count failed');
        return { error: 'Unexpected error occurred, check logs...' };
      }
    }
    return { error: `Unknown cmd: ${cmd}` };
  };
  app.get<{ Params: Params }>('/api/:secret', handler);
  app.post<{ Params: Params }>('/api/:secret', handler);
};
