// The program users run is the bundle (dist/scanrelay.mjs, built by scripts/bundle.mjs), not the files tsc emits:
// built here from this checkout, it answers --version and --help, serves, queues a real Sonarr webhook, and scans.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NODE_FLAGS } from '../support/launch.js';
import { FakePlex } from '../fakes/plex.js';
import { attachPlexNotifications } from '../fakes/plex-notifications.js';
import { killChildren, runCli, startServer } from '../support/child.js';
import { writeConfigFile } from '../support/config-file.js';
import { repoRoot } from '../support/fixtures.js';
import { until } from '../support/until.js';

const SECRET = 'b0d1e5b0d1e5b0d1e5b0d1e5b0d1e5b0';
// Inside the checkout's node_modules, so the bundle finds better-sqlite3 as dist/scanrelay.mjs does.
const bundle = join(repoRoot, 'node_modules', '.cache', `scanrelay-test-bundle-${createHash('sha1').update(repoRoot).digest('hex').slice(0, 8)}`, 'scanrelay.mjs');
const TLS_FIXTURES = join(repoRoot, 'test', 'fixtures', 'tls');
const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { version: string; bin: { scanrelay: string } };
let plex: FakePlex | undefined;

beforeAll(() => {
  execFileSync(process.execPath, [join(repoRoot, 'scripts', 'bundle.mjs'), bundle], { cwd: repoRoot, stdio: 'pipe' });
}, 60_000);
afterAll(async () => {
  killChildren();
  await plex?.stop();
});

/** The source files (as `src/...` or `node_modules/<package>/...`) in a file of the bundle, from its source map. */
function sourcesOf(file: string): string[] {
  const map = JSON.parse(readFileSync(`${file}.map`, 'utf8')) as { sources: string[] };
  // Sources are relative to the chunk: resolved first, since the test's bundle itself sits in node_modules/.cache.
  return map.sources.map((s) => {
    const abs = resolve(dirname(file), s);
    const nm = abs.lastIndexOf('/node_modules/');
    if (nm >= 0) return abs.slice(nm + 1);
    const src = abs.lastIndexOf('/src/');
    return src >= 0 ? abs.slice(src + 1) : abs;
  });
}

/** What a running server must not have loaded: the other commands, and what it loads only when needed. */
const NOT_AT_IDLE = [
  'src/cli/program.ts',
  'src/cli/rclone.ts',
  'src/cli/import-autoscan.ts',
  'src/cli/import-autopulse.ts',
  'src/config/foreign-config.ts',
  'node_modules/yaml/dist/index.js',
  'node_modules/smol-toml/dist/parse.js',
  'src/cli/backup.ts',
  'src/cli/check.ts',
  'src/cli/authorize.ts',
  'src/drive/monitor.ts',
  // The history catch-up and `scanrelay connect`: only with ARR entries, only for the command.
  'src/arr/connected.ts',
  'src/arr/catch-up.ts',
  'src/arr/client.ts',
  'src/arr/history.ts',
  'src/cli/connect.ts',
  'src/server/openapi.ts',
  'src/server/dashboard-page.ts',
  'src/server/charts.ts',
  'node_modules/cli-progress/cli-progress.js',
  // Imported with the first notification socket (src/http/media-socket.ts), not at start.
  'node_modules/ws/lib/websocket.js',
];

/** The bundle's files a process loaded, from the record test/support/record-loads.mjs writes. */
function loadedFiles(record: string): string[] {
  // Resolved: the checkout's node_modules may be a link (a worktree), and module URLs are real paths.
  const root = realpathSync(dirname(bundle));
  return readFileSync(record, 'utf8').trim().split('\n').map((u) => fileURLToPath(u)).filter((f) => f.startsWith(root));
}

/** The bundle's server with the launchers' flags and these test/support recorders loaded first (`--import`). */
function startRecorded(dir: string, config: string, recorders: string[], env: NodeJS.ProcessEnv) {
  const imports = recorders.flatMap((r) => ['--import', pathToFileURL(join(repoRoot, 'test', 'support', r)).href]);
  return startServer({ config, queuefile: join(dir, 'queue.db'), dir, entry: bundle, nodeArgs: [...NODE_FLAGS, ...imports], env });
}

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

  it('splits what the server does not run at start into chunks of their own', () => {
    const chunks = readdirSync(join(dirname(bundle), 'chunks')).filter((f) => f.endsWith('.mjs'));
    const everywhere = new Set(chunks.flatMap((c) => sourcesOf(join(dirname(bundle), 'chunks', c))));
    // So the test below cannot pass because a name changed: every one of them is in the build.
    for (const source of NOT_AT_IDLE) expect([...everywhere]).toContain(source);
    expect(sourcesOf(bundle)).not.toContain('src/cli/program.ts');
    // The import commands' parsers (yaml, smol-toml) are in one chunk with the reader that uses them, which the
    // commands load by import() when they run: not with the other commands, not with the server.
    const parsers = chunks.filter((c) => sourcesOf(join(dirname(bundle), 'chunks', c)).some((s) => /^node_modules\/(yaml|smol-toml)\//.test(s)));
    expect(parsers).toHaveLength(1);
    expect(sourcesOf(join(dirname(bundle), 'chunks', parsers[0]))).toEqual(expect.arrayContaining(['src/config/foreign-config.ts', 'src/config/toml.ts', 'src/config/yaml.ts']));
    expect(sourcesOf(join(dirname(bundle), 'chunks', parsers[0]))).not.toContain('src/cli/program.ts');
    // The OpenAPI document is made by our own code (src/server/openapi.ts): swagger is not in the bundle at all.
    expect([...everywhere, ...sourcesOf(bundle)].filter((s) => s.includes('@fastify/swagger'))).toEqual([]);
    // zod is imported as a namespace (`import * as z`), so the bundle keeps only what the schemas use: through
    // `import { z }` it kept all of zod, 40 locales included (440 KB more source, +6.6 MB idle RSS on Node 24).
    const zodLocales = [...everywhere].filter((s) => s.startsWith('node_modules/zod/') && s.includes('/locales/'));
    expect(zodLocales.map((s) => s.split('/').pop())).toEqual(['en.js']);
  });

  it('holds every file of ours as written in src/: no module substituted, so the tests run what users run', () => {
    const files = [bundle, ...readdirSync(join(dirname(bundle), 'chunks')).filter((f) => f.endsWith('.mjs')).map((c) => join(dirname(bundle), 'chunks', c))];
    const ours = files.flatMap((file) => {
      const map = JSON.parse(readFileSync(`${file}.map`, 'utf8')) as { sources: string[]; sourcesContent: string[] };
      return sourcesOf(file).flatMap((source, i) => (source.startsWith('src/') ? [{ source, text: map.sourcesContent[i] }] : []));
    });
    // The server's own files among them (so the check cannot pass on an empty list).
    expect(ours.map((o) => o.source)).toEqual(expect.arrayContaining(['src/server/schemas.ts', 'src/server/openapi.ts', 'src/http/media-socket.ts', 'src/cli/index.ts']));
    for (const { source, text } of ours) expect(text, source).toBe(readFileSync(join(repoRoot, source), 'utf8'));
  });

  it("imports an autopulse config with the parsers' chunk, which another command does not load", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'scanrelay-bundle-import-'));
    const loads = (record: string) => new Set(loadedFiles(record).flatMap((f) => sourcesOf(f)));
    const recorded = (record: string) => ({ entry: bundle, nodeArgs: ['--import', pathToFileURL(join(repoRoot, 'test', 'support', 'record-loads.mjs')).href], env: { LOADS_RECORD: record } });
    const help = runCli(['--help'], recorded(join(dir, 'help.txt')));
    expect(await help.exited).toBe(0);
    expect(loads(join(dir, 'help.txt'))).toContain('src/cli/program.ts');
    expect(loads(join(dir, 'help.txt'))).not.toContain('src/config/foreign-config.ts');
    const imported = runCli(['import-autopulse', join(repoRoot, 'test', 'fixtures', 'autopulse', 'config.toml')], recorded(join(dir, 'import.txt')));
    expect(await imported.exited).toBe(0);
    expect(imported.output()).toContain('"PLEX_ENABLED": false');
    expect([...loads(join(dir, 'import.txt'))]).toEqual(expect.arrayContaining(['src/config/foreign-config.ts', 'node_modules/smol-toml/dist/parse.js']));
  }, 60_000);

  it('a started server has loaded none of the other commands, the Drive monitor (GOOGLE off), the pages, swagger or TLS', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'scanrelay-bundle-loads-'));
    const record = join(dir, 'loads.txt');
    const config = writeConfigFile(dir, { SERVER_PASS: SECRET, SERVER_IP: '127.0.0.1', SERVER_SCAN_DELAY: 0, PLEX_LOCAL_URL: 'http://127.0.0.1:9', PLEX_TOKEN: 'x' });
    const builtinsRecord = join(dir, 'builtins.txt');
    const { url, child } = await startRecorded(dir, config, ['record-loads.mjs', 'record-builtins.mjs'], { LOADS_RECORD: record, BUILTINS_RECORD: builtinsRecord });
    // Requests an idle relay gets (health checks, a scrape): still nothing of the rest.
    expect((await fetch(`${url}/health`)).status).toBe(200);
    await (await fetch(`${url}/metrics`)).text();
    await until(() => existsSync(record), { ms: 5_000, what: 'the record of loaded modules' });
    const sources = new Set(loadedFiles(record).flatMap((f) => sourcesOf(f)));
    expect(sources).toContain('src/cli/server.ts');
    expect(sources).toContain('src/server/app.ts');
    for (const source of NOT_AT_IDLE) expect([...sources], `${source} was loaded by the server`).not.toContain(source);
    // The control API's document is made when asked for (its module loaded then), without swagger.
    const doc = (await (await fetch(`${url}/api/${SECRET}/openapi.json`)).json()) as { openapi: string; paths: Record<string, unknown> };
    expect(doc.openapi).toMatch(/^3\./);
    expect(Object.keys(doc.paths)).toContain('/api/{secret}/queue');
    expect(new Set(loadedFiles(record).flatMap((f) => sourcesOf(f)))).toContain('src/server/openapi.ts');
    child.proc.kill('SIGTERM');
    await child.exited;
    // Nor what only some paths need: TLS for https:// and wss:// (Fastify and ws require https, tls and http2 at
    // load, given stand-ins by scripts/bundle.mjs; 5-9 MB on Node 24), assert to throw, zlib to compress, and
    // node:fs/promises, which the relay's file checks do without (src/file-system.ts; 1.1 MB on Node 24).
    const builtins = readFileSync(builtinsRecord, 'utf8').trim().split('\n');
    expect(builtins).toContain('http');
    for (const name of ['tls', 'https', 'http2']) expect(builtins, `${name} was loaded by a relay with only http:// servers`).not.toContain(name);
    for (const name of ['assert', 'zlib', 'fs/promises']) expect(builtins, `${name} was loaded by an idle relay`).not.toContain(name);
  }, 60_000);

  it('an https:// Plex: the refresh goes over TLS and the notification socket over wss://, TLS loaded when first needed', async () => {
    const tls = { key: readFileSync(join(TLS_FIXTURES, 'localhost-key.pem'), 'utf8'), cert: readFileSync(join(TLS_FIXTURES, 'localhost-cert.pem'), 'utf8') };
    const securePlex = await new FakePlex({ sections: [{ key: '2', title: 'TV', type: 'show', locations: ['/data/media/tv'] }], tls }).start();
    const notifications = attachPlexNotifications(securePlex);
    const dir = mkdtempSync(join(tmpdir(), 'scanrelay-bundle-tls-'));
    const builtinsRecord = join(dir, 'builtins.txt');
    try {
      expect(securePlex.url).toMatch(/^https:/);
      const config = writeConfigFile(dir, { SERVER_PASS: SECRET, SERVER_IP: '127.0.0.1', SERVER_SCAN_DELAY: 0, SERVER_MAX_FILE_CHECKS: 0, PLEX_LOCAL_URL: securePlex.url, PLEX_TOKEN: securePlex.token, SERVER_PATH_MAPPINGS: { '/data/media/tv/': ['/tv/'] } });
      const { url, child } = await startRecorded(dir, config, ['record-builtins.mjs'], { NODE_EXTRA_CA_CERTS: join(TLS_FIXTURES, 'localhost-cert.pem'), BUILTINS_RECORD: builtinsRecord });
      const body = readFileSync(join(repoRoot, 'test', 'fixtures', 'arr', 'sonarr-v4-download-bench.json'), 'utf8');
      const res = await fetch(`${url}/${SECRET}`, { method: 'POST', headers: { 'content-type': 'application/json', 'user-agent': 'Sonarr/4.0.14.2939' }, body });
      expect(res.status).toBe(200);
      await until(() => securePlex.refreshes.some((r) => r.path === '/data/media/tv/Severance (2022)/Season 02'), { ms: 15_000, what: 'a refresh sent to the https:// Plex' });
      await until(() => notifications.upgrades.some((u) => u.accepted), { ms: 15_000, what: 'the notification socket opened over wss://' });
      child.proc.kill('SIGTERM');
      await child.exited;
      const builtins = readFileSync(builtinsRecord, 'utf8').trim().split('\n');
      expect(builtins).toContain('tls');
      expect(builtins).toContain('https');
    } finally {
      await securePlex.stop();
    }
  }, 60_000);

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
      SERVER_ALLOW_MANUAL_SCAN: true,
    });
    // As npm start, the image and the unit run it: with the Node flags, so no advice about them is logged.
    const { url, child } = await startServer({ config, queuefile: join(dir, 'queue.db'), dir, entry: bundle, nodeArgs: NODE_FLAGS });
    const body = readFileSync(join(repoRoot, 'test', 'fixtures', 'arr', 'sonarr-v4-download-bench.json'), 'utf8');
    const res = await fetch(`${url}/${SECRET}`, { method: 'POST', headers: { 'content-type': 'application/json', 'user-agent': 'Sonarr/4.0.14.2939' }, body });
    expect(res.status).toBe(200);
    const answer = (await res.json()) as { queued: { folder: string }[] };
    expect(answer.queued[0].folder).toBe('/data/media/tv/Severance (2022)/Season 02');
    await until(() => plex!.refreshes.some((r) => r.path === '/data/media/tv/Severance (2022)/Season 02'), { ms: 15_000, what: 'a Plex refresh of the season folder' });
    // The control API's schemas: ajv and fast-json-stringify come from node_modules at their first use.
    const refused = await fetch(`${url}/api/${SECRET}/scan`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ refresh: 'item' }) });
    expect(refused.status).toBe(400);
    expect(await refused.text()).toMatch(/path/);
    const asked = await fetch(`${url}/api/${SECRET}/scan`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ path: '/data/media/tv/Severance (2022)/Season 02' }) });
    expect(asked.status).toBe(200);
    // Serialized by the route's response schema: its fields, in its order.
    expect(Object.keys((await asked.json()) as object)).toEqual(['ok', 'path', 'mapped', 'folder', 'merged']);
    const metrics = await (await fetch(`${url}/metrics`)).text();
    expect(metrics).toMatch(/scanrelay_requests_total\{[^}]*source="sonarr"[^}]*\} 1/);
    expect((await fetch(`${url}/health`)).status).toBe(200);
    expect(child.output()).toContain('Listening on');
    expect(child.output()).not.toContain('Node runs ');
  }, 60_000);
});

describe('a build clears what an earlier one left', () => {
  it('dist/ whole (npm pack ships the folder), another folder only its chunks/', async () => {
    const { clearedBefore } = await import('../../scripts/bundle.mjs');
    expect(clearedBefore(join(repoRoot, 'dist'))).toBe(join(repoRoot, 'dist'));
    expect(clearedBefore(join(repoRoot, 'dist') + '/')).toBe(join(repoRoot, 'dist'));
    const elsewhere = mkdtempSync(join(tmpdir(), 'scanrelay-bundle-'));
    expect(clearedBefore(elsewhere)).toBe(join(elsewhere, 'chunks'));
  });
});
