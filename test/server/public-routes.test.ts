// The finding: with 100,000 folders queued, every public /health and /stats counted the queue, and 20 clients
// polling them slowed webhooks from 2 ms to 0.6 s. Replayed with a real queue file of 100,000 rows: the public
// routes run no statement that walks the queue (each one is planned by SQLite and checked), and a client polling
// them in a loop gets 429 with Retry-After past its bucket, while webhooks are never limited.
import { afterEach, describe, expect, it } from 'vitest';
import type Database from 'better-sqlite3';
import type { Config } from '../../src/config/schema.js';
import { configSchema } from '../../src/config/schema.js';
import { PUBLIC_RATE, TokenBuckets } from '../../src/server/public-limit.js';
import { SECRET, testService, type TestService } from '../support/service.js';

let t: TestService | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

const autoscan = () => configSchema().parse({ AUTOSCAN: { ENABLED: true, USER: 'u', PASSWORD: 'autoscan-pass-40d1e2' } }).AUTOSCAN as Config['AUTOSCAN'];

/** The SQL of every statement run on `db` while `during` runs (better-sqlite3's statements share one prototype). */
async function statementsRun(db: Database.Database, during: () => Promise<unknown>): Promise<string[]> {
  const proto = Object.getPrototypeOf(db.prepare('SELECT 1')) as Record<string, (...args: unknown[]) => unknown>;
  const dbProto = Object.getPrototypeOf(db) as Record<string, (...args: unknown[]) => unknown>;
  const ran: string[] = [];
  const originals = new Map<[Record<string, (...args: unknown[]) => unknown>, string], (...args: unknown[]) => unknown>();
  for (const [target, names] of [[proto, ['all', 'get', 'run', 'iterate']], [dbProto, ['exec']]] as const) {
    for (const name of names) {
      const original = target[name];
      originals.set([target, name], original);
      target[name] = function (this: { source?: string }, ...args: unknown[]) {
        ran.push(name === 'exec' ? String(args[0]) : String(this.source));
        return original.apply(this, args);
      };
    }
  }
  try {
    await during();
  } finally {
    for (const [[target, name], original] of originals) target[name] = original;
  }
  return ran;
}

/** How SQLite runs `sql`: one line per step ("SCAN folders", "SEARCH d USING INDEX …"). */
function plan(db: Database.Database, sql: string): string[] {
  const stmt = db.prepare(`EXPLAIN QUERY PLAN ${sql}`);
  const named = [...new Set([...sql.matchAll(/[@$:](\w+)/g)].map((m) => m[1]))];
  const args = named.length ? [Object.fromEntries(named.map((n) => [n, null]))] : Array((sql.match(/\?/g) ?? []).length).fill(null);
  return (stmt.all(...args) as { detail: string }[]).map((r) => r.detail);
}

describe('the public routes with 100,000 folders queued', () => {
  it('/health, /stats and /metrics read the counts kept by the queue: no statement walks the queue', async () => {
    t = await testService({ config: { AUTOSCAN: autoscan() } });
    const { queue } = t.service;
    const n = 100_000;
    queue.enqueueMany(Array.from({ length: n }, (_, i) => ({ folder: `/data/media/tv/Show ${i}/Season 01`, priority: i % 3, source: 'sonarr', event: 'Download', deleted: false, delayMs: i < 5_000 ? 0 : 3_600_000 })));
    // 5,000 being delivered to a server this service does not send to (so nothing here acts on them).
    queue.startDispatchMany(queue.dueWaiting(5_000), ['elsewhere']);
    expect(queue.summary()).toEqual({ folders: n, waiting: n - 5_000, dispatching: 5_000, pendingByTarget: { elsewhere: 5_000 }, followingByTarget: {} });

    for (const url of ['/health', '/stats', '/metrics']) {
      let status = 0;
      let body = '';
      const ran = await statementsRun(queue.db, async () => {
        const res = await t!.service.app.inject({ url });
        status = res.statusCode;
        body = res.body;
      });
      expect(status, url).toBe(200);
      expect(body, url).toContain(url === '/metrics' ? `scanrelay_queue_depth{state="waiting"} ${n - 5_000}` : url === '/stats' ? `"total":${n}` : `"folders":${n}`);
      // Few statements, whatever the size of the queue, and each an index seek or a read of the counts.
      expect(ran.length, `${url}: ${ran.join(' | ')}`).toBeLessThanOrEqual(12);
      for (const sql of new Set(ran)) {
        const steps = plan(queue.db, sql);
        expect(steps.filter((s) => /^SCAN /.test(s) && !/queue_counts/.test(s)), `${url} ran ${sql}`).toEqual([]);
        expect(steps.filter((s) => /TEMP B-TREE/.test(s)), `${url} ran ${sql}`).toEqual([]);
      }
    }
  });
});

describe('the rate limit of the public routes', () => {
  it(`a client past ${PUBLIC_RATE.burst} at once gets 429 with Retry-After; other clients, webhooks and Basic-auth routes are not limited`, async () => {
    t = await testService({ config: { SERVER_TRUST_PROXY: true, SERVER_SCAN_DELAY: 3600 } as never });
    const app = t.service.app;
    const from = (ip: string, url = '/health') => app.inject({ url, headers: { 'x-forwarded-for': ip } });
    const answers = await Promise.all(Array.from({ length: PUBLIC_RATE.burst * 2 }, (_, i) => from('192.0.2.7', i % 2 ? '/health' : '/favicon.ico')));
    const limited = answers.filter((r) => r.statusCode === 429);
    expect(answers.filter((r) => r.statusCode === 200).length).toBeGreaterThanOrEqual(PUBLIC_RATE.burst);
    expect(limited.length).toBeGreaterThan(PUBLIC_RATE.burst / 2);
    expect(limited[0].headers['retry-after']).toBe('1');
    expect(limited[0].json().error).toMatch(/10 a second per client \(bursts of 30\); retry after 1 s/);
    // Every answer carries the security headers, a 429 too.
    expect(limited[0].headers['x-content-type-options']).toBe('nosniff');
    // Another client has its own bucket.
    expect((await from('192.0.2.8')).statusCode).toBe(200);
    // Webhooks and manual requests with the secret are never limited, however many.
    const hooks = await Promise.all(
      Array.from({ length: PUBLIC_RATE.burst * 2 }, (_, i) =>
        app.inject({ method: 'POST', url: `/${SECRET}`, headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': '192.0.2.7' }, payload: `eventType=Manual&filepath=/mnt/unionfs/Media/tv/Show ${i}/e.mkv` }),
      ),
    );
    expect(hooks.map((r) => r.statusCode).filter((s) => s !== 200)).toEqual([]);
    // A tenth of a second later the bucket has a token again.
    await new Promise((r) => setTimeout(r, 1000 / PUBLIC_RATE.perSecond + 20));
    expect((await from('192.0.2.7')).statusCode).toBe(200);
    // One WARN for the client this minute, whatever the number refused.
    const warned = t.logs.map((l) => JSON.parse(l)).filter((l) => /^Answered 429/.test(l.msg));
    expect(warned).toHaveLength(1);
    expect(warned[0]).toMatchObject({ level: 'warn', client: '192.0.2.7' });
  });

  it('the bucket: a burst, then the rate, refilled with time and never past the burst', () => {
    const b = new TokenBuckets({ perSecond: 10, burst: 3 });
    expect([0, 0, 0].map(() => b.take('a', 0))).toEqual([0, 0, 0]);
    expect(b.take('a', 0)).toBe(100);
    expect(b.take('a', 50)).toBe(50);
    expect(b.take('a', 100)).toBe(0);
    expect(b.take('b', 100)).toBe(0);
    // An hour idle refills to the burst, not to 36,000.
    expect([0, 0, 0, 0].map(() => b.take('a', 3_600_000))).toEqual([0, 0, 0, 100]);
    // Clients beyond the memory bound forget the quietest first.
    const small = new TokenBuckets({ perSecond: 1, burst: 1 }, 2);
    small.take('x', 0);
    small.take('y', 0);
    small.take('z', 0);
    expect(small.take('z', 0)).toBe(1000);
    expect(small.take('x', 0)).toBe(0);
  });
});
