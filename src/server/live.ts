// GET /<SERVER_PASS>/events: the activity feed as server-sent events, so the dashboard updates live.
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import type { ActivityEvents } from '../activity.js';
import { rule } from './access.js';
import type { AppDeps } from './deps.js';

const FEED: (keyof ActivityEvents)[] = ['request', 'queued', 'delivery', 'followed', 'finished', 'target'];
/** A comment line this often keeps proxies from closing a quiet stream. */
const HEARTBEAT_MS = 20_000;
/**
 * What a stream may hold unsent: a dashboard that reads takes each event as it comes, so this much waiting is a
 * client that stopped reading, and without a bound each such client held every later event (twelve of them and a
 * burst of webhooks ran the heap out). Past it the stream is dropped; a browser's EventSource opens a new one.
 */
export const MAX_UNSENT_BYTES = 1024 * 1024;

export const liveRoutes: FastifyPluginAsync<AppDeps> = async (app, deps) => {
  const open = new Set<FastifyReply>();
  /** Streams dropped for not reading, since start: said once, then counted in each later line at debug. */
  let dropped = 0;

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
    const send = (text: string) => {
      if (res.writableLength <= MAX_UNSENT_BYTES) return void res.write(text);
      stop();
      res.destroy();
      dropped++;
      const fields = { client: req.ip, dropped };
      const line = `Dropped a live stream of the dashboard (/events) whose client did not read it: ${MAX_UNSENT_BYTES} bytes were waiting for it; ${dropped} dropped since start. A browser reconnects by itself; a client that keeps being dropped is not reading its stream.`;
      if (dropped === 1) deps.logger.warn(fields, line);
      else deps.logger.debug(fields, line);
    };
    const listeners = FEED.map((name) => {
      const listener = (payload: unknown) => send(`event: ${name}\ndata: ${JSON.stringify(payload)}\n\n`);
      deps.activity?.on(name, listener as never);
      return () => deps.activity?.off(name, listener as never);
    });
    const heartbeat = setInterval(() => send(': keep-alive\n\n'), HEARTBEAT_MS);
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
