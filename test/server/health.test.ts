// /health names the running version; /health?ready is 503 until the queue is open and every target has been
// probed once; `scanrelay --version` prints the same version.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Target } from '../../src/scan.js';
import { runCli } from '../support/child.js';
import { repoRoot } from '../support/fixtures.js';
import { testService, type TestService } from '../support/service.js';

const pkgVersion = (JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { version: string }).version;

/** A target whose first probe answers only when the test says so. */
function heldTarget(name: string) {
  let answer!: (r: { ok: true } | { ok: false; error: string }) => void;
  const probe = new Promise<{ ok: true } | { ok: false; error: string }>((resolve) => (answer = resolve));
  const target: Target = {
    name,
    kind: 'test',
    pauseMs: 0,
    scan: async () => ({ status: 'scanned' }),
    available: () => probe,
  };
  return { target, answer: (r: { ok: true } | { ok: false; error: string }) => answer(r) };
}

let t: TestService | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

describe('/health', () => {
  it('carries the version of the running scanrelay', async () => {
    t = await testService();
    const res = await t.service.app.inject({ url: '/health' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ status: 'ok', version: pkgVersion });
    expect(pkgVersion).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('?ready is 503 until the queue is open and every target has been probed once, then 200', async () => {
    const slow = heldTarget('slow');
    const quick = heldTarget('quick');
    t = await testService({ targets: [slow.target, quick.target] });
    // Built but not started: nothing is open for business yet.
    let res = await t.service.app.inject({ url: '/health?ready' });
    expect(res.statusCode).toBe(503);
    expect(res.json()).toEqual({ status: 'starting', version: pkgVersion, ready: false, waitingFor: ['queue', 'target slow', 'target quick'] });

    await t.service.listen(0, '127.0.0.1');
    quick.answer({ ok: true });
    await expect.poll(async () => (await t!.service.app.inject({ url: '/health?ready' })).json().waitingFor).toEqual(['target slow']);
    expect((await t.service.app.inject({ url: '/health?ready' })).statusCode).toBe(503);
    // Plain /health answers all along (liveness), and says it is not ready yet.
    res = await t.service.app.inject({ url: '/health' });
    expect(res.statusCode).toBe(200);
    expect(res.json().ready).toBe(false);

    // A server that answers "down" has been probed all the same: ready, and /health says which one is down.
    slow.answer({ ok: false, error: 'connect ECONNREFUSED 127.0.0.1:1' });
    await expect.poll(async () => (await t!.service.app.inject({ url: '/health?ready' })).statusCode).toBe(200);
    res = await t.service.app.inject({ url: '/health?ready' });
    expect(res.json()).toMatchObject({ version: pkgVersion, ready: true });
    expect(t.service.readiness.state().targets).toEqual([
      { name: 'quick', ok: true },
      { name: 'slow', ok: false, error: 'connect ECONNREFUSED 127.0.0.1:1' },
    ]);
    // Said once, by the processor that now holds the target down (not again as "First probe of slow failed").
    const said = t.logs.filter((l) => l.includes('connect ECONNREFUSED 127.0.0.1:1'));
    expect(said).toHaveLength(1);
    expect(said[0]).toContain('Target slow is unavailable');
  });

  it('?ready with no target configured needs only the queue', async () => {
    t = await testService({ targets: [] });
    expect((await t.service.app.inject({ url: '/health?ready' })).statusCode).toBe(503);
    await t.service.listen(0, '127.0.0.1');
    expect((await t.service.app.inject({ url: '/health?ready' })).statusCode).toBe(200);
  });

  it('a target that never answers its first probe counts as probed after the limit', async () => {
    const { Readiness } = await import('../../src/server/readiness.js');
    const mute = heldTarget('mute');
    const r = new Readiness(['mute']);
    r.queueOpened();
    const { silentLogger } = await import('../../src/log/logger.js');
    await r.probeTargets([mute.target], silentLogger, 20);
    expect(r.state()).toEqual({ ready: true, waitingFor: [], targets: [{ name: 'mute', ok: false, error: 'no answer within 0 s' }] });
  });
});

describe('scanrelay --version', () => {
  it('prints the version from package.json', async () => {
    const child = runCli(['--version']);
    expect(await child.exited).toBe(0);
    expect(child.output().trim()).toBe(pkgVersion);
  });
});
