// The access rule every route declares, and the table of them. The gate (guard.ts) reads the rule of the route
// Fastify matched, never the URL's look, so a new route cannot open a hole by its shape; one registered without
// a rule stops the start.
import type { FastifyInstance, RouteOptions } from 'fastify';

/**
 * - `public`: anyone (GET/HEAD /health, /favicon.ico, / (where the pages are: front-page.ts); /metrics without
 *   SERVER_METRICS_TOKEN)
 * - `secret`: the route's `:secret` parameter is SERVER_PASS (`/<SERVER_PASS>…`, `/api/<SERVER_PASS>…`)
 * - `basic`: HTTP Basic auth with AUTOSCAN.USER/PASSWORD (autoscan's `/triggers/…`)
 * - `bearer`: `Authorization: Bearer <SERVER_METRICS_TOKEN>` (/metrics when the token is set)
 */
export const ACCESS_RULES = ['public', 'secret', 'basic', 'bearer'] as const;
export type Access = (typeof ACCESS_RULES)[number];

declare module 'fastify' {
  interface FastifyContextConfig {
    access?: Access;
  }
}

/** Shorthand for a route's options: `app.get('/health', rule('public'), handler)`. */
export const rule = (access: Access) => ({ config: { access } }) as const;

export interface RouteEntry {
  method: string;
  url: string;
  access: Access;
}

export class MissingAccessRule extends Error {}

/**
 * Records every route with its rule as it is registered, and refuses one without a rule (or a `secret` route
 * with no `:secret` parameter to compare). Must be called before any route is registered.
 */
export function recordRoutes(app: FastifyInstance): RouteEntry[] {
  const table: RouteEntry[] = [];
  app.addHook('onRoute', (route: RouteOptions) => {
    const access = route.config?.access;
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    if (access === undefined || !(ACCESS_RULES as readonly string[]).includes(access)) {
      throw new MissingAccessRule(`route ${methods.join('/')} ${route.url} has no access rule: give it config.access (one of ${ACCESS_RULES.join(', ')}); see src/server/access.ts`);
    }
    if (access === 'secret' && !/(^|\/):secret(\/|$)/.test(route.url)) {
      throw new MissingAccessRule(`route ${methods.join('/')} ${route.url} is 'secret' but has no :secret segment to compare with SERVER_PASS`);
    }
    for (const method of methods) table.push({ method, url: route.url, access });
  });
  return table;
}
