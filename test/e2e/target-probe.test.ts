// Targets are asked at start and every idle minute: a wrong PLEX_TOKEN or a stopped Plex shows on /health, the
// dashboard and the log within seconds, with what to do, while queued folders keep waiting.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FakePlex } from '../fakes/plex.js';
import { killChildren, startServer, type Child } from '../support/child.js';
import { writeConfigFile } from '../support/config-file.js';
import { freePort } from '../support/net.js';
import { testService } from '../support/service.js';
import { until } from '../support/until.js';

const SECRET = '5ca1ab1e5ca1ab1e5ca1ab1e5ca1ab1e';
const plexes: FakePlex[] = [];
afterAll(async () => {
  killChildren();
  for (const p of plexes) await p.stop();
});

type Health = { status: string; queue: { folders: number }; targets: { name: string; up: boolean; lastError?: string }[] };

async function serve(plexUrl: string, token: string): Promise<{ child: Child; url: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'scanrelay-probe-'));
  const config = writeConfigFile(dir, { SERVER_PASS: SECRET, SERVER_IP: '127.0.0.1', PLEX_LOCAL_URL: plexUrl, PLEX_TOKEN: token, PLEX_SCAN_MODE: 'api', SERVER_ALLOW_MANUAL_SCAN: true });
  return startServer({ config, queuefile: join(dir, 'queue.db'), dir, timeoutMs: 30_000 });
}

/** Polls /health until the first target is down; the default scan delay (180 s) means no scan was tried. */
async function downWithin(url: string, ms: number): Promise<Health> {
  let health: Health | undefined;
  const down = async () => {
    health = (await (await fetch(`${url}/health`)).json()) as Health;
    return !!health.targets[0] && !health.targets[0].up;
  };
  await until(down, { ms, every: 100, what: () => `still up: ${JSON.stringify(health)}` });
  return health!;
}

describe('targets probed at start', { timeout: 90_000 }, () => {
  it('a wrong PLEX_TOKEN: /health, the dashboard and the log say so within seconds; a queued folder keeps waiting', async () => {
    const plex = await new FakePlex().start();
    plexes.push(plex);
    const { child, url } = await serve(plex.url, 'not-the-token');
    const health = await downWithin(url, 10_000);
    expect(health.status).toBe('degraded');
    expect(health.targets[0].lastError).toMatch(/refused the token \(HTTP 401 .*put a valid X-Plex-Token in PLEX_TOKEN/);
    await child.waitFor(/Target plex is unavailable: .*PLEX_TOKEN/, 5_000); // the log is written in batches
    expect(plex.requests.some((r) => r.path === '/identity')).toBe(true);

    const res = await fetch(`${url}/${SECRET}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ eventType: 'Manual', filepath: '/data/media/tv/Show/S01/e1.mkv' }) });
    expect(res.status).toBe(200);
    const after = (await (await fetch(`${url}/health`)).json()) as Health;
    expect(after.queue.folders).toBe(1);

    const page = await (await fetch(`${url}/${SECRET}/dashboard`)).text();
    expect(page).toMatch(/>down</);
    expect(page).toContain('put a valid X-Plex-Token in PLEX_TOKEN');
  });

  it('a stopped Plex (connection refused): down within seconds, with what to check', async () => {
    const closed = await freePort();
    const { child, url } = await serve(`http://127.0.0.1:${closed}`, 'any-token');
    const health = await downWithin(url, 10_000);
    expect(health.targets[0].lastError).toMatch(/^Plex at \S+ did not answer GET \/identity \(ECONNREFUSED\): start it, or point PLEX_LOCAL_URL at it$/);
    // One sentence, not "right?." as before.
    await child.waitFor(/Target plex is unavailable/, 5_000);
    expect(child.output()).not.toMatch(/\?\./);
  });
});

describe('targets probed every idle minute', () => {
  it('a token revoked while idle shows at the next minute, not at the next scan', async () => {
    const t = await testService();
    try {
      t.service.processor.start();
      const health = () => t.service.processor.health()[0];
      await expect.poll(() => t.plex.requests.filter((r) => r.path === '/identity').length, { timeout: 10_000 }).toBe(1);
      await expect.poll(() => t.plex.requests.filter((r) => r.path === '/library/sections').length, { timeout: 10_000 }).toBe(1);
      await t.service.processor.idle(); // the probe's answer is in
      expect(health().up).toBe(true);

      t.plex.token = 'revoked';
      t.clock.advance(59_000);
      await new Promise((r) => setTimeout(r, 1_500)); // the loop passes at least once a second
      expect(t.plex.requests.filter((r) => r.path === '/identity')).toHaveLength(1);
      t.clock.advance(1_000);
      await expect.poll(() => health().up, { timeout: 10_000 }).toBe(false);
      expect(health().lastError).toMatch(/PLEX_TOKEN/);
      expect(t.logs.join('')).toMatch(/Target plex is unavailable/);
    } finally {
      await t.close();
    }
  });
});
