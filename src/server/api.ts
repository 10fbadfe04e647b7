// /api/<SERVER_PASS>: plex_autoscan's API (cmd=queue_count), answered exactly as it did (the secret is
// checked in guard.ts before this runs).
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { rule } from './access.js';
import type { AppDeps } from './deps.js';

type Params = { secret: string };
const secret = rule('secret');

export const apiRoutes: FastifyPluginAsync<AppDeps> = async (app, deps) => {
  const handler = async (req: FastifyRequest<{ Params: Params }>, reply: import('fastify').FastifyReply) => {
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
  app.get<{ Params: Params }>('/api/:secret', secret, handler);
  app.post<{ Params: Params }>('/api/:secret', secret, handler);
};
