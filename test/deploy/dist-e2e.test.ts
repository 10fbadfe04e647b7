// A slice of the end-to-end tests against dist/scanrelay.mjs, the program users start (npm start, the scanrelay
// command, the image), run as a child process with the launchers' Node flags: a Sonarr webhook to a Plex refresh,
// the dashboard, the OpenAPI document (the same as the sources serve), and a config error. dist/ is what
// `npm run build` makes (`npm ci` runs it as `prepare`; test/support/dist.ts builds it when stale, and says so).
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NODE_FLAGS } from '../support/launch.js';
import { FakePlex } from '../fakes/plex.js';
import { killChildren, runCli, startServer } from '../support/child.js';
import { writeConfigFile } from '../support/config-file.js';
import { repoRoot } from '../support/fixtures.js';
import { DIST, ensureDist } from '../support/dist.js';
import { until } from '../support/until.js';

const SECRET = 'd157d157d157d157d157d157d157d157';
const SEASON = '/data/media/tv/The Expanse (2015)/Season 01';
let plex: FakePlex;

/** `node <NODE_FLAGS> dist/scanrelay.mjs ... server`, as npm start runs it, on a config of `values`. */
async function startDist(values: object, from: 'dist' | 'sources' = 'dist') {
  const dir = mkdtempSync(join(tmpdir(), 'scanrelay-dist-'));
  const config = writeConfigFile(dir, { SERVER_PASS: SECRET, SERVER_IP: '127.0.0.1', ...values });
  return startServer({ config, queuefile: join(dir, 'queue.db'), dir, ...(from === 'dist' ? { entry: DIST, nodeArgs: NODE_FLAGS } : { root: repoRoot }), timeoutMs: 30_000 });
}

beforeAll(async () => {
  ensureDist();
  plex = await new FakePlex({ sections: [{ key: '2', title: 'TV', type: 'show', locations: ['/data/media/tv'] }] }).start();
}, 120_000);
afterAll(async () => {
  killChildren();
  await plex?.stop();
});

describe('dist/scanrelay.mjs as users start it', { timeout: 90_000 }, () => {
  it('a Sonarr webhook is queued and Plex refreshes the season; the dashboard shows it', async () => {
    const { url, child } = await startDist({ SERVER_SCAN_DELAY: 0, SERVER_MAX_FILE_CHECKS: 0, PLEX_LOCAL_URL: plex.url, PLEX_TOKEN: plex.token });
    const body = readFileSync(join(repoRoot, 'test', 'fixtures', 'arr', 'sonarr-download.json'), 'utf8');
    const res = await fetch(`${url}/${SECRET}`, { method: 'POST', headers: { 'content-type': 'application/json', 'user-agent': 'Sonarr/4.0.14.2939' }, body });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { queued: { folder: string }[] }).queued[0].folder).toBe(SEASON);
    await until(() => plex.refreshes.some((r) => r.path === SEASON), { ms: 15_000, what: 'a Plex refresh of the season folder' });

    const page = await fetch(`${url}/${SECRET}/dashboard`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    await until(async () => (await (await fetch(`${url}/${SECRET}/dashboard`)).text()).includes(SEASON), { ms: 15_000, what: 'the season on the dashboard' });
  });

  it('serves the OpenAPI document the sources serve, key for key', async () => {
    const values = { PLEX_LOCAL_URL: plex.url, PLEX_TOKEN: plex.token };
    const [built, source] = await Promise.all([startDist(values), startDist(values, 'sources')]);
    const documentOf = async (base: string) => {
      const res = await fetch(`${base}/api/${SECRET}/openapi.json`);
      expect(res.status).toBe(200);
      return res.json() as Promise<{ openapi: string; paths: Record<string, unknown> }>;
    };
    const [fromDist, fromSource] = await Promise.all([documentOf(built.url), documentOf(source.url)]);
    expect(fromDist.openapi).toMatch(/^3\./);
    expect(Object.keys(fromDist.paths)).toContain('/api/{secret}/scan');
    expect(fromDist).toEqual(fromSource);
  });

  it('started with no Node flag (npx, the installed command), it runs as started and says nothing of how', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'scanrelay-dist-'));
    const config = writeConfigFile(dir, { SERVER_PASS: SECRET, SERVER_IP: '127.0.0.1', PLEX_LOCAL_URL: plex.url, PLEX_TOKEN: plex.token });
    const { url, child } = await startServer({ config, queuefile: join(dir, 'queue.db'), dir, entry: DIST, nodeArgs: [], env: { NODE_OPTIONS: '', MALLOC_TRIM_THRESHOLD_: undefined }, timeoutMs: 30_000 });
    expect((await fetch(`${url}/health`)).status).toBe(200);
    // The PID the test spawned runs the program it was given, with no flag added, and no line about Node's flags.
    expect(readFileSync(`/proc/${child.proc.pid}/cmdline`, 'utf8').split('\0').slice(1, 2)).toEqual([DIST]);
    expect(child.output()).not.toMatch(/heap limit|Started again/);
    expect(child.output().match(/Listening on/g)).toHaveLength(1);
  });

  it('a config with a wrong value: one line naming the key and what was expected, exit 1', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'scanrelay-dist-'));
    const config = join(dir, 'config.json');
    writeFileSync(config, JSON.stringify({ SERVER_PASS: SECRET, SERVER_PORT: 'eighty' }));
    const child = runCli(['--config', config, '--queuefile', join(dir, 'queue.db'), 'server'], { cwd: dir, entry: DIST, nodeArgs: NODE_FLAGS });
    expect(await child.exited).toBe(1);
    const lines = child.output().trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(config);
    expect(lines[0]).toMatch(/SERVER_PORT: expected an integer 1-65535/);
  });
});
