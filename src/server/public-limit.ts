// The rate limit of the routes that need no credential (GET/HEAD /health, /stats, /favicon.ico, /, and /metrics without
// SERVER_METRICS_TOKEN): a token bucket per client address, so a client polling them in a loop cannot take the
// event loop from the webhooks. A route with a credential is never limited: an arr app's webhooks are never
// refused for being many, and a wrong secret is answered by the gate (guard.ts) before this runs.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { systemClock, type Clock } from '../clock.js';
import type { Logger } from '../log/logger.js';
import { PerClientLog, unwrittenTail } from '../log/per-client.js';

export interface PublicRate {
  /** Requests a second one client may keep up. */
  perSecond: number;
  /** Requests one client may send at once after a quiet spell. */
  burst: number;
}

/** A health check every few seconds, a Prometheus scrape and Bazarr's test button fit many times over. */
export const PUBLIC_RATE: PublicRate = { perSecond: 10, burst: 30 };

/** One bucket per client; buckets of clients that went quiet refill to `burst`, and are forgotten first. */
export class TokenBuckets {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  constructor(
    private readonly rate: PublicRate,
    /** Clients remembered at once: a flood of addresses cannot grow memory. */
    private readonly maxClients = 10_000,
  ) {}

  /** Takes a token of `client`'s bucket at `now` (ms): 0 when one was there, else the ms until there is one. */
  take(client: string, now: number): number {
    let b = this.buckets.get(client);
    if (b) this.buckets.delete(client);
    else {
      if (this.buckets.size >= this.maxClients) this.buckets.delete(this.buckets.keys().next().value as string);
      b = { tokens: this.rate.burst, at: now };
    }
    // Re-inserted, so the Map's first key is the client heard from longest ago.
    this.buckets.set(client, b);
    b.tokens = Math.min(this.rate.burst, b.tokens + (Math.max(0, now - b.at) * this.rate.perSecond) / 1000);
    b.at = now;
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return 0;
    }
    return Math.ceil(((1 - b.tokens) * 1000) / this.rate.perSecond);
  }
}

export interface PublicLimitOptions {
  logger: Logger;
  /** The clock of the log's one-line-a-minute rule. The buckets follow real time: they guard real CPU time. */
  clock?: Clock;
  rate?: PublicRate;
}

/** Registers the limit on the root instance, after the gate: it reads the rule of the route Fastify matched. */
export function limitPublicRoutes(app: FastifyInstance, opts: PublicLimitOptions): void {
  const rate = opts.rate ?? PUBLIC_RATE;
  const buckets = new TokenBuckets(rate);
  const lines = new PerClientLog(opts.clock ?? systemClock);
  // Callback style, not async: it runs on every request (see guard.ts).
  app.addHook('onRequest', (req: FastifyRequest, reply: FastifyReply, done: () => void) => {
    if (req.is404 || req.routeOptions.config.access !== 'public') return done();
    const waitMs = buckets.take(req.ip, performance.now());
    if (waitMs === 0) return done();
    const seconds = Math.max(1, Math.ceil(waitMs / 1000));
    const more = lines.due(req.ip);
    if (more !== undefined) {
      opts.logger.warn(
        { client: req.ip, method: req.method, route: req.routeOptions.url, suppressed: more },
        `Answered 429 to '${req.ip}': more than ${rate.perSecond} requests a second (bursts of ${rate.burst}) to the routes that need no secret${unwrittenTail(more)}`,
      );
    }
    reply
      .code(429)
      .header('retry-after', String(seconds))
      .send({ error: `too many requests: the routes that need no secret take ${rate.perSecond} a second per client (bursts of ${rate.burst}); retry after ${seconds} s` });
  });
}
