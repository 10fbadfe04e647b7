// GET /<SERVER_PASS>/events: the activity feed as server-sent events, so the dashboard updates live.
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import type { ActivityEvents } from '../activity.js';
import { rule } from './access.js';
import type { AppDeps } from './deps.js';

const FEED: (keyof ActivityEvents)[] = ['request', 'queued', 'delivery', 'followed', 'finished', 'target'];
/** A comment line this often keeps proxies from closing a quiet stream. */
const HEARTBEAT_MS = 20_000;

export const liveRoutes: FastifyPluginAsync<AppDeps> = async (app, deps) => {
  const open = new Set<FastifyReply>();

  app.get<{ Params: { secret: string } }>('/:secret/events', rule('secret'), async (req, reply) => {
    reply.hijack();
    const res = reply.raw;
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
    // A HEAD has no body, and Node sends no headers for a write it ignores: answer it and end.
    if (req.method === 'HEAD') return void res.end();
    res.write('retry: 3000\n\n');
    const listeners = FEED.map((name) => {
      const listener = (payload: unknown) => res.write(`event: ${name}\ndata: ${JSON.stringify(payload)}\n\n`);
      deps.activity?.on(name, listener as never);
      return () => deps.activity?.off(name, listener as never);
    });
    const heartbeat = setInterval(() => res.write(': keep-alive\n\n'), HEARTBEAT_MS);
    heartbeat.unref();
    open.add(reply);
    const stop = () => {
      clearInterval(heartbeat);
      listeners.forEach((off) => off());
      open.delete(reply);
    };
    req.raw.on('close', stop);
    res.on('close', stop);
  });

  // Streams never end by themselves; without this, closing the app would wait for every open dashboard.
  app.addHook('preClose', async () => {
    for (const reply of open) reply.raw.end();
    open.clear();
  });
};
