// The one gate every request passes before its body is read: the credential its route declares (access.ts),
// compared in constant time, then (for requests a browser could send from another site) same-origin.
// docs/security.md explains each.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { systemClock, type Clock } from '../clock.js';
import type { Logger } from '../log/logger.js';
import { PerClientLog, unwrittenTail } from '../log/per-client.js';
import type { Access } from './access.js';
import { outsideBasePath } from './base-path.js';
import { basicAuthMatches, bearerMatches, secretMatches } from './secret.js';

export const UNAUTHORIZED = { error: 'unauthorized: the URL must hold your SERVER_PASS (/<SERVER_PASS>/... or /api/<SERVER_PASS>/...)' };
const BEARER_UNAUTHORIZED = { error: 'unauthorized: send Authorization: Bearer <SERVER_METRICS_TOKEN>' };

/** What a refused credential is called in the log, per rule. */
const REFUSED: Record<Exclude<Access, 'public'>, string> = {
  secret: 'a wrong secret',
  basic: 'wrong or missing Basic auth (AUTOSCAN.USER and AUTOSCAN.PASSWORD)',
  bearer: 'a missing or wrong bearer token (SERVER_METRICS_TOKEN)',
};

/** One WARN per client and credential per minute (src/log/per-client.ts); the rest are counted and told with the next. */
export class RefusedCredentialLog {
  private readonly lines: PerClientLog;

  constructor(
    private readonly logger: Logger,
    clock: Clock,
  ) {
    this.lines = new PerClientLog(clock);
  }

  note(client: string, method: string, access: Exclude<Access, 'public'> = 'secret'): void {
    const more = this.lines.due(`${access} ${client}`);
    if (more === undefined) return;
    // The URL is not logged: a near-miss may hold most of the secret.
    this.logger.warn(
      { client, method, access, suppressed: more },
      `Rejected a ${method} request with ${REFUSED[access]} from '${client}'${unwrittenTail(more)}`,
    );
  }
}

const BROWSER_SITES_OK = new Set(['same-origin', 'none']);

/**
 * Why a state-changing request must be refused as cross-site, or undefined. A browser marks its requests
 * with Sec-Fetch-Site (or at least Origin); an arr app, curl or a script sends neither and is not a browser.
 * A JSON body cannot come from another site's form, and fetch() would need a CORS preflight we never grant.
 */
export function crossSiteReason(req: FastifyRequest, anyMethod = false): string | undefined {
  const writes = req.method === 'POST' || req.method === 'PUT' || req.method === 'DELETE' || req.method === 'PATCH';
  if (!writes && !anyMethod) return undefined;
  const type = String(req.headers['content-type'] ?? '').toLowerCase();
  if (writes && /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/.test(type)) return undefined;
  const site = req.headers['sec-fetch-site'];
  if (typeof site === 'string') {
    return BROWSER_SITES_OK.has(site) ? undefined : `the browser marked it Sec-Fetch-Site: ${site}`;
  }
  const origin = req.headers.origin;
  if (typeof origin !== 'string') return undefined;
  let host: string;
  try {
    host = new URL(origin).host;
  } catch {
    return `its Origin is ${origin === 'null' ? 'null (a sandboxed or local page)' : 'not a URL'}`;
  }
  return host.toLowerCase() === req.host.toLowerCase() ? undefined : `it came from ${origin}`;
}

function hasBody(req: FastifyRequest): boolean {
  const length = Number(req.headers['content-length'] ?? 0);
  return length > 0 || req.headers['transfer-encoding'] !== undefined;
}

export interface GuardOptions {
  secret: string;
  logger: Logger;
  clock?: Clock;
  /** AUTOSCAN.USER and PASSWORD for `basic` routes; without them every `basic` route is refused. */
  basic?: { user: string; password: string };
  /** SERVER_METRICS_TOKEN for `bearer` routes; without it every `bearer` route is refused. */
  bearer?: string;
}

/** Whether an unmatched URL starts with the secret (`/<secret>/…` or `/api/<secret>/…`). */
function holdsSecretSegment(url: string, secret: string): boolean {
  const parts = url.split('?')[0].split('/');
  const raw = parts[1] === 'api' ? (parts[2] ?? '') : (parts[1] ?? '');
  try {
    return secretMatches(decodeURIComponent(raw), secret);
  } catch {
    return false;
  }
}

/** Registers the hook on the root instance, so it runs for every route, unknown ones included. */
export function guardRequests(app: FastifyInstance, opts: GuardOptions): void {
  const refused = new RefusedCredentialLog(opts.logger, opts.clock ?? systemClock);
  const holds = (access: Exclude<Access, 'public'>, req: FastifyRequest): boolean => {
    if (access === 'secret') return secretMatches((req.params as { secret?: string }).secret ?? '', opts.secret);
    if (access === 'basic') return basicAuthMatches(req.headers.authorization, opts.basic?.user ?? '', opts.basic?.password ?? '');
    return bearerMatches(req.headers.authorization, opts.bearer ?? '');
  };
  // Callback style, not async: this runs on every request, and a promise per hook is measurable under load.
  app.addHook('onRequest', (req: FastifyRequest, reply: FastifyReply, done: () => void) => {
    // Outside SERVER_BASE_PATH nothing answers, whatever route the URL resembles (the proxy publishes only the prefix).
    if (outsideBasePath(req.raw)) {
      if (hasBody(req)) reply.header('connection', 'close');
      reply.code(404).send({ error: 'not found' });
      return;
    }
    // No route matched: nothing is served, so this only chooses the answer. Without the secret it is the same
    // 401 as a wrong secret on a real route, so a stranger cannot map the routes; with it, a plain 404.
    const access = req.is404 ? (holdsSecretSegment(req.url, opts.secret) ? 'unknown' : undefined) : req.routeOptions.config.access;
    if (access === 'unknown') {
      if (hasBody(req)) reply.header('connection', 'close');
      reply.code(404).send({ error: 'not found' });
      return;
    }
    if (access === 'public') return done();
    // A route without a rule cannot be registered (access.ts); should one slip through, it is closed.
    if (access === undefined || !holds(access, req)) {
      const as = access ?? 'secret';
      refused.note(req.ip, req.method, as);
      // A body still on its way is not worth reading: the socket closes after the answer.
      if (hasBody(req)) reply.header('connection', 'close');
      if (as === 'basic') reply.code(401).header('www-authenticate', 'Basic realm="scanrelay"').send();
      else if (as === 'bearer') reply.code(401).header('www-authenticate', 'Bearer realm="scanrelay metrics"').send(BEARER_UNAUTHORIZED);
      else reply.code(401).send(UNAUTHORIZED);
      return;
    }
    // autoscan's GET /triggers/manual?dir= queues a scan, and a browser keeps Basic auth: no method of a `basic`
    // route is taken from another site.
    const crossSite = crossSiteReason(req, access === 'basic');
    if (crossSite !== undefined) {
      opts.logger.warn({ client: req.ip, method: req.method }, `Refused a cross-site ${req.method} from '${req.ip}': ${crossSite}. Post from scanrelay's own pages, or send JSON.`);
      reply.code(403).send({
        error: `cross-site request refused: ${crossSite}. Use scanrelay's own pages, or send the body as application/json.`,
      });
      return;
    }
    done();
  });
}
