// `scanrelay reconcile` end to end: the real CLI (a child process) against the model Sonarr or Radarr and the model
// Plex or Jellyfin, with a real queue file and a real `scanrelay server` on it. One file the app has and the server
// lacks is named by --dry-run (nothing queued) and scanned after `reconcile` (it becomes an item); an item the app
// does not know is named and left alone; a file the server spells in NFD or another case is not missing; a second
// run finds nothing missing; the API key is in no output and no log line.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ARR_KEYS } from '../arr/harness.js';
import { FakeArrApp, type ArrAppType } from '../fakes/arr-app.js';
import { startJellyfinServer, type JellyfinServer } from '../fakes/jellyfin-server.js';
import { FakePlex } from '../fakes/plex.js';
import { killChildren, runCli, startServer } from '../support/child.js';
import { writeConfigFile } from '../support/config-file.js';
import { countIn } from '../support/queue-file.js';
import { until } from '../support/until.js';
import { arrOperations, asOperation } from '../support/arr-operations.js';
import { mismatch } from '../support/sdk-operations.js';

const SECRET = 'c0ffeec0ffeec0ffeec0ffeec0ffee00';
let plex: FakePlex | undefined;
let jellyfin: JellyfinServer | undefined;
let app: FakeArrApp | undefined;
afterEach(async () => {
  killChildren();
  await plex?.stop();
  await jellyfin?.close();
  await app?.stop();
  plex = jellyfin = app = undefined;
});

/** The app's files as it names them (`/data/tv/...`, `/data/movies/...`): one the server lacks, one it spells in NFD, one in another case. */
function layout(type: ArrAppType) {
  const tv = type === 'sonarr';
  const root = tv ? '/data/tv' : '/data/movies';
  const file = (name: string) => (tv ? `${root}/${name}/Season 01/${name} - S01E01.mkv` : `${root}/${name} (2020)/${name} (2020).mkv`);
  // The series' or movie's folder: /data/<kind>/<name>.
  const item = (f: string) => f.split('/').slice(0, 4).join('/');
  return { root, file, item, names: ['Alpha', 'Bravo', 'Amélie', 'Charlie'], missing: 'Bravo', unknown: file('Zulu') };
}

async function reconcile(args: string[], config: string, queuefile: string, dir: string): Promise<{ code: number | null; out: string }> {
  const child = runCli(['--config', config, '--queuefile', queuefile, '--logfile', join(dir, 'cli.log'), 'reconcile', ...args], { cwd: dir });
  const code = await child.exited;
  return { code, out: child.output() };
}

describe.each([
  ['sonarr', 'plex'],
  ['sonarr', 'jellyfin'],
  ['radarr', 'plex'],
] as const)('reconcile %s with %s', (type, server) => {
  it('names the missing file (dry run queues nothing), scans it, names the unknown item and leaves it; a second run finds nothing missing', { timeout: 120_000 }, async () => {
    const L = layout(type);
    app = await new FakeArrApp(type, ARR_KEYS[type]).start();
    app.rootFolders = [L.root];
    const files = L.names.map(L.file);
    for (const f of files) app.addFile(app.addItem(L.item(f)), f);

    // The server's form of a path: Plex sees /mnt/media/... (SERVER_PATH_MAPPINGS), Jellyfin /media/... (its PATH_MAPPINGS).
    const dir = mkdtempSync(join(tmpdir(), 'scanrelay-reconcile-'));
    const serverRoot = server === 'plex' ? '/mnt/media' : '/media';
    const onServer = (p: string) => p.replace('/data', serverRoot);
    // How the server spells what it has: Amélie decomposed (NFD), Charlie in upper case; Bravo it lacks.
    const spelled = (p: string) => (p.includes('Amélie') ? p.normalize('NFD') : p.includes('Charlie') ? p.replace('Charlie', 'CHARLIE') : p);
    const have = files.filter((f) => !f.includes(L.missing)).map((f) => spelled(onServer(f)));
    const missingFile = files.find((f) => f.includes(L.missing))!;
    const unknown = onServer(L.unknown);
    const library = onServer(L.root);
    let target: object;
    if (server === 'plex') {
      plex = await new FakePlex({ sections: [{ key: '2', title: 'Library', type: type === 'sonarr' ? 'show' : 'movie', locations: [library] }] }).start();
      for (const f of [...have, unknown]) plex.addToLibrary(f);
      plex.onDisk.add(onServer(missingFile));
      target = { PLEX_LOCAL_URL: plex.url, PLEX_TOKEN: plex.token, PLEX_SCAN_MODE: 'api', PLEX_NOTIFICATIONS: false, PLEX_CONFIRM_SCANS: false, SERVER_PATH_MAPPINGS: { '/mnt/media/': ['/data/'] } };
    } else {
      jellyfin = await startJellyfinServer();
      jellyfin.model.addLibrary('Library', type === 'sonarr' ? 'tvshows' : 'movies', library);
      for (const f of [...have, unknown]) jellyfin.model.writeFile(f);
      jellyfin.model.settle();
      jellyfin.model.writeFile(onServer(missingFile));
      target = { PLEX_ENABLED: false, TARGETS: [{ NAME: 'jellyfin', TYPE: 'jellyfin', URL: jellyfin.url, TOKEN: jellyfin.token, SCAN_METHOD: 'item', PATH_MAPPINGS: { '/media/': ['/data/'] } }] };
    }
    const config = writeConfigFile(dir, {
      SERVER_PASS: SECRET,
      SERVER_IP: '127.0.0.1',
      SERVER_SCAN_DELAY: 0,
      SERVER_MAX_FILE_CHECKS: 0,
      ARR: [{ NAME: type, TYPE: type, URL: app.url, API_KEY: app.apiKey }],
      ...target,
    });
    const queuefile = join(dir, 'queue.db');
    const targetName = server === 'plex' ? 'plex' : 'jellyfin';

    // --dry-run: the missing file and the unknown item named, nothing queued.
    const dry = await reconcile(['--dry-run'], config, queuefile, dir);
    expect(dry.out).toContain(`${targetName}: 4 file(s) of the app in its libraries, 4 item(s); missing 1, unknown to the app 1`);
    expect(dry.out).toContain(`      ${missingFile}\n`);
    expect(dry.out).toContain(`      ${unknown.normalize('NFC')}\n`);
    expect(dry.out).toContain('--dry-run: nothing was queued.');
    expect(dry.code).toBe(0);
    expect(countIn(queuefile, 'SELECT COUNT(*) AS n FROM folders')).toBe(0);

    // With a server on the same queue file: the missing file's folder is scanned and becomes an item.
    const running = await startServer({ config, queuefile, dir });
    const queued = await reconcile([], config, queuefile, dir);
    expect(queued.code).toBe(0);
    expect(queued.out).toContain('queued the folders of 1 missing file(s)');
    const folder = onServer(missingFile).split('/').slice(0, -1).join('/');
    if (plex) {
      await until(() => plex!.refreshes.some((r) => r.path === folder), { ms: 30_000, what: () => `refreshes: ${JSON.stringify(plex!.refreshes)}` });
      plex.finishScans();
      expect(plex.library.has(onServer(missingFile))).toBe(true);
    } else {
      await until(() => jellyfin!.requests.some((r) => r.method === 'POST' && r.path.endsWith('/Refresh')), { ms: 30_000, what: 'the refresh' });
      await jellyfin!.scheduler.advance(120_000);
      expect([...jellyfin!.model.items.values()].some((i) => i.Path === onServer(missingFile))).toBe(true);
    }
    await until(() => countIn(queuefile, `SELECT COUNT(*) AS n FROM history WHERE source = '${type}-reconcile'`) >= 1, { ms: 30_000, what: 'the history row' });

    // A second run: nothing missing; the unknown item is still named, and still there.
    const again = await reconcile([], config, queuefile, dir);
    expect(again.code).toBe(0);
    expect(again.out).toContain(`missing 0, unknown to the app 1`);
    if (plex) {
      expect(plex.library.has(unknown)).toBe(true);
      expect(plex.requests.filter((r) => r.method === 'DELETE' || r.path.includes('emptyTrash'))).toEqual([]);
    } else {
      expect([...jellyfin!.model.items.values()].some((i) => i.Path === unknown)).toBe(true);
      expect(jellyfin!.requests.filter((r) => r.method === 'DELETE')).toEqual([]);
    }

    // Every request to the app is an operation of its own document, with the key in X-Api-Key and nowhere else.
    const ops = arrOperations(type);
    for (const r of app.requests) {
      expect(mismatch(asOperation(r, 'sent'), ops, true), `${r.method} ${r.path}`).toBeUndefined();
      expect(r.headers['x-api-key']).toBe(app.apiKey);
    }
    running.child.proc.kill('SIGTERM');
    await running.child.exited;
    const everything = [dry.out, queued.out, again.out, running.child.output(), readFileSync(join(dir, 'cli.log'), 'utf8'), readFileSync(join(dir, 'log.txt'), 'utf8')].join('\n');
    expect(everything).not.toContain(app.apiKey);
  });
});
