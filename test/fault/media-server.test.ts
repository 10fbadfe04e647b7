// Media server faults from a fake Plex: 401, 403, 404, 500, timeouts, connection resets, down for a simulated
// hour (ManualClock). Nothing is lost, no folder blocks another, retries are bounded and visible in the queue.
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { PlexTarget } from '../../src/targets/plex/target.js';
import { named } from '../support/target.js';
import { FakePlex, type Failure } from '../fakes/plex.js';
import { leakedSecrets } from '../support/log-audit.js';
import { SECRET, serviceLogs, testService, type TestService } from '../support/service.js';

let t: TestService | undefined;
let plex: FakePlex | undefined;
afterEach(async () => {
  await t?.close();
  await plex?.stop();
  t = undefined;
  plex = undefined;
});
afterAll(() => {
  expect(serviceLogs().length).toBeGreaterThan(0);
  expect(leakedSecrets(serviceLogs())).toEqual([]);
});

/** A service whose one Plex target is our fake, with a short request timeout so 'hang' costs little. */
async function setup(fetchImpl?: typeof fetch): Promise<{ t: TestService; plex: FakePlex }> {
  plex = await new FakePlex({ token: 'fault-plex-token' }).start();
  const p = plex;
  t = await testService({
    config: { SERVER_SCAN_DELAY: 10, SERVER_SCAN_RETRY_MAX_DELAY: 300 } as never,
    targets: [],
  });
  // The target needs the service's clock: rebuild the service with it.
  const clock = t.clock;
  await t.close();
  t = await testService({
    config: { SERVER_SCAN_DELAY: 10, SERVER_SCAN_RETRY_MAX_DELAY: 300 } as never,
    targets: [named(new PlexTarget({ url: p.url, token: p.token, clock, timeoutMs: 300, confirmScans: false, fetch: fetchImpl }), { name: 'plex' })],
  });
  t.clock.set(clock.now());
  return { t, plex: p };
}

async function queue(svc: TestService, shows: string[]): Promise<void> {
  for (const show of shows) {
    const res = await svc.service.app.inject({
      method: 'POST',
      url: `/${SECRET}`,
      payload: { eventType: 'Download', series: { path: `/data/media/tv/${show}` }, episodeFile: { path: `/data/media/tv/${show}/Season 01/e01.mkv` } },
    });
    expect(res.statusCode).toBe(200);
  }
}
const folder = (show: string) => `/data/media/tv/${show}/Season 01`;
const delivered = (p: FakePlex) => new Set(p.refreshes.map((r) => r.path));

describe('media server faults', () => {
  const failures: [string, Failure][] = [
    ['401', { status: 401 }],
    ['403', { status: 403 }],
    ['404', { status: 404 }],
    ['500', { status: 500 }],
    ['a timeout', 'hang'],
    ['a connection reset', 'reset'],
  ];
  for (const [label, failure] of failures) {
    it(`${label}: folders stay queued with the error recorded, then all are delivered once Plex answers`, async () => {
      const { t, plex } = await setup();
      const shows = ['A', 'B', 'C'];
      await queue(t, shows);
      plex.failure = failure;
      t.clock.advance(11_000);
      await t.service.processor.drain();
      expect(t.service.queue.count()).toBe(3);
      // Visible: some delivery carries an attempt and the error; the target's health says why.
      const rows = t.service.queue.list();
      const deliveries = rows.flatMap((r) => t.service.queue.deliveries(r.id));
      expect(deliveries.length).toBe(3);
      expect(deliveries.some((d) => d.attempts >= 1 && d.lastError)).toBe(true);
      const health = (await t.service.app.inject({ url: '/health' })).json();
      expect(health.queue.folders).toBe(3);

      // The failed attempts may have reached the refresh (the library list was read before the failure began).
      const failed = plex.refreshes.length;
      plex.failure = undefined;
      for (let i = 0; i < 20 && t.service.queue.count() > 0; i++) {
        t.clock.advance(60_000);
        await t.service.processor.drain();
      }
      expect(t.service.queue.count()).toBe(0);
      for (const s of shows) expect(delivered(plex).has(folder(s))).toBe(true);
      // Bounded: exactly one successful refresh per folder, and history records the attempts.
      expect(plex.refreshes.length - failed).toBe(3);
      const history = t.service.queue.history(10);
      expect(history.map((h) => h.folder).sort()).toEqual(shows.map(folder).sort());
      expect(history.every((h) => h.outcome !== 'pending')).toBe(true);
    });
  }

  it('one folder whose scans hang or fail does not block the others', async () => {
    const poison = folder('Poison');
    const faulty: typeof fetch = async (input, init) => {
      const u = new URL(String(input instanceof Request ? input.url : input));
      if (u.searchParams.get('path') === poison) return new Response('', { status: 404 });
      return fetch(input, init);
    };
    const { t, plex } = await setup(faulty);
    const shows = Array.from({ length: 20 }, (_, i) => `Good ${i}`);
    await queue(t, ['Poison', ...shows]);
    t.clock.advance(11_000);
    await t.service.processor.drain();
    for (const s of shows) expect(delivered(plex).has(folder(s))).toBe(true);
    expect(t.service.queue.count()).toBe(1);
    const row = t.service.queue.get(poison)!;
    const [d] = t.service.queue.deliveries(row.id);
    expect(d.attempts).toBe(1);
    expect(d.lastError).toMatch(/404/);
    // Retries are bounded by the backoff: over an hour, far fewer than one per second.
    for (let i = 0; i < 60; i++) {
      t.clock.advance(60_000);
      await t.service.processor.drain();
    }
    const after = t.service.queue.deliveries(row.id)[0];
    expect(after.attempts).toBeGreaterThan(1);
    expect(after.attempts).toBeLessThanOrEqual(20); // 5 s doubling, capped at 300 s: <= ~17 in an hour
  });

  it('Plex down for a simulated hour: nothing lost, probes bounded, every folder delivered exactly once after', async () => {
    const { t, plex } = await setup();
    const shows = Array.from({ length: 50 }, (_, i) => `Down ${i}`);
    await queue(t, shows);
    plex.failure = 'reset';
    const before = plex.requests.length;
    for (let s = 0; s < 3600; s += 10) {
      t.clock.advance(10_000);
      await t.service.processor.drain();
    }
    const during = plex.requests.length - before;
    // One failed first attempt opens the outage; then only probes, at most one per 30 s (+ jitter).
    expect(during).toBeLessThanOrEqual(3600 / 24 + 20);
    expect(t.service.queue.count()).toBe(50);
    const health = (await t.service.app.inject({ url: '/health' })).json();
    expect(health.targets[0].up).toBe(false);
    expect(health.targets[0].lastError).toBeTruthy();

    const failed = plex.refreshes.length;
    plex.failure = undefined;
    for (let i = 0; i < 10 && t.service.queue.count() > 0; i++) {
      t.clock.advance(30_000);
      await t.service.processor.drain();
    }
    expect(t.service.queue.count()).toBe(0);
    expect(plex.refreshes.length - failed).toBe(50);
    expect(delivered(plex).size).toBe(50);
  });
});
