// Nothing lost while scanrelay is down: the real server (a child process, the real clock) connected to a fake Sonarr,
// stopped; Sonarr imports five episodes and renames one file meanwhile; started again, every one of those folders
// reaches the fake Plex within 30 s, and nothing Sonarr did before scanrelay first knew it is scanned. Every request
// to Sonarr carried X-Api-Key, and the key is in no log line and on no page.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ARR_KEYS } from '../arr/harness.js';
import { FakeArrApp } from '../fakes/arr-app.js';
import { FakePlex } from '../fakes/plex.js';
import { killChildren, startServer } from '../support/child.js';
import { writeConfigFile } from '../support/config-file.js';
import { until } from '../support/until.js';

const SECRET = 'a11ce0a11ce0a11ce0a11ce0a11ce0a1';
const folder = (n: number) => `/data/media/tv/Show ${n}/Season 01`;
const sonarrFile = (n: number, name = `Show ${n} - S01E01.mkv`) => `/tv/Show ${n}/Season 01/${name}`;
const importRecord = (n: number) => ({
  episodeId: 100 + n,
  seriesId: n,
  sourceTitle: `Show.${n}.S01E01.1080p.WEB-NTb`,
  downloadId: `SABnzbd_nzo_${n}`,
  eventType: 'downloadFolderImported',
  data: { fileId: String(n), droppedPath: `/downloads/Show.${n}.S01E01.mkv`, importedPath: sonarrFile(n) },
  id: n,
});

let plex: FakePlex | undefined;
let sonarr: FakeArrApp | undefined;
afterEach(async () => {
  killChildren();
  await plex?.stop();
  await sonarr?.stop();
});

describe('the history catch-up, end to end', () => {
  it('stopped; 5 imports and 1 rename in Sonarr; started: all 6 folders reach Plex within 30 s, and nothing from before the first connection', async () => {
    plex = await new FakePlex().start();
    sonarr = await new FakeArrApp('sonarr', ARR_KEYS.sonarr).start();
    const dir = mkdtempSync(join(tmpdir(), 'scanrelay-arr-e2e-'));
    const config = writeConfigFile(dir, {
      SERVER_PASS: SECRET,
      SERVER_IP: '127.0.0.1',
      PLEX_LOCAL_URL: plex.url,
      PLEX_TOKEN: plex.token,
      PLEX_SCAN_MODE: 'api',
      PLEX_NOTIFICATIONS: false,
      PLEX_CONFIRM_SCANS: false,
      SERVER_MAX_FILE_CHECKS: 0,
      SERVER_PATH_MAPPINGS: { '/data/media/tv/': ['/tv/'] },
      ARR: [{ NAME: 'sonarr', TYPE: 'sonarr', URL: sonarr.url, API_KEY: sonarr.apiKey }],
    });
    const queuefile = join(dir, 'queue.db');
    // What Sonarr did a day before scanrelay knew it.
    for (const n of [91, 92]) sonarr.write(importRecord(n), Date.now() - 86_400_000);

    const first = await startServer({ config, queuefile, dir });
    await until(async () => ((await (await fetch(`${first.url}/health`)).json()) as { arr: { state: string }[] }).arr[0]?.state === 'up', { what: 'the first connection' });
    first.child.proc.kill('SIGTERM');
    await first.child.exited;

    // While scanrelay is down: five imports, and a rename in a sixth folder (its webhooks would have failed).
    const down = Date.now();
    for (const n of [1, 2, 3, 4, 5]) sonarr.write(importRecord(n), down);
    sonarr.write({ episodeId: 106, seriesId: 6, sourceTitle: sonarrFile(6, 'show.6.s01e01.mkv'), eventType: 'episodeFileRenamed', data: { sourcePath: sonarrFile(6, 'show.6.s01e01.mkv'), path: sonarrFile(6) }, id: 6 }, down);

    const started = Date.now();
    const second = await startServer({ config, queuefile, dir });
    const wanted = [1, 2, 3, 4, 5, 6].map(folder);
    await until(() => wanted.every((f) => plex!.refreshes.some((r) => r.path === f)), { ms: 30_000, what: () => `refreshes so far: ${JSON.stringify(plex!.refreshes)}` });
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(plex.refreshes.map((r) => r.path).sort()).toEqual(wanted);

    // Every request to Sonarr carried its key in the header; none carried it anywhere else.
    expect(sonarr.requests.length).toBeGreaterThan(4);
    for (const r of sonarr.requests) {
      expect(r.headers['x-api-key']).toBe(sonarr.apiKey);
      expect(r.path + JSON.stringify(r.query)).not.toContain(sonarr.apiKey);
    }
    const pages = await Promise.all([`${second.url}/health`, `${second.url}/${SECRET}/dashboard`, `${second.url}/${SECRET}/doctor`, `${second.url}/metrics`].map(async (u) => (await fetch(u)).text()));
    const health = JSON.parse(pages[0]) as { arr: { caughtUp: number; reachable: boolean }[] };
    expect(health.arr[0]).toMatchObject({ reachable: true, caughtUp: 6 });
    second.child.proc.kill('SIGTERM');
    await second.child.exited;
    const log = readFileSync(join(dir, 'log.txt'), 'utf8');
    for (const text of [...pages, log, first.child.output(), second.child.output()]) expect(text).not.toContain(sonarr.apiKey);
    expect(log).toContain("sonarr 'sonarr' is caught up from now");
    expect(log).toMatch(/Added '\/data\/media\/tv\/Show 6\/Season 01' to the queue \(sonarr-history Rename\)/);
  }, 60_000);
});
