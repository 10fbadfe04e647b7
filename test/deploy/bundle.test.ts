// The program users run is the bundle (dist/scanrelay.mjs, built by scripts/bundle.mjs), not the files tsc emits:
// built here from this checkout, it answers --version and --help, serves, queues a real Sonarr webhook, and scans.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NODE_FLAGS } from '../../src/cli/node-flags.js';
import { FakePlex } from '../fakes/plex.js';
import { killChildren, runCli, startServer } from '../support/child.js';
import { writeConfigFile } from '../support/config-file.js';
import { repoRoot } from '../support/fixtures.js';
import { until } from '../support/until.js';

const SECRET = 'b0d1e5b0d1e5b0d1e5b0d1e5b0d1e5b0';
// Inside the checkout's node_modules, so the bundle finds better-sqlite3 as dist/scanrelay.mjs does.
const bundle = join(repoRoot, 'node_modules', '.cache', `scanrelay-test-bundle-${createHash('sha1').update(repoRoot).digest('hex').slice(0, 8)}`, 'scanrelay.mjs');
const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { version: string; bin: { scanrelay: string } };
let plex: FakePlex | undefined;

beforeAll(() => {
  execFileSync(process.execPath, [join(repoRoot, 'scripts', 'bundle.mjs'), bundle], { cwd: repoRoot, stdio: 'pipe' });
}, 60_000);
afterAll(async () => {
  killChildren();
  await plex?.stop();
});

describe('the bundle', () => {
  it('is what the scanrelay command and npm start run', () => {
    expect(pkg.bin.scanrelay).toBe('dist/scanrelay.mjs');
  });

  it('answers --version and --help', async () => {
    const version = runCli(['--version'], { entry: bundle });
    expect(await version.exited).toBe(0);
    expect(version.output().trim()).toBe(pkg.version);
    const help = runCli(['--help'], { entry: bundle });
    expect(await help.exited).toBe(0);
    for (const command of ['server', 'sections', 'explain', 'rclone', 'authorize', 'backup']) expect(help.output()).toContain(command);
  });

  it('serves: a Sonarr v4 download is queued and scanned in Plex', async () => {
    plex = await new FakePlex({ sections: [{ key: '2', title: 'TV', type: 'show', locations: ['/data/media/tv'] }] }).start();
    const dir = mkdtempSync(join(tmpdir(), 'scanrelay-bundle-'));
    const config = writeConfigFile(dir, {
      SERVER_PASS: SECRET,
      SERVER_IP: '127.0.0.1',
      SERVER_SCAN_DELAY: 0,
      SERVER_MAX_FILE_CHECKS: 0,
      PLEX_LOCAL_URL: plex.url,
      PLEX_TOKEN: plex.token,
      SERVER_PATH_MAPPINGS: { '/data/media/tv/': ['/tv/'] },
    });
    // As npm start, the image and the unit run it: with the Node flags, so no advice about them is logged.
    const { url, child } = await startServer({ config, queuefile: join(dir, 'queue.db'), dir, entry: bundle, nodeArgs: NODE_FLAGS });
    const body = readFileSync(join(repoRoot, 'test', 'fixtures', 'arr', 'sonarr-v4-download-bench.json'), 'utf8');
    const res = await fetch(`${url}/${SECRET}`, { method: 'POST', headers: { 'content-type': 'application/json', 'user-agent': 'Sonarr/4.0.14.2939' }, body });
    expect(res.status).toBe(200);
    const answer = (await res.json()) as { queued: { folder: string }[] };
    expect(answer.queued[0].folder).toBe('/data/media/tv/Severance (2022)/Season 02');
    await until(() => plex!.refreshes.some((r) => r.path === '/data/media/tv/Severance (2022)/Season 02'), { ms: 15_000, what: 'a Plex refresh of the season folder' });
    const metrics = await (await fetch(`${url}/metrics`)).text();
    expect(metrics).toMatch(/scanrelay_requests_total\{[^}]*source="sonarr"[^}]*\} 1/);
    expect((await fetch(`${url}/health`)).status).toBe(200);
    expect(child.output()).toContain('Listening on');
    expect(child.output()).not.toContain('Node runs ');
  }, 60_000);
});
