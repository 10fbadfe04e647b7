// The HTTP service: builds the Fastify app with its body parsers, limits and route plugins.
import Fastify, { type FastifyInstance } from 'fastify';
import formbody from '@fastify/formbody';
import { parse as parseQuery } from 'node:querystring';
import { apiRoutes } from './api.js';
import { autoscanRoutes } from './autoscan.js';
import { controlApiRoutes } from './control-api.js';
import { dashboardRoutes } from './dashboard.js';
import { frontPageRoutes } from './front-page.js';
import { liveRoutes } from './live.js';
import type { AppDeps, ConnectionLimits } from './deps.js';
import { metricsRoutes } from './metrics-route.js';
import { guardRequests } from './guard.js';
import { recordRoutes, type RouteEntry } from './access.js';
import { MAX_PASS_IN_URL, passTooLongReason, reservedPassReason } from '../value-rules.js';
import { answerClientError, securityHeaders } from './headers.js';
import { limitPublicRoutes } from './public-limit.js';
import { healthRoutes } from './health.js';
import { lazySchemaController } from './lazy-compilers.js';
import { redactUrl, weakPassReason } from './secret.js';
import { scanRoutes } from './scan.js';
import { underBasePath } from './base-path.js';
import { typed } from '../version.js';

export type { AppDeps } from './deps.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** Every route with its access rule, as registered (src/server/access.ts). */
    routeTable: RouteEntry[];
  }
}

/** A slow client cannot hold the service: these bound every socket it opens. */
export const connectionLimits: ConnectionLimits = {
  requestMs: 30_000,
  headersMs: 15_000,
  idleMs: 30_000,
  // Longer than any sender keeps an idle connection in its pool (.NET 6+: 60 s, .NET Core and 5: 120 s, Go: 90 s),
  // so the sender always closes first: a webhook sent as we closed the socket would be lost (the arrs never retry).
  keepAliveMs: 125_000,
  checkEveryMs: 1_000,
};

/** The largest body any route takes (docs/security.md): an arr's biggest payload is a small fraction of it. */
export const BODY_LIMIT = 1024 * 1024;

export class BadBody extends Error {
  statusCode = 400;
}

export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const limits = { ...connectionLimits, ...deps.limits };
  const app = Fastify({
    logger: false,
    bodyLimit: deps.bodyLimit ?? BODY_LIMIT,
    requestTimeout: limits.requestMs,
    connectionTimeout: limits.idleMs,
    keepAliveTimeout: limits.keepAliveMs,
    http: { headersTimeout: limits.headersMs, connectionsCheckingInterval: limits.checkEveryMs },
    return503OnClosing: true,
    // Believing X-Forwarded-For from anyone would let any client write any address into the log.
    trustProxy: deps.trustProxy === undefined || deps.trustProxy === false ? false : deps.trustProxy,
    // A longer segment is a 414; SERVER_PASS is held to it when the config is loaded.
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: MAX_PASS_IN_URL },
    // Node's own answers (431, 408, 400) with the security headers.
    clientErrorHandler: answerClientError,
    rewriteUrl: underBasePath(deps.basePath ?? ''),
    // ajv and fast-json-stringify compile a route's schemas when the route is first used (lazy-compilers.ts).
    schemaController: lazySchemaController,
  });

  const weak = weakPassReason(deps.secret);
  if (weak) deps.logger.warn(`SERVER_PASS is weak: ${weak}. Anyone who guesses it can queue scans and read the queue. Run \`${typed('update-config --new-pass')}\`, then give your apps the new URL.`);
  // Before any route: the secret is checked before a body is read, and security headers go on every answer.
  const refused = reservedPassReason(deps.secret) ?? passTooLongReason(deps.secret);
  if (refused) throw new Error(`SERVER_PASS cannot be used: ${refused}. Run \`${typed('update-config --new-pass')}\`, then give your apps the new URL.`);
  const routes = recordRoutes(app);
  app.decorate('routeTable', routes);
  guardRequests(app, {
    secret: deps.secret,
    logger: deps.logger,
    clock: deps.clock,
    basic: deps.autoscan?.ENABLED ? { user: deps.autoscan.USER, password: deps.autoscan.PASSWORD } : undefined,
    bearer: deps.metricsToken || undefined,
  });
  limitPublicRoutes(app, { logger: deps.logger, clock: deps.clock });
  securityHeaders(app);

  // JSON with or without "; charset=...". Our own parser so a broken body says where it broke.
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser(/^application\/(.+\+)?json/, { parseAs: 'string' }, (_req, body, done) => {
    done(null, parseJsonBody(body as string));
  });
  // querystring.parse returns a null-prototype object; hand the triggers a plain one.
  await app.register(formbody, { parser: (text: string) => formFields(text) });
  // Anything else (text/plain, no content type): JSON if it looks like it, else form fields.
  app.addContentTypeParser('*', { parseAs: 'string' }, (_req, body, done) => {
    const text = (body as string).trim();
    if (text === '') return done(null, {});
    if (text.startsWith('{') || text.startsWith('[')) return done(null, parseJsonBody(text));
    done(null, formFields(text));
  });

  app.setErrorHandler((err: { statusCode?: number; message: string; code?: string }, req, reply) => {
    const status = err.statusCode && err.statusCode >= 400 && err.statusCode < 600 ? err.statusCode : 500;
    if (status >= 500) deps.logger.error({ url: redactUrl(req.url), err: err.message }, 'request failed');
    else deps.logger.info({ client: req.ip, url: redactUrl(req.url), status }, `bad request: ${err.message}`);
    reply.code(status).send({ error: status === 413 ? 'request body too large' : err.message });
  });
  app.setNotFoundHandler((req, reply) => {
    reply.code(404).send({ error: 'not found' });
  });

  await app.register(healthRoutes, deps);
  await app.register(apiRoutes, deps);
  await app.register(scanRoutes, deps);
  await app.register(autoscanRoutes, deps);
  await app.register(controlApiRoutes, deps);
  await app.register(metricsRoutes, deps);
  await app.register(liveRoutes, deps);
  await app.register(dashboardRoutes, deps);
  await app.register(frontPageRoutes, deps);
  return app;
}

function parseJsonBody(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new BadBody(`malformed JSON: ${(err as Error).message}`);
  }
}

function formFields(text: string): Record<string, unknown> {
  return { ...parseQuery(text) };
}
