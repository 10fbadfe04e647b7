// import-autoscan: autoscan's config.yml shapes become scanrelay keys; what cannot be carried over is reported;
// the converted file starts a real `scanrelay server` that serves autoscan's trigger routes.
import { existsSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { convertAutoscan, goDurationSeconds, rewriteToMappings } from '../../src/config/from-autoscan.js';
import { configSchema } from '../../src/config/schema.js';
import { ForeignConfigError } from '../../src/config/foreign-limits.js';
import { parseYaml } from '../../src/config/yaml.js';
import { FakePlex } from '../fakes/plex.js';
import { runCli, type Child } from '../support/child.js';
import { repoRoot } from '../support/fixtures.js';
import { aliasBomb } from '../support/hostile-files.js';

const fixtureText = () => readFileSync(join(repoRoot, 'test/fixtures/autoscan/autoscan.yml'), 'utf8');

describe('the YAML reader (the yaml package under the import\'s limits; hostile files: foreign-config.test.ts)', () => {
  it('reads mappings, lists at or below their key, quotes, comments, anchors, merges and block scalars', () => {
    const doc = parseYaml(`a: 1 # c\nb:\n- x\n- 'y #z'\nc: &base\n  k: "v\\tw"\nd:\n  <<: *base\n  e: [1, two, "3"]\nf: ~\ng: |\n  text\n`);
    expect(doc).toEqual({ a: 1, b: ['x', 'y #z'], c: { k: 'v\tw' }, d: { k: 'v\tw', e: [1, 'two', '3'] }, f: null, g: 'text\n' });
  });

  it('refuses what it cannot read, naming the line', () => {
    expect(() => parseYaml('a: 1\n b: 2\n')).toThrow(ForeignConfigError);
    expect(() => parseYaml('a: 1\n b: 2\n')).toThrow(/^line 1: .*indented too far/);
    expect(() => parseYaml('a: 1\nb: *nowhere\n')).toThrow(/^line 2: the alias \*nowhere names no anchor/);
    expect(() => parseYaml('a:\n\t- x\n')).toThrow(/^line 2: Tabs are not allowed as indentation/);
    expect(() => parseYaml('a: 1\nb: 2\na: 3\n')).toThrow(/^line 3: the key 'a' is given twice in one mapping \(first on line 1\)/);
  });
});

describe('convertAutoscan', () => {
  it('carries triggers with rewrites, targets, anchors, minimum-age and scan-delay; reports the rest', () => {
    const { config, report } = convertAutoscan(parseYaml(fixtureText()));
    expect(config).toMatchObject({
      SERVER_PORT: 3131,
      SERVER_SCAN_DELAY: 900,
      SERVER_MAX_FILE_CHECKS: 0,
      SERVER_ANCHOR_FILES: ['/mnt/unionfs/mount.anchor'],
      PLEX_ENABLED: false,
      AUTOSCAN: {
        ENABLED: true,
        USER: 'scan-user',
        PASSWORD: 'pa:ss word #1',
        TRIGGERS: [
          { NAME: 'sonarr-docker', TYPE: 'sonarr', REWRITE: { '/mnt/unionfs/Media/TV/': ['/tv/'] } },
          { NAME: 'sonarr4k', TYPE: 'sonarr', REWRITE: { '/mnt/unionfs/Media/TV/': ['/tv/'] } },
          { NAME: 'radarr', TYPE: 'radarr', REWRITE: { 'rewrite 1': { FROM: '^/movies/(.*)$', TO: '/mnt/unionfs/Media/Movies/$1' } } },
          { NAME: 'lidarr', TYPE: 'lidarr', REWRITE: {} },
        ],
        MANUAL_REWRITE: { '/mnt/unionfs/Media/': ['/Media/'] },
        A_TRAIN_REWRITE: { '/mnt/unionfs/Media/': ['/Shared/'] },
        A_TRAIN_DRIVES: { '0AexampleTVdrive': { '/mnt/unionfs/Media/TV/': ['/TV/'] } },
      },
      WATCH: { PATHS: [{ PATH: '/mnt/local/Media', INCLUDE: ['^/mnt/local/Media/'], EXCLUDE: ['\\.(srt|nfo)$'], REWRITE: { '/mnt/unionfs/Media/': ['/mnt/local/Media/'] } }] },
      TARGETS: [
        { NAME: 'plex', TYPE: 'plex', URL: 'https://plex.domain.tld', TOKEN: 'plex-token-from-autoscan', PATH_MAPPINGS: { '/data/': ['/mnt/unionfs/Media/'] }, SCAN_PAUSE: 10 },
        { NAME: 'jellyfin', TYPE: 'jellyfin', URL: 'https://jellyfin.domain.tld', TOKEN: 'jellyfin-token-from-autoscan', SCAN_PAUSE: 10 },
        { NAME: 'autoscan', TYPE: 'relay', URL: 'https://autoscan.remote.tld', USER: 'remote-user', PASSWORD: 'remote-pass', PATH_MAPPINGS: { '/mnt/nfs/Media/': ['/mnt/unionfs/Media/'] } },
      ],
    });
    const text = report.join('\n');
    expect(text).not.toMatch(/triggers.radarr/);
    expect(text).toMatch(/triggers.manual: priority 3 not carried over/);
    expect(text).toMatch(/triggers.sonarr\[0\]: priority 2/);
    expect(text).toMatch(/triggers.bernard: not carried over/);
    expect(text).toMatch(/scan-stats: not carried over/);
    expect(text).toMatch(/each target got SCAN_PAUSE 10/);
    expect(configSchema().safeParse(config).success).toBe(true);
  });

  it('autoscan without authentication gets a generated password, reported; minimum-age defaults to 10m', () => {
    const { config, report, generated } = convertAutoscan(parseYaml('port: 3030\n'));
    expect(generated).toEqual(['AUTOSCAN.PASSWORD']);
    expect(config.SERVER_SCAN_DELAY).toBe(600);
    expect(config.AUTOSCAN).toMatchObject({ ENABLED: true, USER: 'autoscan' });
    expect((config.AUTOSCAN as { PASSWORD: string }).PASSWORD).toMatch(/^[0-9a-f]{32}$/);
    expect(report.join('\n')).toMatch(/generated AUTOSCAN.PASSWORD/);
    expect(report.join('\n')).toMatch(/minimum-age: not set/);
  });

  it('reads Go durations; literal rewrites become prefixes, the others regex rules', () => {
    expect([goDurationSeconds('30m'), goDurationSeconds('1m30s'), goDurationSeconds('1h'), goDurationSeconds('250ms'), goDurationSeconds('10')]).toEqual([1800, 90, 3600, 0.25, undefined]);
    const report: string[] = [];
    const rules = [
      { from: '^/a\\.b/', to: '/x/' },
      { from: '^/c/(.*)', to: '/y/' },
      { from: '^/(tv|movies)/', to: '/z/' },
      { from: '^/(?P<kind>tv|movies)/(.*)', to: '/media/${kind}/$2' },
      { from: '^/(unclosed/', to: '/w/' },
    ];
    expect(rewriteToMappings(rules, 'r', report)).toEqual({
      '/x/': ['/a.b/'],
      '/y/': ['/c/'],
      'rewrite 3': { FROM: '^/(tv|movies)/', TO: '/z/' },
      'rewrite 4': { FROM: '^/(?<kind>tv|movies)/(.*)', TO: '/media/${kind}/$2' },
    });
    expect(report).toEqual([expect.stringMatching(/^r: the rewrite "\^\/\(unclosed\/" → "\/w\/" does not compile here/)]);
  });
});

describe('scanrelay import-autoscan (child processes)', () => {
  const children: Child[] = [];
  let plex: FakePlex | undefined;
  afterEach(async () => {
    for (const c of children.splice(0)) if (c.proc.exitCode === null) c.proc.kill('SIGTERM');
    await Promise.all(children.map((c) => c.exited));
    await plex?.stop();
  });

  it('a converted autoscan config starts `scanrelay server` and serves its triggers through to Plex', async () => {
    plex = await new FakePlex({ sections: [{ key: '2', title: 'TV', type: 'show', locations: ['/data/TV'] }] }).start();
    const dir = mkdtempSync(join(tmpdir(), 'scanrelay-import-'));
    writeFileSync(join(dir, 'mount.anchor'), '');
    const yml = fixtureText()
      .replace('minimum-age: 15m', 'minimum-age: 0s')
      .replace('scan-delay: 10s', 'scan-delay: 0s')
      .replace('/mnt/unionfs/mount.anchor', join(dir, 'mount.anchor'))
      .replace('https://plex.domain.tld', plex.url)
      .replace('plex-token-from-autoscan', plex.token)
      .replace(/  jellyfin:\n.*\n.*\n/, '')
      .replace(/  autoscan:\n(.*\n){6}/, '')
      .replace(/  inotify:\n(.*\n){11}/, '');
    writeFileSync(join(dir, 'autoscan.yml'), yml);
    const out = join(dir, 'config.json');
    const conversion = runCli(['import-autoscan', join(dir, 'autoscan.yml'), '--output', out]);
    children.push(conversion);
    expect(await conversion.exited).toBe(0);
    expect(conversion.output()).toContain('Not carried over');
    expect(statSync(out).mode & 0o777).toBe(0o600);
    const again = runCli(['import-autoscan', join(dir, 'autoscan.yml'), '--output', out]);
    children.push(again);
    expect(await again.exited).toBe(1);
    expect(again.output()).toContain('pass --force');

    const server = runCli(['--config', out, '--queuefile', join(dir, 'queue.db'), '--logfile', join(dir, 'scanrelay.log'), 'server', '--port', '0', '--host', '127.0.0.1']);
    children.push(server);
    const [, base] = await server.waitFor(/Health: (http:\/\/\S+)\/health/, 30_000);
    const res = await fetch(`${base}/triggers/sonarr-docker`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Basic ${Buffer.from('scan-user:pa:ss word #1').toString('base64')}` },
      body: readFileSync(join(repoRoot, 'test/fixtures/autoscan/sonarr-download.json')),
    });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('');
    // /tv/ → /mnt/unionfs/Media/TV/ (the trigger's rewrite) → /data/TV/ (the Plex target's rewrite).
    await expect.poll(() => plex!.refreshes, { timeout: 30_000 }).toContainEqual({ section: '2', path: '/data/TV/Severance/Season 2' });
    const denied = await fetch(`${base}/triggers/sonarr-docker`, { method: 'POST', body: '{}' });
    expect(denied.status).toBe(401);
  }, 60_000);

  it('hostile files (an alias bomb, a __proto__ key) are refused with their line and nothing is written', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'scanrelay-import-'));
    writeFileSync(join(dir, 'bomb.yml'), aliasBomb);
    writeFileSync(join(dir, 'proto.yml'), 'port: 3030\nauthentication:\n  __proto__:\n    password: x\n');
    for (const [name, message] of [
      ['bomb.yml', /^import-autoscan: '.*bomb.yml' line 3: aliases \(\*name\) expand to more than 100 copies/],
      ['proto.yml', /^import-autoscan: '.*proto.yml' line 3: the key '__proto__' \(at authentication.__proto__\) is refused/],
    ] as const) {
      const child = runCli(['import-autoscan', join(dir, name), '--output', join(dir, 'config.json')]);
      children.push(child);
      expect(await child.exited).toBe(1);
      expect(child.output().trim().split('\n')).toEqual([expect.stringMatching(message)]);
      expect(existsSync(join(dir, 'config.json'))).toBe(false);
    }
  });

  it('a file that is not readable YAML is refused with its line', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'scanrelay-import-'));
    writeFileSync(join(dir, 'bad.yml'), 'port: 3030\n  oops: 1\n');
    const child = runCli(['import-autoscan', join(dir, 'bad.yml')]);
    children.push(child);
    expect(await child.exited).toBe(1);
    expect(child.output()).toMatch(/bad.yml' line 1: Nested mappings are not allowed in compact mappings \(is the line after this one indented too far\?\)/);
  });
});
