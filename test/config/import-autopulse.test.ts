// import-autopulse: autopulse's config, in each of its forms, becomes scanrelay keys; what has no equivalent is
// reported; a broken file is one line naming its line; the converted file starts a real `scanrelay server`.
import { existsSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { convertAutopulse } from '../../src/config/from-autopulse.js';
import { loadConfig } from '../../src/config/load.js';
import { configSchema } from '../../src/config/schema.js';
import { parseToml } from '../../src/config/toml.js';
import { parseYaml } from '../../src/config/yaml.js';
import { FakePlex } from '../fakes/plex.js';
import { runCli, type Child } from '../support/child.js';
import { ownFixture, ownFixtureText } from '../support/fixtures.js';
import { aliasBomb } from '../support/hostile-files.js';

const convert = (doc: unknown) => {
  const result = convertAutopulse(doc);
  const checked = configSchema().safeParse(result.config);
  expect(checked.success ? [] : checked.error.issues).toEqual([]);
  return { ...result, text: result.report.join('\n') };
};

describe('convertAutopulse, one fixture per form', () => {
  it('YAML: arr routes with rewrites, timers and event timers, the manual trigger, notify, targets, webhooks', () => {
    const { config, text } = convert(parseYaml(ownFixtureText('autopulse/config.yaml')));
    expect(config).toMatchObject({
      SERVER_IP: '0.0.0.0',
      SERVER_PORT: 2875,
      SERVER_SCAN_DELAY: 120,
      HISTORY_DAYS: 7,
      SERVER_ANCHOR_FILES: ['/mnt/media/anchor'],
      PLEX_ENABLED: false,
      AUTOSCAN: {
        ENABLED: true,
        USER: 'terry',
        PASSWORD: 'yoghurt',
        TRIGGERS: [
          { NAME: 'my_sonarr', TYPE: 'sonarr', REWRITE: { '/tvshows': ['/downloads'] } },
          { NAME: 'my_radarr', TYPE: 'radarr', REWRITE: { 'rewrite 1': { FROM: '^/movies/(.*)$', TO: '/media/movies/$1' } } },
        ],
        MANUAL_REWRITE: { '/media': ['/downloads'] },
      },
      // An event timer adds to the trigger's own (300 + 10); autopulse's Download includes upgrades.
      SERVER_SCAN_DELAYS: { sonarr: 300, 'sonarr:download': 310, 'sonarr:upgrade': 310, 'sonarr:episodefiledelete': 302, manual: 0 },
      WATCH: { DEBOUNCE: 10, PATHS: [{ PATH: '/watch', BACKEND: 'poll', RECURSIVE: false, INCLUDE: ['\\.mkv$'], REWRITE: { '/media': ['/watch'] } }] },
      TARGETS: [
        { NAME: 'my_plex', TYPE: 'plex', URL: 'http://plex:32400', TOKEN: 'plex-token-from-autopulse', ANALYZE_TYPE: 'basic' },
        { NAME: 'my_different_plex', TYPE: 'plex', ANALYZE_TYPE: 'off', REFRESH_ITEMS: true, PATH_MAPPINGS: { '/plex': ['/media'] } },
        { NAME: 'my_jellyfin', TYPE: 'jellyfin', REFRESH_ITEMS: true },
        { NAME: 'my_audiobookshelf', TYPE: 'audiobookshelf', INCLUDE: ['/audiobooks/'] },
        { NAME: 'my_command', TYPE: 'command', COMMAND: ['sh', '-c', 'FILE_PATH="$SCANRELAY_PATH"; export FILE_PATH; echo $FILE_PATH >> list.txt'], TIMEOUT: 10 },
      ],
      NOTIFY: [{ NAME: 'my_discord', TYPE: 'discord', URL: 'https://discord.com/api/webhooks/1234567890/abcdefg', EVENTS: ['target-down', 'target-up', 'scan-failed', 'not-found'] }],
    });
    // check_path on: the file checks keep their default.
    expect(config).not.toHaveProperty('SERVER_MAX_FILE_CHECKS');
    expect(text).toMatch(/^opts.check_path: scanrelay checks for the file SERVER_MAX_FILE_CHECKS/m);
    expect(text).toMatch(/^opts.max_retries: not carried over/m);
    expect(text).toMatch(/^app.log_level: not carried over: pass --loglevel/m);
    expect(text).toMatch(/^triggers.my_sonarr.excludes: not carried over: .*my_audiobookshelf/m);
    expect(text).toMatch(/^triggers.my_sonarr.filter: not carried over/m);
    expect(text).toMatch(/^targets.my_audiobookshelf.filter.exclude: "\/samples\/" is a pattern/m);
    expect(text).toMatch(/^targets.my_command: runs once per folder/m);
    expect(text).toMatch(/^webhooks.my_discord.mentions: not carried over/m);
    expect(text).toMatch(/^webhooks.my_hookshot: scanrelay has no Matrix Hookshot type/m);
    expect(text).not.toMatch(/my_radarr|my_plex|my_jellyfin|my_notify/);
  });

  it('TOML: auth off, [[rewrite]] lists, bazarr and autoscan triggers, tdarr, sonarr, autopulse, fileflows, json webhook', () => {
    const { config, text, generated } = convert(parseToml(ownFixtureText('autopulse/config.toml')));
    expect(config).toMatchObject({
      SERVER_IP: '127.0.0.1',
      SERVER_PORT: 2876,
      SERVER_SCAN_DELAY: 30,
      SERVER_MAX_FILE_CHECKS: 0,
      LOG_KEEP: 7,
      SERVER_SCAN_DELAYS: { sonarr: 45 },
      SERVER_ANCHOR_FILES: ['/mnt/remote/.mounted'],
      AUTOSCAN: {
        USER: 'autopulse',
        TRIGGERS: [
          { NAME: 'sonarr', TYPE: 'sonarr', REWRITE: { '/data/tv': ['/tv'] } },
          { NAME: 'lidarr', TYPE: 'lidarr', REWRITE: { 'rewrite 1': { FROM: '^/music/(?<artist>[^/]+)/', TO: '/data/music/${artist}/' }, '/mnt/music': ['/data/music'] } },
        ],
        MANUAL_REWRITE: { '/data': ['/subs'] },
      },
      TARGETS: [
        { NAME: 'jellyfin', TYPE: 'jellyfin', REFRESH_ITEMS: false },
        { NAME: 'tdarr', TYPE: 'tdarr', URL: 'http://tdarr:8265', LIBRARY_ID: 'library-id-from-autopulse' },
        { NAME: 'sonarr', TYPE: 'sonarr', URL: 'http://sonarr:8989', TOKEN: 'sonarr-key-from-autopulse' },
        { NAME: 'remote-autopulse', TYPE: 'relay', URL: 'http://other-host:2875', USER: 'admin', PASSWORD: 'remote-pass' },
        { NAME: 'script', TYPE: 'command', COMMAND: ['sh', '-c', 'exec "$0" "$SCANRELAY_PATH"', '/config/on-scan.sh'], TIMEOUT: 20 },
      ],
      NOTIFY: [{ NAME: 'json', TYPE: 'json', URL: 'https://example.com/webhooks/autopulse' }],
    });
    expect((config.AUTOSCAN as { PASSWORD: string }).PASSWORD).toMatch(/^[0-9a-f]{32}$/);
    expect(generated).toEqual(['AUTOSCAN.PASSWORD']);
    expect(text).toMatch(/^auth.enabled: autopulse served its routes without a password/m);
    expect(text).toMatch(/^triggers.lidarr.rewrite: autopulse applies "\/data\/music" to what/m);
    expect(text).toMatch(/^triggers.scanner: .*\/triggers\/manual\?dir=<folder>/m);
    expect(text).toMatch(/^triggers.sports: scanrelay does not read Sportarr's webhooks/m);
    expect(text).toMatch(/^targets.jellyfin.metadata_refresh_mode: not carried over/m);
    expect(text).toMatch(/^targets.jellyfin.request.insecure: not carried over/m);
    expect(text).toMatch(/^targets.remote autopulse: carried as a relay target/m);
    expect(text).toMatch(/^targets.fileflows: scanrelay has no FileFlows target/m);
    expect(text).toMatch(/^opts.webhook_retries: not carried over/m);
    expect(text).toMatch(/^webhooks.json: scanrelay's json body/m);
    expect(text).not.toMatch(/^triggers.bazarr/m);
  });

  it("JSON: autopulse's own serialised form (every key, unset ones null) reports only what matters", () => {
    const { config, report, generated } = convert(ownFixture('autopulse/config.json'));
    expect(config).toMatchObject({
      SERVER_SCAN_DELAY: 60,
      SERVER_MAX_FILE_CHECKS: 0,
      AUTOSCAN: { USER: 'admin', PASSWORD: expect.stringMatching(/^[0-9a-f]{32}$/), TRIGGERS: [{ NAME: 'radarr', TYPE: 'radarr', REWRITE: {} }], MANUAL_REWRITE: {} },
      TARGETS: [
        { NAME: 'plex', TYPE: 'plex', ANALYZE_TYPE: 'off' },
        { NAME: 'emby', TYPE: 'emby', REFRESH_ITEMS: true },
      ],
    });
    expect(config).not.toHaveProperty('HISTORY_DAYS');
    expect(config).not.toHaveProperty('LOG_KEEP');
    expect(config).not.toHaveProperty('NOTIFY');
    expect(report).toEqual([expect.stringMatching(/^app.database_url: not carried over/), expect.stringMatching(/^auth.password: autopulse's default \("password", published in its docs\), so not carried over: AUTOSCAN.PASSWORD is a new random password/)]);
    expect(generated).toEqual(['AUTOSCAN.PASSWORD']);
  });
});

describe('convertAutopulse, single mappings', () => {
  it('an empty config keeps autopulse behaviour (port 2875, 60 s wait, no file checks, user admin) but its default password', () => {
    const { config, text, generated } = convert({});
    expect(config).toMatchObject({ SERVER_PORT: 2875, SERVER_SCAN_DELAY: 60, SERVER_MAX_FILE_CHECKS: 0, AUTOSCAN: { ENABLED: true, USER: 'admin' }, TARGETS: [] });
    expect(text).toMatch(/^targets: none configured/m);
    expect(text).toMatch(/^auth.password: autopulse's default \("password", published in its docs, used when auth.password is not set\), so not carried over: AUTOSCAN.PASSWORD is a new random password; enter it, with the user "admin", in each sender/m);
    expect(generated).toEqual(['AUTOSCAN.PASSWORD']);
  });

  it.each([
    ['the default, written out', { username: 'terry', password: 'password' }, /^auth.password: autopulse's default \("password", published in its docs\), so not carried over/m],
    ['empty', { username: 'terry', password: '' }, /^auth.password: empty, so not carried over: AUTOSCAN.PASSWORD is a new random password; enter it, with the user "terry"/m],
  ])('an auth.password that is %s becomes a random one like SERVER_PASS, said in the report', (_, auth, line) => {
    const passwords = [convert({ auth }), convert({ auth })].map(({ config, text, generated }) => {
      expect(text).toMatch(line);
      expect(generated).toEqual(['AUTOSCAN.PASSWORD']);
      expect(config.AUTOSCAN).toMatchObject({ USER: 'terry' });
      return (config.AUTOSCAN as { PASSWORD: string }).PASSWORD;
    });
    expect(passwords[0]).toMatch(/^[0-9a-f]{32}$/);
    expect(passwords[1]).not.toBe(passwords[0]);
  });

  it("app.base_path becomes SERVER_BASE_PATH (the same prefix before every route); one it cannot take is reported", () => {
    const { config, text } = convert({ app: { base_path: '/autopulse/' } });
    expect(config.SERVER_BASE_PATH).toBe('/autopulse');
    expect(text).not.toMatch(/base_path/);
    expect(convert({ app: { base_path: 'pulse' } }).config.SERVER_BASE_PATH).toBe('/pulse');
    const refused = convert({ app: { base_path: '/a b' } });
    expect(refused.config.SERVER_BASE_PATH).toBeUndefined();
    expect(refused.text).toMatch(/^app.base_path: '\/a b' is not a path SERVER_BASE_PATH takes \(a path like "\/scanrelay"/m);
  });

  it('a password of its own is carried over as it is, and nothing is generated', () => {
    const { config, generated } = convert({ auth: { password: 'yoghurt' } });
    expect(config.AUTOSCAN).toMatchObject({ USER: 'admin', PASSWORD: 'yoghurt' });
    expect(generated).toEqual([]);
  });

  it('two triggers of one app with different timers: the first wins, the other is reported', () => {
    const { config, text } = convert({ triggers: { a: { type: 'sonarr', timer: { wait: 10 } }, b: { type: 'sonarr', timer: { wait: 20 } }, c: { type: 'radarr', event_timers: { Rename: { wait: 5 } } } } });
    expect(config.SERVER_SCAN_DELAYS).toEqual({ sonarr: 10, 'radarr:rename': 5 });
    expect(text).toMatch(/^triggers.b: waits 20 s, but triggers.a already set SERVER_SCAN_DELAYS "sonarr" to 10 s/m);
  });

  it('manual triggers share /triggers/manual: their rewrites merge, a clash is reported', () => {
    const { config, text } = convert({
      triggers: {
        manual: { type: 'manual', rewrite: { from: '/a', to: '/x' } },
        other: { type: 'manual', rewrite: [{ from: '/b', to: '/x' }, { from: '/a', to: '/y' }, { from: '^/(c|d)/', to: '/z/$1/' }] },
      },
    });
    expect((config.AUTOSCAN as { MANUAL_REWRITE: unknown }).MANUAL_REWRITE).toEqual({ '/x': ['/a', '/b'], 'other rewrite 3': { FROM: '^/(c|d)/', TO: '/z/$1/' } });
    expect(text).toMatch(/^triggers.other.rewrite: '\/a' already goes to '\/x'/m);
    expect(text).toMatch(/^triggers.other: .*point what called \/triggers\/other at \/triggers\/manual\?path=<file>/m);
  });

  it('a route name scanrelay cannot serve, a user name with ":", an unknown key are reported', () => {
    const { config, text } = convert({ auth: { username: 'a:b', password: 'secret-enough' }, triggers: { 'my sonarr': { type: 'sonarr' }, tdarr: { type: 'radarr' } }, extra: 1 });
    expect(config.AUTOSCAN).toMatchObject({ USER: 'autopulse', PASSWORD: 'secret-enough', TRIGGERS: [] });
    expect(text).toMatch(/^triggers.my sonarr: scanrelay cannot serve \/triggers\/my sonarr/m);
    expect(text).toMatch(/^triggers.tdarr: scanrelay cannot serve/m);
    expect(text).toMatch(/^auth.username: 'a:b' cannot be a Basic-auth user name/m);
    expect(text).toMatch(/^extra: not an autopulse key scanrelay knows/m);
  });

  it('a rewrite that does not compile here is reported, the rest carried', () => {
    const { config, text } = convert({ triggers: { s: { type: 'sonarr', rewrite: [{ from: '^/(unclosed/', to: '/x/' }, { from: '/tv', to: '/media/tv' }] } } });
    expect((config.AUTOSCAN as { TRIGGERS: unknown[] }).TRIGGERS).toEqual([{ NAME: 's', TYPE: 'sonarr', REWRITE: { '/media/tv': ['/tv'] } }]);
    expect(text).toMatch(/^triggers.s.rewrite: the rewrite "\^\/\(unclosed\/" → "\/x\/" does not compile here/m);
  });
});

describe('scanrelay import-autopulse (child processes)', () => {
  const children: Child[] = [];
  let plex: FakePlex | undefined;
  afterEach(async () => {
    for (const c of children.splice(0)) if (c.proc.exitCode === null) c.proc.kill('SIGTERM');
    await Promise.all(children.map((c) => c.exited));
    await plex?.stop();
  });

  const run = async (args: string[]) => {
    const child = runCli(args);
    children.push(child);
    return { child, code: await child.exited };
  };

  it('a converted autopulse config.toml loads, starts `scanrelay server` and serves its trigger through to Plex', async () => {
    plex = await new FakePlex({ sections: [{ key: '2', title: 'TV', type: 'show', locations: ['/data/TV'] }] }).start();
    const dir = mkdtempSync(join(tmpdir(), 'scanrelay-import-autopulse-'));
    const toml = [
      '[auth]',
      'username = "terry"',
      'password = "yoghurt"',
      '[opts]',
      'default_timer_wait = 0',
      '[triggers.my_sonarr]',
      'type = "sonarr"',
      'rewrite = { from = "^/tv/", to = "/media/TV/" }',
      '[targets.my_plex]',
      'type = "plex"',
      `url = "${plex.url}"`,
      `token = "${plex.token}"`,
      'rewrite = { from = "/media", to = "/data" }',
    ].join('\n');
    writeFileSync(join(dir, 'config.toml'), toml);
    const out = join(dir, 'config.json');
    const conversion = await run(['import-autopulse', join(dir, 'config.toml'), '--output', out]);
    expect(conversion.code).toBe(0);
    expect(conversion.child.output()).toContain(`Wrote '${out}'`);
    expect(statSync(out).mode & 0o777).toBe(0o600);
    expect((await run(['import-autopulse', join(dir, 'config.toml'), '--output', out])).child.output()).toContain('pass --force');
    expect((await run(['import-autopulse', join(dir, 'config.toml'), '--output', out, '--force'])).code).toBe(0);
    // The written file passes the loader itself (unknown keys, value rules, secrets), not only the schema.
    expect(() => loadConfig(out, {})).not.toThrow();

    const server = runCli(['--config', out, '--queuefile', join(dir, 'queue.db'), '--logfile', join(dir, 'scanrelay.log'), 'server', '--port', '0', '--host', '127.0.0.1']);
    children.push(server);
    const [, base] = await server.waitFor(/Health: (http:\/\/\S+)\/health/, 30_000);
    const auth = `Basic ${Buffer.from('terry:yoghurt').toString('base64')}`;
    const res = await fetch(`${base}/triggers/my_sonarr`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: auth },
      body: readFileSync(join(import.meta.dirname, '../fixtures/autoscan/sonarr-download.json')),
    });
    expect(res.status).toBe(200);
    // /tv/ → /media/TV/ (the trigger's rewrite) → /data/TV/ (the Plex target's rewrite).
    await expect.poll(() => plex!.refreshes, { timeout: 30_000 }).toContainEqual({ section: '2', path: '/data/TV/Severance/Season 2' });
    expect((await fetch(`${base}/triggers/my_sonarr`, { method: 'POST', body: '{}' })).status).toBe(401);
  }, 60_000);

  it('prints the config on stdout and the report on stderr without --output', async () => {
    const { child, code } = await run(['import-autopulse', join(import.meta.dirname, '../fixtures/autopulse/config.json')]);
    expect(code).toBe(0);
    const out = child.output();
    expect(out).toContain('"PLEX_ENABLED": false');
    expect(out).toContain("auth.password: autopulse's default");
    expect(out).toContain('New random AUTOSCAN.PASSWORD: in the config printed on stdout, under AUTOSCAN.PASSWORD; give it to each sender.');
    expect(out).not.toContain('"PASSWORD": "password"');
  });

  it("autopulse's default password is not written: the file gets a random one, and the output says where", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'scanrelay-import-autopulse-'));
    writeFileSync(join(dir, 'config.yaml'), 'auth:\n  username: admin\n  password: password\n');
    const out = join(dir, 'config.json');
    const { child, code } = await run(['import-autopulse', join(dir, 'config.yaml'), '--output', out]);
    expect(code).toBe(0);
    expect(child.output()).toContain(`New random AUTOSCAN.PASSWORD: in '${out}', under AUTOSCAN.PASSWORD; give it to each sender.`);
    expect(child.output()).toMatch(/auth.password: autopulse's default \("password", published in its docs\), so not carried over/);
    const written = JSON.parse(readFileSync(out, 'utf8')) as { AUTOSCAN: { USER: string; PASSWORD: string } };
    expect(written.AUTOSCAN.USER).toBe('admin');
    expect(written.AUTOSCAN.PASSWORD).toMatch(/^[0-9a-f]{32}$/);
    // Not printed: it is in the file, mode 0600.
    expect(child.output()).not.toContain(written.AUTOSCAN.PASSWORD);
  });

  it.each([
    ['bad.toml', '[app]\nport = 2875\nhostname = 0.0.0.0\n', /import-autopulse: '.*bad.toml' line 3: illegal character in numeric literal$/],
    ['bad.yaml', 'app:\n  port: 2875\n    hostname: x\n', /import-autopulse: '.*bad.yaml' line 2: Nested mappings are not allowed in compact mappings \(is the line after this one indented too far\?\)$/],
    ['bad.json', '{\n  "app": {\n    "port": 2875,\n  }\n}\n', /import-autopulse: '.*bad.json': invalid JSON at line 4, column 3/],
    ['config.ini', '[app]\n', /import-autopulse: '.*config.ini': autopulse reads .toml, .yaml, .yml and .json/],
  ])('%s is refused with one line naming the file and line', async (name, text, message) => {
    const dir = mkdtempSync(join(tmpdir(), 'scanrelay-import-autopulse-'));
    writeFileSync(join(dir, name), text);
    const { child, code } = await run(['import-autopulse', join(dir, name)]);
    expect(code).toBe(1);
    expect(child.output().trim().split('\n')).toEqual([expect.stringMatching(message)]);
  });

  // The issue's hostile files: each refused in one line naming the file and line; --output is left as it was, even
  // with --force, and a new one is never created.
  it.each<[string, string | Buffer, RegExp]>([
    ['bomb.yaml', aliasBomb, /^import-autopulse: '.*bomb.yaml' line 3: aliases \(\*name\) expand to more than 100 copies/],
    ['dotted.toml', `[app]\nport = 2875\n${'a.'.repeat(40_000)}a = 1\n`, /^import-autopulse: '.*dotted.toml' line 3: nested more than 64 levels deep/],
    ['deep.json', `${'['.repeat(10_000)}${']'.repeat(10_000)}`, /^import-autopulse: '.*deep.json' line 1: nested more than 64 levels deep/],
    ['proto.json', '{\n  "__proto__": {"auth": {"password": "x"}}\n}\n', /^import-autopulse: '.*proto.json' line 2: the key '__proto__' is refused/],
    ['latin1.toml', Buffer.concat([Buffer.from('[auth]\nusername = "terry"\npassword = "caf'), Buffer.from([0xe9]), Buffer.from('"\n')]), /^import-autopulse: '.*latin1.toml' line 3: byte 41 \(0xE9\) is not UTF-8/],
    ['huge.yaml', `${'# padding\n'.repeat(30_000)}app: {}\n`, /^import-autopulse: '.*huge.yaml': the file is larger than 256 KiB/],
  ])('%s: refused, nothing written', async (name, content, message) => {
    const dir = mkdtempSync(join(tmpdir(), 'scanrelay-import-autopulse-'));
    writeFileSync(join(dir, name), content);
    const kept = join(dir, 'kept.json');
    writeFileSync(kept, '{"SERVER_PASS": "left as it was"}\n');
    const fresh = join(dir, 'fresh.json');
    for (const args of [['--output', kept, '--force'], ['--output', fresh]]) {
      const { child, code } = await run(['import-autopulse', join(dir, name), ...args]);
      expect(code).toBe(1);
      expect(child.output().trim().split('\n')).toEqual([expect.stringMatching(message)]);
    }
    expect(readFileSync(kept, 'utf8')).toBe('{"SERVER_PASS": "left as it was"}\n');
    expect(existsSync(fresh)).toBe(false);
  });
});
