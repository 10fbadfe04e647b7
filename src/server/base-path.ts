// SERVER_BASE_PATH: every route under one prefix, for a reverse proxy that publishes scanrelay at a sub-path
// (https://example.com/scanrelay/). The URL is rewritten before routing, so the route table, the gate and every
// route plugin stay as they are, and no route can be registered outside the prefix by mistake. A URL outside it
// is marked here and answered 404 by the gate (guard.ts) before anything else; only /health also answers at the
// root, so the image's health check and a monitor that knows no prefix keep working.
import type { IncomingMessage } from 'node:http';

const OUTSIDE = Symbol('outside SERVER_BASE_PATH');
type Marked = IncomingMessage & { [OUTSIDE]?: true };

/** The path part of a request URL, without the query. */
function pathOf(url: string): string {
  const q = url.indexOf('?');
  return q === -1 ? url : url.slice(0, q);
}

/** Fastify's `rewriteUrl` for a base path, or undefined without one (nothing to rewrite). */
export function underBasePath(base: string): ((req: IncomingMessage) => string) | undefined {
  if (base === '') return undefined;
  return (req) => {
    const url = req.url ?? '/';
    const path = pathOf(url);
    if (path === base || path.startsWith(`${base}/`)) {
      const rest = url.slice(base.length);
      return rest.startsWith('/') ? rest : `/${rest}`;
    }
    if (path === '/health' || path === '/health/') return url;
    (req as Marked)[OUTSIDE] = true;
    return url;
  };
}

/** Whether the request came outside SERVER_BASE_PATH (then it is a 404, whatever route its URL looks like). */
export function outsideBasePath(req: IncomingMessage): boolean {
  return (req as Marked)[OUTSIDE] === true;
}
