// The checks every request passes before its body is read: the secret in the URL, then (for POSTs a browser
// could send from another site) same-origin. docs/security.md explains each.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { systemClock, type Clock } from '../clock.js';
import type { Logger } from '../log.js';
import { secretMatches } from './secret.js';

/** Paths anyone may ask for; everything else carries the secret as its first segment (or second, after /api). */
const PUBLIC = new Set(['health', 'metrics', 'favicon.ico']);
const NONE: ReadonlySet<string> = new Set();

export const UNAUTHORIZED = { error: 'unauthorized: the URL must hold your SERVER_PASS (/<SERVER_PASS>/... or /api/<SERVER_PASS>/...)' };

/** The secret segment of a URL path, decoded; undefined for public paths. '' when there is none. */
export function secretSegment(url: string, ownAuth: ReadonlySet<string> = NONE): string | undefined {
  const path = url.split('?')[0];
  const parts = path.split('/');
  const first = parts[1] ?? '';
  if (PUBLIC.has(first) && parts.length <= 3 && (parts[2] ?? '') === '') return undefined;
  if (ownAuth.has(first)) return undefined;
  const raw = first === 'api' ? (parts[2] ?? '') : first;
  try {
    return decodeURIComponent(raw);
  } catch {
    return '';
  }
}

/**
 * One WARN per client per minute for wrong secrets; the rest are counted and the count is told with the next
 * WARN. A scan of the LAN or a misconfigured app retrying every second writes one line a minute, not 60.
 */
export class WrongSecretLog {
  private readonly seen = new Map<string, { at: number; more: number }>();

  constructor(
    private readonly logger: Logger,
    private readonly clock: Clock,
    private readonly windowMs = 60_000,
    /** Clients remembered at once; beyond it the oldest are forgotten (a flood of addresses cannot grow memory). */
    private readonly maxClients = 10_000,
  ) {}

  note(client: string, method: string): void {
    const now = this.clock.now();
    const last = this.seen.get(client);
    if (last && now - last.at < this.windowMs) {
      last.more++;
      return;
    }
    const more = last?.more ?? 0;
    this.seen.delete(client);
    if (this.seen.size >= this.maxClients) this.seen.delete(this.seen.keys().next().value as string);
    this.seen.set(client, { at: now, more: 0 });
    // The URL is not logged: a near-miss may hold most of the secret.
    const tail = more > 0 ? ` (${more} more from this client since the last warning)` : '';
    this.logger.warn(
      { client, method, suppressed: more },
      `Rejected a ${method} request with a wrong secret from '${client}'${tail}. At most one such line per client per minute is written.`,
    );
  }
}

const BROWSER_SITES_OK = new Set(['same-origin', 'none']);

/**
 * Why a state-changing request must be refused as cross-site, or undefined. A browser marks its requests
 * with Sec-Fetch-Site (or at least Origin); an arr app, curl or a script sends neither and is not a browser.
 * A JSON body cannot come from another site's form, and fetch() would need a CORS preflight we never grant.
 */
export function crossSiteReason(req: FastifyRequest): string | undefined {
  if (req.method !== 'POST' && req.method !== 'PUT' && req.method !== 'DELETE' && req.method !== 'PATCH') return undefined;
  const type = String(req.headers['content-type'] ?? '').toLowerCase();
  if (/^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/.test(type)) return undefined;
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
  /** First path segments whose routes check their own credentials before the body (autoscan's /triggers/). */
  ownAuth?: string[];
}

/** Registers the hook on the root instance, so it runs for every route, unknown ones included. */
export function guardRequests(app: FastifyInstance, opts: GuardOptions): void {
  const wrong = new WrongSecretLog(opts.logger, opts.clock ?? systemClock);
  const ownAuth = new Set(opts.ownAuth ?? []);
  // Callback style, not async: this runs on every request, and a promise per hook is measurable under load.
  app.addHook('onRequest', (req: FastifyRequest, reply: FastifyReply, done: () => void) => {
    const given = secretSegment(req.url, ownAuth);
    if (given === undefined) return done();
    if (!secretMatches(given, opts.secret)) {
      wrong.note(req.ip, req.method);
      // A body still on its way is not worth reading: the socket closes after the answer.
      if (hasBody(req)) reply.header('connection', 'close');
      reply.code(401).send(UNAUTHORIZED);
      return;
    }
    const crossSite = crossSiteReason(req);
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
