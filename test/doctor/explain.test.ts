// The path doctor: every step for a mapped, an unmapped and an ignored path, in code, on the CLI and on the page.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultConfig, loadConfig } from '../../src/config/load.js';
import type { Config } from '../../src/config/schema.js';
import { named } from '../support/target.js';
import { closestCandidates, explainPath, suggestMapping, type Explanation } from '../../src/doctor/explain.js';
import { editDistance } from '../../src/edit-distance.js';
import { mapPath } from '../../src/paths/mapping.js';
import { runCli } from '../support/child.js';
import { SECRET, testService, type TestService } from '../support/service.js';
import { FakePlex } from '../fakes/plex.js';

describe('closest candidates and suggestions', () => {
  it('edit distance', () => {
    expect(editDistance('kitten', 'sitting')).toBe(3);
    expect(editDistance('', 'abc')).toBe(3);
  });

  it('suggests a mapping from a library folder whose name appears in the path', () => {
    expect(suggestMapping('/mnt/media/TV/Show/Season 01/e.mkv', ['/data/media/movies', '/data/media/tv'], {})).toMatchObject({
      key: '/data/media/tv/',
      form: '/mnt/media/TV/',
      entry: '"/data/media/tv/": ["/mnt/media/TV/"]',
    });
    expect(suggestMapping('/srv/other/x.mkv', ['/data/media/tv'], {})).toBeNull();
  });

  it('names the entry to add to the key the config has, and prints the key merged, every configured entry kept', () => {
    const mappings = { '/data/media/movies/': ['/movies/'], '/data/media/tv/': ['/tv/', '/mnt/tv/'] };
    // A form for a key already there goes into that key's list.
    expect(suggestMapping('/tvshows/Show/Season 01/e.mkv', ['/data/media/movies', '/data/media/tv'], mappings)).toEqual({
      key: '/data/media/tv/',
      form: '/tvshows/',
      entry: '"/data/media/tv/": ["/tv/", "/mnt/tv/", "/tvshows/"]',
      merged: '"SERVER_PATH_MAPPINGS": {\n  "/data/media/movies/": ["/movies/"],\n  "/data/media/tv/": ["/tv/", "/mnt/tv/", "/tvshows/"]\n}',
      line:
        'Add "/tvshows/" to the SERVER_PATH_MAPPINGS entry "/data/media/tv/" in config.json, keeping every entry there (a second SERVER_PATH_MAPPINGS key would replace the first), ' +
        'so that it reads "SERVER_PATH_MAPPINGS": { "/data/media/movies/": ["/movies/"], "/data/media/tv/": ["/tv/", "/mnt/tv/", "/tvshows/"] }',
    });
    // A new key comes after the others.
    const music = suggestMapping('/downloads/music/A/x.flac', ['/data/media/music'], mappings)!;
    expect(music.merged).toBe('"SERVER_PATH_MAPPINGS": {\n  "/data/media/movies/": ["/movies/"],\n  "/data/media/tv/": ["/tv/", "/mnt/tv/"],\n  "/data/media/music/": ["/downloads/music/"]\n}');
    expect(music.line).toMatch(/^Add "\/data\/media\/music\/": \["\/downloads\/music\/"\] to SERVER_PATH_MAPPINGS in config.json, keeping every entry there/);
  });

  it('the merged key pasted over the one in config.json: the suggested path reaches its library and every mapping that worked still does', async () => {
    const config = defaultConfig(() => SECRET);
    const before = Object.entries(config.SERVER_PATH_MAPPINGS).flatMap(([key, forms]) => forms.map((form) => [form, key]));
    const s = suggestMapping('/tvshows/Show/Season 01/e.mkv', ['/data/Movies', '/data/TV'], config.SERVER_PATH_MAPPINGS)!;
    const text = JSON.stringify(config, null, 2);
    const start = text.indexOf('"SERVER_PATH_MAPPINGS"');
    const end = text.indexOf('}', start) + 1;
    const dir = mkdtempSync(join(tmpdir(), 'scanrelay-merged-'));
    writeFileSync(join(dir, 'config.json'), text.slice(0, start) + s.merged.replace(/\n/g, '\n  ') + text.slice(end));
    const after = loadConfig(join(dir, 'config.json'), {}, { write: false }).config.SERVER_PATH_MAPPINGS;
    for (const [form, key] of before) expect(after[key]).toContain(form);
    expect(after[s.key]).toContain('/tvshows/');
    expect(mapPath('/tvshows/Show/Season 01/e.mkv', after).path).toBe('/data/TV/Show/Season 01/e.mkv');
  });

  it("suggests a mapping where the app's first folder is a near name of a library folder (/tvshows/ for /tv/)", () => {
    expect(suggestMapping('/tvshows/Show/Season 01/e.mkv', ['/movies', '/tv'], {})).toMatchObject({ key: '/tv/', form: '/tvshows/' });
    expect(suggestMapping('/movie/Heat (1995)/Heat.mkv', ['/data/movies', '/data/tv'], {})).toMatchObject({ key: '/data/movies/', form: '/movie/' });
    expect(suggestMapping('/mnt/films/Heat (1995)/Heat.mkv', ['/data/movies'], {})).toBeNull();
  });

  it('ranks a mistyped mapping form first', () => {
    const config = { ...defaultConfig(() => SECRET), SERVER_PATH_MAPPINGS: { '/data/media/': ['/mnt/unionfs/Media/', '/tv/'] } } as Config;
    const [first] = closestCandidates('/mnt/unionf/Media/tv/x.mkv', config, []);
    expect(first).toMatchObject({ prefix: '/mnt/unionfs/Media/', distance: 1 });
  });
});

describe('explainPath with a real (fake) Plex', () => {
  let t: TestService;
  beforeAll(async () => {
    t = await testService({ pathState: async (p) => (p === '/data/media/tv/Show/S01/e1.mkv' ? 'file' : 'missing') });
  });
  afterAll(async () => t.close());
  const explain = (p: string) => explainPath(p, { config: t.service.config, targets: t.service.targets, pathState: async (x) => (x.endsWith('e1.mkv') ? 'file' : 'missing') });

  it('a mapped path: the mapping, the file check, the section and what would be scanned', async () => {
    const e = await explain('/mnt/unionfs/Media/tv/Show/S01/e1.mkv');
    expect(e.mapping).toMatchObject({ match: { from: '/mnt/unionfs/Media/', to: '/data/media/' }, result: '/data/media/tv/Show/S01/e1.mkv' });
    expect(e.ignore).toEqual({ list: ['/.grab/', '.DS_Store'], matchedBy: null });
    expect(e.fileExist).toMatchObject({ path: '/data/media/tv/Show/S01/e1.mkv', state: 'file' });
    expect(e).toMatchObject({ kind: 'file', folder: '/data/media/tv/Show/S01', priority: 1, verdict: 'scan' });
    expect(e.targets[0]).toMatchObject({ name: 'plex', path: '/data/media/tv/Show/S01', verdict: 'scan', matches: [{ title: 'TV Shows (section 2)', locations: ['/data/media/tv'] }] });
    expect(e.wouldScan).toEqual([{ target: 'plex', path: '/data/media/tv/Show/S01', libraries: ['TV Shows (section 2)'] }]);
    expect(e.suggestion).toBeNull();
  });

  it('an unmapped path: unmatched, with the closest candidates and a suggested mapping line', async () => {
    const e = await explain('/storage/TV/Show/S01/e2.mkv');
    expect(e.mapping.match).toBeNull();
    expect(e.verdict).toBe('unmatched');
    expect(e.targets[0]).toMatchObject({ verdict: 'unmatched', matches: [] });
    expect(e.targets[0].known.map((l) => l.locations[0])).toContain('/data/media/tv');
    expect(e.candidates.length).toBeGreaterThan(0);
    expect(e.suggestion).toMatchObject({ key: '/data/media/tv/', form: '/storage/TV/' });
  });

  it('an ignored path: says which entry matched and stops there', async () => {
    const e = await explain('/mnt/unionfs/Media/tv/.grab/e3.mkv');
    expect(e).toMatchObject({ verdict: 'ignored', ignore: { matchedBy: '/.grab/' }, targets: [], wouldScan: [] });
  });

  it('a Jellyfin target shows its rewritten path and INCLUDE/EXCLUDE', async () => {
    const jf = named(
      { kind: 'jellyfin', scan: async () => ({ status: 'scanned' as const }), available: async () => ({ ok: true as const }), libraries: async () => [] },
      { name: 'jf', mappings: { '/media/': ['/data/media/'] }, exclude: ['/media/movies/'] },
    );
    const e = await explainPath('/mnt/unionfs/Media/movies/Heat/Heat.mkv', { config: t.service.config, targets: [...t.service.targets, jf], pathState: async () => 'missing' });
    expect(e.targets[1]).toMatchObject({ name: 'jf', path: '/media/movies/Heat', rewrite: { from: '/data/media/', to: '/media/' }, verdict: 'excluded' });
    expect(e.verdict).toBe('scan');
  });

  it('the doctor page explains a path (server-rendered, no secret in the page)', async () => {
    const res = await t.service.app.inject({ url: `/${SECRET}/doctor?path=` + encodeURIComponent('/storage/TV/Show/S01/e2.mkv') });
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('Suggested mapping');
    expect(res.body).toContain('&quot;/data/media/tv/&quot;: [&quot;/storage/TV/&quot;]');
    expect(res.body).not.toContain(SECRET);
    expect((await t.service.app.inject({ url: `/wrong/doctor` })).statusCode).toBe(401);
  });
});

describe('scanrelay explain (the real CLI)', () => {
  let plex: FakePlex;
  let dir: string;
  const run = async (...args: string[]) => {
    const child = runCli(['--config', join(dir, 'config.json'), '--queuefile', join(dir, 'queue.db'), '--logfile', join(dir, 'scanrelay.log'), 'explain', ...args]);
    const code = await child.exited;
    return { code, out: child.output() };
  };
  beforeAll(async () => {
    plex = await new FakePlex().start();
    dir = mkdtempSync(join(tmpdir(), 'scanrelay-explain-'));
    const config = {
      ...defaultConfig(() => SECRET),
      PLEX_LOCAL_URL: plex.url,
      PLEX_TOKEN: plex.token,
      SERVER_PATH_MAPPINGS: { '/data/media/': ['/tv-container/'] },
      SERVER_IGNORE_LIST: ['/.grab/'],
    };
    writeFileSync(join(dir, 'config.json'), JSON.stringify(config, null, 2));
  });
  afterAll(async () => plex.stop());

  it('answers for a mapped path whose file the relay cannot see: it would wait, then give up, and says which key', async () => {
    const { code, out } = await run('/tv-container/tv/Show/S01/e1.mkv', '--json');
    expect(code).toBe(0);
    const e = JSON.parse(out) as Explanation;
    expect(e).toMatchObject({ verdict: 'gives-up', folder: '/data/media/tv/Show/S01', mapping: { match: { from: '/tv-container/', to: '/data/media/' } } });
    expect(e.summary).toContain('then give up and scan nothing');
    expect(e.summary).toContain('set SERVER_FILE_EXIST_PATH_MAPPINGS');
  });

  it('a matched path names its library, and never says the server takes any folder or that no library holds it', async () => {
    const { code, out } = await run('/tv-container/tv/Show/S01/e1.mkv');
    expect(code).toBe(0);
    expect(out).toContain('in library TV Shows');
    expect(out).not.toContain('takes any folder');
    expect(out).not.toContain('no library holds it');
    expect(out).toContain('Result: Would wait for');
  });

  it('a path whose first folder is a near name of a library folder: a mapping for the prefix mismatch', async () => {
    const { out } = await run('/tvshows/Show/Season 01/e1.mkv');
    expect(out).toContain('Result: No library holds');
    expect(out).toContain('Suggested mapping: add "/data/media/tv/": ["/tvshows/"] to the SERVER_PATH_MAPPINGS in config.json, keeping every entry there');
    // The configured entry is kept in the key as it would read.
    expect(out).toContain('  "SERVER_PATH_MAPPINGS": {\n    "/data/media/": ["/tv-container/"],\n    "/data/media/tv/": ["/tvshows/"]\n  }');
  });

  it('answers for an unmapped path, with a suggestion', async () => {
    const { code, out } = await run('/downloads/music/Artist/Album/01.flac');
    expect(code).toBe(0);
    expect(out).toContain('no mapping matched');
    expect(out).toContain('Result: No library holds');
    expect(out).toContain('Suggested mapping: add "/data/media/music/": ["/downloads/music/"] to the SERVER_PATH_MAPPINGS');
  });

  it('answers for an ignored path', async () => {
    const { code, out } = await run('/tv-container/tv/.grab/x.mkv');
    expect(code).toBe(0);
    expect(out).toContain("IGNORED: the path contains '/.grab/'");
    expect(out).not.toContain(SECRET);
    expect(out).not.toContain(plex.token);
  });

  it('has --help', async () => {
    const child = runCli(['explain', '--help']);
    await child.exited;
    expect(child.output()).toContain('--json');
  });
});
