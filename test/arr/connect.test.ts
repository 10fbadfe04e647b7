// `scanrelay connect`, the real command against fake arr apps and a fake Plex on 127.0.0.1: one Webhook entry per app
// however often it runs (found by its URL or its name), the file events on, the secret and the key never printed,
// and each root folder with the library holding it or the mapping line to add.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { freePort } from '../support/net.js';
import { FakeArrApp } from '../fakes/arr-app.js';
import { FakePlex } from '../fakes/plex.js';
import { killChildren, runCli } from '../support/child.js';
import { writeConfigFile } from '../support/config-file.js';
import { ARR_KEYS } from './harness.js';

const SECRET = 'c0ffee00c0ffee00c0ffee00c0ffee00';
const RELAY = 'http://relay.example:3468';

let plex: FakePlex;
let sonarr: FakeArrApp;
let radarr: FakeArrApp;
let dir: string;

beforeEach(async () => {
  plex = await new FakePlex().start();
  sonarr = await new FakeArrApp('sonarr', ARR_KEYS.sonarr).start();
  radarr = await new FakeArrApp('radarr', ARR_KEYS.radarr).start();
  sonarr.rootFolders = ['/tv', '/anime'];
  radarr.rootFolders = ['/media/movies'];
  dir = mkdtempSync(join(tmpdir(), 'scanrelay-connect-'));
  writeConfigFile(dir, {
    SERVER_PASS: SECRET,
    PLEX_LOCAL_URL: plex.url,
    PLEX_TOKEN: plex.token,
    SERVER_PATH_MAPPINGS: { '/data/media/tv/': ['/tv/'] },
    ARR: [
      { NAME: 'sonarr', TYPE: 'sonarr', URL: sonarr.url, API_KEY: sonarr.apiKey },
      { NAME: 'radarr', TYPE: 'Radarr', URL: radarr.url, API_KEY: radarr.apiKey },
    ],
  });
});
afterEach(async () => {
  await Promise.all([plex.stop(), sonarr.stop(), radarr.stop()]);
});

async function connect(...args: string[]): Promise<{ code: number | null; out: string }> {
  const child = runCli(['connect', ...args, '--config', join(dir, 'config.json'), '--queuefile', join(dir, 'q.db'), '--logfile', join(dir, 'scanrelay.log')], { cwd: dir });
  const code = await child.exited;
  const out = child.output();
  for (const secret of [SECRET, sonarr.apiKey, radarr.apiKey]) expect(out).not.toContain(secret);
  return { code, out };
}

describe('scanrelay connect', () => {
  it('run twice leaves one Webhook entry posting to <url>/<SERVER_PASS> with the file events on, and says which library holds each root folder', async () => {
    const first = await connect('sonarr', '--url', RELAY);
    expect(first.code).toBe(0);
    expect(first.out).toContain(`sonarr 'sonarr' (Sonarr 4.0.14.2939): added the Webhook connection 'scanrelay' (id 100): POST ${RELAY}/<SERVER_PASS> on onDownload, onUpgrade, onRename, onSeriesDelete, onEpisodeFileDelete.`);
    expect(first.out).toContain("Root folders of sonarr 'sonarr':\n  /tv -> /data/media/tv: plex: TV Shows (section 2); but scanrelay does not see this folder where it checks that files exist (set SERVER_FILE_EXIST_PATH_MAPPINGS, or SERVER_MAX_FILE_CHECKS 0)\n  /anime: No library holds '/anime' and no SERVER_PATH_MAPPINGS entry matched the path: it would be recorded as unmatched at once, not queued.\n");
    const second = await connect('sonarr', '--url', `${RELAY}/`);
    expect(second.code).toBe(0);
    expect(second.out).toContain("the Webhook connection 'scanrelay' (id 100) already posts");
    expect(sonarr.webhooks()).toHaveLength(1);
    const [entry] = sonarr.webhooks();
    expect(entry.fields).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'url', value: `${RELAY}/${SECRET}` }), expect.objectContaining({ name: 'method', value: 1 })]));
    expect(entry).toMatchObject({ name: 'scanrelay', implementation: 'Webhook', onDownload: true, onUpgrade: true, onRename: true, onSeriesDelete: true, onEpisodeFileDelete: true, onGrab: false, onHealthIssue: false });
    // The app tested the URL: scanrelay did not ask it to save untested.
    expect(sonarr.requests.filter((r) => r.method === 'POST').map((r) => r.query.forceSave)).toEqual(['false']);
    expect(radarr.requests).toEqual([]);
  });

  it("updates the entry it finds by its URL (an older secret) or by the name scanrelay, never adding one; without a name, every app; the mapping line for a root no library holds", async () => {
    sonarr.notifications.push({ id: 7, name: 'my relay', implementation: 'Webhook', configContract: 'WebhookSettings', fields: [{ name: 'url', value: `${RELAY}/old-secret` }, { name: 'method', value: 2 }], onDownload: true, tags: [] });
    radarr.notifications.push({ id: 3, name: 'ScanRelay', implementation: 'Webhook', configContract: 'WebhookSettings', fields: [{ name: 'url', value: 'http://old-host:3468/x' }, { name: 'method', value: 1 }], tags: [] });
    radarr.notifications.push({ id: 4, name: 'Discord', implementation: 'Discord', fields: [], tags: [] });
    const run = await connect('--url', RELAY);
    expect(run.code).toBe(0);
    expect(run.out).toContain("updated the Webhook connection 'my relay' (id 7)");
    expect(run.out).toContain("updated the Webhook connection 'ScanRelay' (id 3)");
    expect(run.out).toContain(`Add "/data/media/movies/": ["/media/movies/"] to SERVER_PATH_MAPPINGS in config.json, keeping every entry there`);
    expect(run.out).toContain(`so that it reads "SERVER_PATH_MAPPINGS": { "/data/media/tv/": ["/tv/"], "/data/media/movies/": ["/media/movies/"] }`);
    expect(sonarr.notifications.map((n) => [n.id, n.name])).toEqual([[7, 'my relay']]);
    expect(radarr.notifications.map((n) => n.id)).toEqual([3, 4]);
    expect(radarr.webhooks()[0]).toMatchObject({ onDownload: true, onUpgrade: true, onRename: true, onMovieDelete: true, onMovieFileDelete: true });
    expect(sonarr.webhooks()[0].fields).toEqual(expect.arrayContaining([{ name: 'url', value: `${RELAY}/${SECRET}` }, { name: 'method', value: 1 }]));
  });

  it('an app that cannot reach the URL is said, with what to do, and nothing is saved; --force saves it untested; an unknown name lists the names', async () => {
    sonarr.testFails = true;
    const refused = await connect('sonarr', '--url', RELAY);
    expect(refused.code).toBe(1);
    expect(refused.out).toMatch(/sonarr 'sonarr' tested the URL and did not save it: .*Unable to send test message.*Start scanrelay, check that --url is its address as the app reaches it, and run this again \(--force saves it untested\)/);
    expect(sonarr.webhooks()).toEqual([]);
    const forced = await connect('sonarr', '--url', RELAY, '--force');
    expect(forced.code).toBe(0);
    expect(sonarr.webhooks()).toHaveLength(1);
    const unknown = await connect('lidarr', '--url', RELAY);
    expect(unknown.code).toBe(1);
    expect(unknown.out).toContain("No ARR entry is named 'lidarr' in");
    expect(unknown.out).toContain('the entries are: sonarr, radarr.');
    const badUrl = await connect('sonarr', '--url', 'relay.example:3468');
    expect(badUrl.code).not.toBe(0);
    expect(badUrl.out).toContain("expected this relay's http:// or https:// URL as the app reaches it");
  });

  it('updates the running relay: an ARR entry added to config.json is read again, /health lists the app, nothing queued is lost; without a relay, one line says when it is read', async () => {
    const port = await freePort();
    const base = { SERVER_PASS: SECRET, SERVER_IP: '127.0.0.1', SERVER_PORT: port, PLEX_LOCAL_URL: plex.url, PLEX_TOKEN: plex.token, SERVER_PATH_MAPPINGS: { '/data/media/tv/': ['/tv/'] }, SERVER_ALLOW_MANUAL_SCAN: true };
    // No relay yet: connect says when the entries are read.
    writeConfigFile(dir, { ...base, ARR: [{ NAME: 'sonarr', TYPE: 'sonarr', URL: sonarr.url, API_KEY: sonarr.apiKey }] });
    const alone = await connect('sonarr', '--url', `http://127.0.0.1:${port}`);
    expect(alone.out).toContain(`No relay answers at http://127.0.0.1:${port}: when \`npx scanrelay server\` starts, it reads these ARR entries.`);

    writeConfigFile(dir, base);
    const server = runCli(['server', '--config', join(dir, 'config.json'), '--queuefile', join(dir, 'q.db'), '--logfile', join(dir, 'scanrelay.log')], { cwd: dir });
    try {
      await server.waitFor(/scanrelay is running/, 60_000);
      const health = async () => (await (await fetch(`http://127.0.0.1:${port}/health`)).json()) as { arr: { name: string }[]; queue: { folders: number } };
      expect((await health()).arr).toEqual([]);
      // A folder queued before: still queued after the entries are read again.
      const queued = await fetch(`http://127.0.0.1:${port}/${SECRET}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ eventType: 'Manual', filepath: '/tv/Show/Season 01/' }) });
      expect(queued.status).toBe(200);

      writeConfigFile(dir, { ...base, ARR: [{ NAME: 'sonarr', TYPE: 'sonarr', URL: sonarr.url, API_KEY: sonarr.apiKey }] });
      const run = await connect('sonarr', '--url', `http://127.0.0.1:${port}`);
      expect(run.code).toBe(0);
      expect(run.out).toContain(`The running relay at http://127.0.0.1:${port} read ARR again: now reads sonarr (/health lists each app).`);
      const after = await health();
      expect(after.arr.map((a) => a.name)).toEqual(['sonarr']);
      expect(after.queue.folders).toBe(1);
      // The app is caught up at once: its first reading sets where the next one starts.
      await server.waitFor(/sonarr 'sonarr' is caught up from now/, 30_000);
      expect(server.output()).toContain('ARR read again from the config file: added sonarr.');
      // Run again: nothing changes.
      expect((await connect('sonarr', '--url', `http://127.0.0.1:${port}`)).out).toContain('read ARR again: it already reads sonarr');
      // A file with a mistake is refused with its key named, and the relay keeps what it reads.
      writeConfigFile(dir, { ...base, ARR: [{ NAME: 'sonarr', TYPE: 'sonarr', URL: 'sonarr:8989', API_KEY: sonarr.apiKey }] });
      const refused = await fetch(`http://127.0.0.1:${port}/api/${SECRET}/arr/reload`, { method: 'POST' });
      expect(refused.status).toBe(422);
      expect(((await refused.json()) as { error: string }).error).toMatch(/^config error in .*config\.json: ARR\[0\]\.URL: expected an http:\/\/ or https:\/\/ URL/);
      expect((await health()).arr.map((a) => a.name)).toEqual(['sonarr']);
    } finally {
      killChildren('SIGTERM');
      await server.exited;
    }
  }, 120_000);
});
