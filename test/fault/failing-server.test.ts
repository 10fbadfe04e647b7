// A Plex that answers but fails, hangs or points elsewhere, through the real service and processor (ManualClock,
// fake Plex servers on 127.0.0.1): a failure backs off its own folder, only silence takes the server down, several
// timeouts at once are one step down, and a token never follows a redirect to another server.
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { Target } from '../../src/scan.js';
import { FakePlex } from '../fakes/plex.js';
import { leakedSecrets } from '../support/log-audit.js';
import { SECRET, serviceLogs, testService, type TestService } from '../support/service.js';
import { until } from '../support/until.js';

let t: TestService | undefined;
const others: FakePlex[] = [];
afterEach(async () => {
  await t?.close();
  t = undefined;
  for (const o of others.splice(0)) await o.stop();
});
afterAll(() => expect(leakedSecrets(serviceLogs())).toEqual([]));

const folder = (show: string) => `/data/media/tv/${show}/Season 01`;

async function queue(svc: TestService, show: string): Promise<void> {
  const res = await svc.service.app.inject({
    method: 'POST',
    url: `/${SECRET}`,
    payload: { eventType: 'Download', series: { path: `/data/media/tv/${show}` }, episodeFile: { path: `/data/media/tv/${show}/Season 01/e01.mkv` } },
  });
  expect(res.statusCode).toBe(200);
}

/** Lets sockets, timers and group commits of this turn run (a loopback answer takes about a millisecond). */
const settle = () => new Promise((r) => setTimeout(r, 15));
const refreshesOf = (p: FakePlex, show: string) => p.refreshes.filter((r) => r.path === folder(show)).length;
const linesMatching = (svc: TestService, re: RegExp) => svc.logs.filter((l) => re.test(l)).length;

describe('a Plex that answers every refresh with 500', () => {
  it('backs off the folder (5, 10, 20 s …), never marks the server down, one log line per attempt', async () => {
    t = await testService({ config: { SERVER_SCAN_DELAY: 1, PLEX_CONFIRM_SCANS: false } });
    t.plex.failRoute('GET', /\/refresh$/, 500);
    await queue(t, 'Broken');
    const health = () => t!.service.processor.health()[0];
    for (let ms = 0; ms < 61_000; ms += 250) {
      t.clock.advance(250);
      await t.service.processor.drain();
      expect(health().up).toBe(true);
    }
    const attempts = refreshesOf(t.plex, 'Broken');
    // Due at 1 s, then 5, 10, 20, 40 s of backoff (75-100% each): 4 or 5 tries in a minute, not 60.
    expect(attempts).toBeGreaterThanOrEqual(4);
    expect(attempts).toBeLessThanOrEqual(5);
    const [d] = t.service.queue.deliveries(t.service.queue.get(folder('Broken'))!.id);
    expect(d.attempts).toBe(attempts);
    expect(d.lastError).toMatch(/answered 500/);
    expect(linesMatching(t, /Scan of '.*Broken.*' on plex failed/)).toBe(attempts);
    expect(linesMatching(t, /is unavailable|is available again/)).toBe(0);
  });

  it('a 500 for one folder does not hold the others back', async () => {
    t = await testService({ config: { SERVER_SCAN_DELAY: 1, PLEX_CONFIRM_SCANS: false } });
    const broken = t.plex;
    broken.failRoute('GET', /\/refresh$/, 500, 1);
    await queue(t, 'First');
    t.clock.advance(1_500);
    await t.service.processor.drain();
    expect(refreshesOf(broken, 'First')).toBe(1); // answered 500
    await queue(t, 'Second');
    t.clock.advance(1_500);
    await t.service.processor.drain();
    // Before the fix the 500 took the server down and the second folder waited for a probe.
    expect(refreshesOf(broken, 'Second')).toBe(1);
    expect(t.service.queue.get(folder('Second'))).toBeUndefined();
    expect(refreshesOf(broken, 'First')).toBe(1); // still in its own 5 s backoff
  });
});

describe('a refresh that hangs', () => {
  it('eight hung refreshes free their slots at the timeout, take the server down once, and a healthy folder goes ~31 s after', async () => {
    t = await testService({ config: { SERVER_SCAN_DELAY: 1, PLEX_CONFIRM_SCANS: false } });
    const svc = t;
    svc.plex.hangWhen = (path, query) => /\/refresh$/.test(path) && /Hung/.test(query.path ?? '');
    for (let i = 0; i < 8; i++) await queue(svc, `Hung ${i}`);
    svc.clock.advance(1_100);
    await svc.service.processor.tick();
    await until(() => svc.plex.refreshes.length === 8, { what: () => `${svc.plex.refreshes.length} refreshes` });
    await queue(svc, 'Healthy');
    svc.clock.advance(1_100);
    await svc.service.processor.tick();
    const dueAt = svc.clock.now();
    await settle();
    expect(refreshesOf(svc.plex, 'Healthy')).toBe(0); // all 8 slots are held
    let deliveredAfter: number | undefined;
    for (let ms = 0; ms < 70_000 && deliveredAfter === undefined; ms += 250) {
      svc.clock.advance(250);
      await settle();
      await svc.service.processor.tick();
      await settle();
      if (refreshesOf(svc.plex, 'Healthy') > 0) deliveredAfter = svc.clock.now() - dueAt;
    }
    // The per-request timeout (30 s) plus one probe a second later; before the fix 57-60 s.
    expect(deliveredAfter).toBeDefined();
    expect(deliveredAfter!).toBeLessThanOrEqual(32_000);
    expect(linesMatching(svc, /Target plex is unavailable/)).toBe(1);
    expect(linesMatching(svc, /Scan of '.*Hung 3.*' on plex failed \(attempt 1\): .*did not answer/)).toBe(1);
  });

  it('several timeouts at once are one step down: the probe comes about a second later, not 30 s', async () => {
    t = await testService({ config: { SERVER_SCAN_DELAY: 1, PLEX_CONFIRM_SCANS: false } });
    const svc = t;
    svc.plex.hangWhen = (path) => /\/refresh$/.test(path);
    for (let i = 0; i < 8; i++) await queue(svc, `Hung ${i}`);
    svc.clock.advance(1_100);
    await svc.service.processor.tick();
    await until(() => svc.plex.refreshes.length === 8);
    svc.clock.advance(30_000);
    await until(() => svc.service.processor.health()[0].inFlight === 0, { what: 'the 8 slots freed at the timeout' });
    const h = svc.service.processor.health()[0];
    expect(h.up).toBe(false);
    expect(h.nextProbeAt! - h.downSince!).toBeLessThanOrEqual(1_000);
  });
});

describe('a refused token on a refresh', () => {
  it('backs off the folder and has the server probed once; a token that still lists libraries keeps it up', async () => {
    t = await testService({ config: { SERVER_SCAN_DELAY: 1, PLEX_CONFIRM_SCANS: false } });
    t.plex.failRoute('GET', /\/refresh$/, 403);
    await queue(t, 'Managed');
    t.clock.advance(1_500);
    await t.service.processor.drain();
    // The probe starts with /identity; the scan itself never asks for it.
    expect(t.plex.requests.filter((r) => r.path === '/identity')).toHaveLength(1);
    expect(t.service.processor.health()[0].up).toBe(true);
    expect(t.service.queue.deliveries(t.service.queue.get(folder('Managed'))!.id)[0].lastError).toMatch(/403.*PLEX_TOKEN/);
  });
});

describe('redirects (tokens stay home)', () => {
  it('a 302 to another port is a failed delivery naming the Location and PLEX_LOCAL_URL; the other server sees nothing', async () => {
    t = await testService({ config: { SERVER_SCAN_DELAY: 1, PLEX_CONFIRM_SCANS: false } });
    const elsewhere = await new FakePlex({ token: t.plex.token }).start();
    others.push(elsewhere);
    t.plex.redirect = { to: elsewhere.url, paths: /\/refresh$/ };
    await queue(t, 'Moved');
    t.clock.advance(1_500);
    await t.service.processor.drain();
    expect(elsewhere.requests).toEqual([]);
    const row = t.service.queue.get(folder('Moved'))!;
    const [d] = t.service.queue.deliveries(row.id);
    expect(d.state).toBe('pending');
    expect(d.lastError).toContain(`redirected GET /library/sections/2/refresh to ${elsewhere.url}/library/sections/2/refresh`);
    expect(d.lastError).toContain(`set PLEX_LOCAL_URL to ${elsewhere.url}`);
    expect(t.service.queue.history(10)).toEqual([]);
    expect(t.service.processor.health()[0].up).toBe(true); // Plex answered: the folder backs off, the server stays up
  });

  it('a server that redirects everything elsewhere is shown down with the same advice, and still gets no token', async () => {
    t = await testService({ config: { SERVER_SCAN_DELAY: 1 } });
    const elsewhere = await new FakePlex({ token: t.plex.token }).start();
    others.push(elsewhere);
    t.plex.redirect = { to: elsewhere.url, paths: /./ };
    t.service.processor.start();
    const svc = t;
    await until(() => !svc.service.processor.health()[0].up, { what: 'plex down' });
    expect(svc.service.processor.health()[0].lastError).toContain(`set PLEX_LOCAL_URL to ${elsewhere.url}`);
    expect(elsewhere.requests).toEqual([]);
  });

  it('a same-origin redirect is followed once, with the token', async () => {
    t = await testService({ config: { SERVER_SCAN_DELAY: 1, PLEX_CONFIRM_SCANS: false } });
    t.plex.redirect = { to: t.plex.url, paths: /\/refresh$/ };
    await queue(t, 'Same');
    t.clock.advance(1_500);
    await t.service.processor.drain();
    const followed = t.plex.requests.filter((r) => r.query.redirected === '1');
    expect(followed).toHaveLength(1);
    expect(followed[0].token).toBe(t.plex.token);
    expect(t.service.queue.count()).toBe(0);
    expect(t.service.queue.history(1)[0]).toMatchObject({ outcome: 'scanned', target: 'plex' });
  });
});

describe('/health after the first probe', () => {
  it('a failed first probe shows the target down at once, before any other probe', async () => {
    let calls = 0;
    const flaky: Target = {
      name: 'flaky',
      kind: 'plex',
      pauseMs: 0,
      async scan() {
        return { status: 'scanned' };
      },
      async available() {
        calls++;
        // Only the first answer fails: a second probe at start (as before) would show it up again.
        return calls === 1 ? { ok: false, error: 'Plex at http://plex.invalid answered 500' } : { ok: true };
      },
    };
    t = await testService({ targets: [flaky] });
    const url = await t.service.listen(0, '127.0.0.1');
    await until(async () => (await fetch(`${url}/health?ready`)).status === 200);
    const health = (await (await fetch(`${url}/health`)).json()) as { status: string; targets: { up: boolean; lastError?: string }[] };
    expect(health.targets[0].up).toBe(false);
    expect(health.targets[0].lastError).toMatch(/answered 500/);
    expect(health.status).toBe('degraded');
    expect(calls).toBe(1);
  });
});
