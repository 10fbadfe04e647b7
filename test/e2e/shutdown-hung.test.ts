// SIGTERM while Plex sits on a refresh: the server exits within 10 s (docker's stop timeout; systemd allows more),
// and the scan it never heard back about stays queued and is delivered after the restart.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FakePlex } from '../fakes/plex.js';
import { killChildren, startServer } from '../support/child.js';
import { writeConfigFile } from '../support/config-file.js';
import { until } from '../support/until.js';

const SECRET = '5ca1ab1e5ca1ab1e5ca1ab1e5ca1ab1e';
const plexes: FakePlex[] = [];
afterAll(async () => {
  killChildren();
  for (const p of plexes) await p.stop();
});

describe('SIGTERM with a hung Plex', { timeout: 60_000 }, () => {
  it('exits within 10 s, and the unanswered scan is sent again after the restart', async () => {
    const plex = await new FakePlex().start();
    plexes.push(plex);
    plex.hangWhen = (path) => /\/refresh$/.test(path);
    const dir = mkdtempSync(join(tmpdir(), 'scanrelay-sigterm-'));
    const config = writeConfigFile(dir, {
      SERVER_PASS: SECRET,
      SERVER_IP: '127.0.0.1',
      PLEX_LOCAL_URL: plex.url,
      PLEX_TOKEN: plex.token,
      PLEX_SCAN_MODE: 'api',
      SERVER_SCAN_DELAY: 0,
      SERVER_MAX_FILE_CHECKS: 0,
      PLEX_CONFIRM_SCANS: false,
    });
    const queuefile = join(dir, 'queue.db');
    const first = await startServer({ config, queuefile, dir });
    const body = { eventType: 'Download', series: { path: '/data/media/tv/Show' }, episodeFile: { path: '/data/media/tv/Show/Season 01/e01.mkv' } };
    const res = await fetch(`${first.url}/${SECRET}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect(res.status).toBe(200);
    await until(() => plex.refreshes.length === 1, { what: 'the refresh reached Plex' });

    const asked = Date.now();
    first.child.proc.kill('SIGTERM');
    const code = await first.child.exited;
    const took = Date.now() - asked;
    expect(code).toBe(0);
    expect(took).toBeLessThan(10_000);
    expect(first.child.output()).toMatch(/they stay queued and are sent again at the next start/);

    plex.hangWhen = undefined;
    const second = await startServer({ config, queuefile, dir });
    await until(() => plex.refreshes.length === 2, { what: 'the refresh sent again after the restart' });
    expect(plex.refreshes[1]).toEqual({ section: '2', path: '/data/media/tv/Show/Season 01' });
    second.child.proc.kill('SIGTERM');
    expect(await second.child.exited).toBe(0);
  });
});
