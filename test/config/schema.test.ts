// What each key accepts and defaults to, the generated config of a new install, and the TARGETS rules.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/load.js';
import { configSchema, type Config } from '../../src/config/schema.js';
import { TARGET_TYPES } from '../../src/targets/kinds.js';
import { configFiles } from '../support/config-file.js';
import { repoRoot } from '../support/fixtures.js';

const files = configFiles('scanrelay-schema-');
afterAll(() => files.cleanup());
const { load, problem } = files;

describe('base defaults (what a missing key gets)', () => {
  const base = configSchema().parse({});

  it('follow plex_autoscan, except where scanrelay deliberately differs', () => {
    expect(base).toMatchObject({
      PLEX_USER: 'plex',
      PLEX_LOCAL_URL: 'http://localhost:32400',
      PLEX_EMPTY_TRASH_MAX_FILES: 100,
      PLEX_ANALYZE_TYPE: 'basic',
      SERVER_IP: '0.0.0.0',
      SERVER_SCAN_DELAY: 180,
      SERVER_MAX_FILE_CHECKS: 10,
      SERVER_FILE_CHECK_DELAY: 60,
      SERVER_PATH_MAPPINGS: {},
      SERVER_SCAN_PRIORITIES: {},
      DOCKER_NAME: 'plex',
      RCLONE: { BINARY: '/usr/bin/rclone', RC_CACHE_REFRESH: { ENABLED: false, RC_URL: 'http://localhost:5572' } },
      GOOGLE: { ENABLED: false, POLL_INTERVAL: 120, ALLOWED: { FILE_PATHS: [], FILE_EXTENSIONS: false } },
      // the deliberate differences
      SERVER_PORT: 3468,
      SERVER_USE_SQLITE: true,
      PLEX_WAIT_FOR_EXTERNAL_SCANNERS: true,
      USE_SUDO: false,
    });
    expect(base.GOOGLE.SHOW_CACHE_LOGS).toBe(false);
  });

  it('include the scanrelay keys', () => {
    expect(base).toMatchObject({
      PLEX_ENABLED: true,
      PLEX_SCAN_MODE: 'auto',
      PLEX_SCAN_PAUSE: 0,
      SERVER_ANCHOR_FILES: [],
      SERVER_METRICS_TOKEN: '',
      SERVER_SCAN_RETRY_MAX_DELAY: 300,
      SERVER_SCAN_MAX_WAIT: 600,
      HISTORY_DAYS: 30,
      HISTORY_MAX_ROWS: 200_000,
      LOG_MAX_SIZE: '10MB',
      LOG_KEEP: 5,
      TARGETS: [],
    });
    expect(base.GOOGLE).toMatchObject({
      SERVICE_ACCOUNT_FILE: '',
      RCLONE_REMOTE: '',
      RCLONE_CONFIG: '',
      TOKEN_FILE: '',
      AUTH_URL: 'https://accounts.google.com/o/oauth2/v2/auth',
      TOKEN_URL: 'https://oauth2.googleapis.com/token',
      API_URL: 'https://www.googleapis.com',
    });
  });

  it('generate a fresh 32-hex SERVER_PASS', () => {
    expect(base.SERVER_PASS).toMatch(/^[0-9a-f]{32}$/);
    expect(configSchema().parse({}).SERVER_PASS).not.toBe(base.SERVER_PASS);
  });
});

describe('defaultConfig (a new install)', () => {
  const config = defaultConfig(() => 'cafebabecafebabecafebabecafebabe');

  it('uses the given SERVER_PASS source and is itself valid', () => {
    expect(config.SERVER_PASS).toBe('cafebabecafebabecafebabecafebabe');
    expect(configSchema().parse(config)).toEqual(config);
  });

  it('has one worked mapping per library: media server path <- container, host, drive', () => {
    for (const [plexPath, sources] of Object.entries(config.SERVER_PATH_MAPPINGS)) {
      expect(plexPath.endsWith('/')).toBe(true);
      expect(sources).toHaveLength(3);
      expect(sources.every((s) => s.endsWith('/'))).toBe(true);
      expect(sources[2].startsWith('My Drive/')).toBe(true);
    }
    expect(Object.keys(config.SERVER_PATH_MAPPINGS)).toEqual(['/data/Movies/', '/data/TV/', '/data/Music/']);
  });

  it('pre-fills the Drive filters for those folders, audio included', () => {
    expect(config.GOOGLE.ALLOWED.FILE_PATHS).toEqual(['My Drive/Media/Movies/', 'My Drive/Media/TV/', 'My Drive/Media/Music/']);
    expect(config.GOOGLE.ALLOWED.FILE_EXTENSIONS_LIST).toContain('mkv');
    expect(config.GOOGLE.ALLOWED.FILE_EXTENSIONS_LIST).toContain('flac');
    expect(config.GOOGLE.ALLOWED.MIME_TYPES_LIST).toEqual(['video', 'audio']);
    expect(config.SERVER_SCAN_PRIORITIES).toEqual({ '0': ['/Movies/'], '1': ['/TV/'], '2': ['/Music/'] });
    expect(config.SERVER_ANCHOR_FILES).toEqual([]);
  });
});

describe('values', () => {
  it.each([
    [{ SERVER_PORT: 0 }, 'SERVER_PORT: expected an integer 1-65535, got 0'],
    [{ SERVER_PORT: 65536 }, 'SERVER_PORT: expected an integer 1-65535, got 65536'],
    [{ SERVER_PORT: 3468.5 }, 'SERVER_PORT: expected an integer 1-65535, got 3468.5'],
    [{ SERVER_PORT: '3468' }, 'SERVER_PORT: expected an integer 1-65535, got "3468"'],
    [{ SERVER_SCAN_DELAY: -1 }, 'SERVER_SCAN_DELAY: expected a number of seconds, 0 or more, got -1'],
    [{ SERVER_FILE_CHECK_DELAY: null }, 'SERVER_FILE_CHECK_DELAY: expected a number of seconds, 0 or more, got null'],
    [{ SERVER_MAX_FILE_CHECKS: 2.5 }, 'SERVER_MAX_FILE_CHECKS: expected a whole number, 0 or more, got 2.5'],
    [{ PLEX_EMPTY_TRASH_MAX_FILES: -5 }, 'PLEX_EMPTY_TRASH_MAX_FILES: expected a whole number, 0 or more, got -5'],
    [{ PLEX_SCAN_PAUSE: -0.1 }, 'PLEX_SCAN_PAUSE: expected a number of seconds, 0 or more, got -0.1'],
    [{ SERVER_SCAN_RETRY_MAX_DELAY: 0 }, 'SERVER_SCAN_RETRY_MAX_DELAY: expected a number of seconds greater than 0, got 0'],
    [{ HISTORY_DAYS: 0 }, 'HISTORY_DAYS: expected a number of days greater than 0, got 0'],
    [{ HISTORY_MAX_ROWS: -1 }, 'HISTORY_MAX_ROWS: expected a whole number, 0 or more (0 = no row limit), got -1'],
    [{ LOG_MAX_SIZE: '10 parsecs' }, 'LOG_MAX_SIZE: expected a size like "10MB", "512K" or a number of bytes (0 = never rotate), got "10 parsecs"'],
    [{ LOG_MAX_SIZE: -1 }, 'LOG_MAX_SIZE: expected a size like "10MB", "512K" or a number of bytes (0 = never rotate), got -1'],
    [{ LOG_KEEP: 1.5 }, 'LOG_KEEP: expected a whole number of files, 0-1000, got 1.5'],
    [{ GOOGLE: { POLL_INTERVAL: 0 } }, 'GOOGLE.POLL_INTERVAL: expected a number of seconds greater than 0, got 0'],
    [{ USE_DOCKER: 'true' }, 'USE_DOCKER: expected true or false, got "true"'],
    [{ PLEX_TOKEN: 5 }, 'PLEX_TOKEN: expected a string, got 5'],
    [{ PLEX_ANALYZE_TYPE: 'full' }, 'PLEX_ANALYZE_TYPE: expected one of "off", "basic", "deep", got "full"'],
    [{ PLEX_SCAN_MODE: 'http' }, 'PLEX_SCAN_MODE: expected one of "auto", "api", "scanner", got "http"'],
    [{ PLEX_LOCAL_URL: 'localhost:32400' }, 'PLEX_LOCAL_URL: expected an http:// or https:// URL (or "" for none), got "localhost:32400"'],
    [{ GOOGLE: { TOKEN_URL: 'nope' } }, 'GOOGLE.TOKEN_URL: expected an http:// or https:// URL, got "nope"'],
    [{ SERVER_PASS: '' }, 'SERVER_PASS: expected a non-empty string without "/", got ""'],
    [{ SERVER_IP: '' }, 'SERVER_IP: expected a listen address, got ""'],
    [{ SERVER_SCAN_PRIORITIES: { high: ['/4K/'] } }, 'SERVER_SCAN_PRIORITIES["high"]: expected an integer (as a string) as key, like "0", got "high"'],
    [{ SERVER_PATH_MAPPINGS: { '/data/': [5] } }, 'SERVER_PATH_MAPPINGS["/data/"][0]: expected a non-empty string, got 5'],
    [{ SERVER_PATH_MAPPINGS: { '/data/': [''] } }, 'SERVER_PATH_MAPPINGS["/data/"][0]: expected a non-empty string, got ""'],
    [{ SERVER_PATH_MAPPINGS: ['/data/'] }, 'SERVER_PATH_MAPPINGS: expected an object of "path": ["prefix", ...], got ["/data/"]'],
    [{ SERVER_IGNORE_LIST: ['.grab', ''] }, 'SERVER_IGNORE_LIST[1]: expected a non-empty string, got ""'],
    [{ RCLONE: { CRYPT_MAPPINGS: { 'My Drive/encrypt/': { remote: 'gcrypt:' } } } }, 'RCLONE.CRYPT_MAPPINGS["My Drive/encrypt/"]: expected a list of strings, got {"remote":"gcrypt:"}'],
    [{ GOOGLE: [] }, 'GOOGLE: expected an object of Google Drive settings, got []'],
    [{ PLEX_SCAN_MODE: 'api', PLEX_LOCAL_URL: '' }, 'PLEX_LOCAL_URL: expected the Plex URL, because PLEX_SCAN_MODE is "api", got ""'],
  ])('%j is refused: %s', (content, message) => {
    expect(problem(content)).toBe(message);
  });

  it('accept a single string where a list is expected', () => {
    const c = load({
      SERVER_PATH_MAPPINGS: { '/data/TV/': '/tv/' },
      SERVER_SCAN_PRIORITIES: { '-1': '/4K/' },
      SERVER_ANCHOR_FILES: '/mnt/unionfs/mounted.bin',
      GOOGLE: { TEAMDRIVES: 'Media' },
    });
    expect(c.SERVER_PATH_MAPPINGS).toEqual({ '/data/TV/': ['/tv/'] });
    expect(c.SERVER_SCAN_PRIORITIES).toEqual({ '-1': ['/4K/'] });
    expect(c.SERVER_ANCHOR_FILES).toEqual(['/mnt/unionfs/mounted.bin']);
    expect(c.GOOGLE.TEAMDRIVES).toEqual(['Media']);
  });

  it('keep mapping keys in the order written, since the first match wins', () => {
    const c = load({ SERVER_PATH_MAPPINGS: { '/z/': ['/mnt/'], '/a/': ['/mnt/unionfs/'] } });
    expect(Object.keys(c.SERVER_PATH_MAPPINGS)).toEqual(['/z/', '/a/']);
  });

  it('take choices in any case', () => {
    const c = load({ PLEX_ANALYZE_TYPE: 'Deep', PLEX_SCAN_MODE: 'API', TARGETS: [{ NAME: 'jf', TYPE: 'Jellyfin', URL: 'http://jf:8096', TOKEN: 't' }] });
    expect(c.PLEX_ANALYZE_TYPE).toBe('deep');
    expect(c.PLEX_SCAN_MODE).toBe('api');
    expect(c.TARGETS[0].TYPE).toBe('jellyfin');
  });

  it('accept SERVER_USE_SQLITE either way (it changes nothing)', () => {
    expect(load({ SERVER_USE_SQLITE: false }).SERVER_USE_SQLITE).toBe(false);
    expect(load({ SERVER_USE_SQLITE: true }).SERVER_USE_SQLITE).toBe(true);
  });

  it('accept fractional seconds and zero delays', () => {
    const c = load({ SERVER_SCAN_DELAY: 0, SERVER_FILE_CHECK_DELAY: 0.5, PLEX_SCAN_PAUSE: 2.5, SERVER_MAX_FILE_CHECKS: 0 });
    expect([c.SERVER_SCAN_DELAY, c.SERVER_FILE_CHECK_DELAY, c.PLEX_SCAN_PAUSE, c.SERVER_MAX_FILE_CHECKS]).toEqual([0, 0.5, 2.5, 0]);
  });
});

describe('TARGETS', () => {
  const jellyfin = { NAME: 'jellyfin', TYPE: 'jellyfin', URL: 'http://jellyfin:8096', TOKEN: 'jf-key' };

  it('fill in defaults for the optional keys', () => {
    const [t] = load({ TARGETS: [jellyfin] }).TARGETS;
    expect(t).toEqual({ ...jellyfin, ENABLED: true, PATH_MAPPINGS: {}, INCLUDE: [], EXCLUDE: [], SCAN_PAUSE: 0 });
  });

  it('accept every documented key', () => {
    const [scanner] = load({
      TARGETS: [
        {
          NAME: 'plex-4k',
          TYPE: 'plex-scanner',
          ENABLED: false,
          PATH_MAPPINGS: { '/data4k/Movies/': ['/data/Movies/'] },
          INCLUDE: ['/data/Movies/'],
          EXCLUDE: '/data/Movies/Kids/',
          SCAN_PAUSE: 5,
          DATABASE_PATH: '/opt/plex4k/com.plexapp.plugins.library.db',
          SCANNER: '/usr/lib/plexmediaserver/Plex Media Scanner',
          SUPPORT_DIR: '/opt/plex4k/Library/Application Support',
          LD_LIBRARY_PATH: '/usr/lib/plexmediaserver/lib',
          USER: 'abc',
          USE_SUDO: false,
          USE_DOCKER: true,
          DOCKER_NAME: 'plex4k',
        },
      ],
    }).TARGETS;
    expect(scanner).toMatchObject({ ENABLED: false, EXCLUDE: ['/data/Movies/Kids/'], USE_DOCKER: true, DOCKER_NAME: 'plex4k' });
  });

  it.each(['jellyfin', 'emby', 'plex'])('a %s target needs URL and TOKEN', (type) => {
    expect(problem({ TARGETS: [{ NAME: 'x', TYPE: type, TOKEN: 't' }] })).toBe(
      `TARGETS[0].URL: expected an http:// or https:// URL for a ${type} target, got nothing`,
    );
    expect(problem({ TARGETS: [{ NAME: 'x', TYPE: type, URL: 'http://h:1' }] })).toBe(
      `TARGETS[0].TOKEN: expected the ${type} API token, got nothing`,
    );
  });

  it('a plex-scanner target needs neither', () => {
    expect(load({ TARGETS: [{ NAME: 'local', TYPE: 'plex-scanner' }] }).TARGETS[0].URL).toBeUndefined();
  });

  it('refuse a duplicate NAME, naming both entries', () => {
    expect(problem({ TARGETS: [jellyfin, { ...jellyfin, NAME: 'JellyFin', URL: 'http://other:8096' }] })).toBe(
      'TARGETS[1].NAME: expected a name not already used by TARGETS[0], got "JellyFin"',
    );
  });

  it('reserve the name "plex" for the PLEX_* server unless PLEX_ENABLED is false', () => {
    const plex = { NAME: 'plex', TYPE: 'plex', URL: 'http://plex2:32400', TOKEN: 't' };
    expect(problem({ TARGETS: [plex] })).toMatch(/^TARGETS\[0\]\.NAME: expected a name other than "plex" .*, got "plex"$/);
    expect(load({ PLEX_ENABLED: false, TARGETS: [plex] }).TARGETS[0].NAME).toBe('plex');
  });

  it.each([
    [{ NAME: 'my server', TYPE: 'emby', URL: 'http://e:8096', TOKEN: 't' }, 'TARGETS[0].NAME: expected a name made of letters, digits, "_", "." or "-", got "my server"'],
    [{ TYPE: 'emby', URL: 'http://e:8096', TOKEN: 't' }, 'TARGETS[0].NAME: expected a name made of letters, digits, "_", "." or "-", got nothing'],
    // The TYPE names are the table's (src/targets/kinds.ts), in its order: a new kind changes no test here.
    [{ NAME: 'k', TYPE: 'kodi' }, `TARGETS[0].TYPE: expected one of ${TARGET_TYPES.map((t) => `"${t}"`).join(', ')}, got "kodi"`],
    [{ NAME: 'e', TYPE: 'emby', URL: 'ftp://e', TOKEN: 't' }, 'TARGETS[0].URL: expected an http:// or https:// URL (or "" for none), got "ftp://e"'],
    [{ NAME: 'e', TYPE: 'emby', URL: 'http://e', TOKEN: 't', SCAN_PAUSE: -1 }, 'TARGETS[0].SCAN_PAUSE: expected a number of seconds, 0 or more, got -1'],
  ])('refuse %j', (target, message) => {
    expect(problem({ TARGETS: [target] })).toBe(message);
  });

  it('must be a list', () => {
    expect(problem({ TARGETS: { NAME: 'x' } })).toBe('TARGETS: expected a list of target objects, got {"NAME":"x"}');
  });
});

describe('docs/configuration.md', () => {
  it('has only examples that load', () => {
    const doc = readFileSync(join(repoRoot, 'docs', 'configuration.md'), 'utf8');
    const blocks = [...doc.matchAll(/```json\n([\s\S]*?)```/g)].map((m) => m[1]);
    expect(blocks.length).toBeGreaterThan(0);
    for (const block of blocks) {
      const value = JSON.parse(block) as object;
      expect(() => load(value)).not.toThrow();
    }
  });

  it('mentions every key', () => {
    const doc = readFileSync(join(repoRoot, 'docs', 'configuration.md'), 'utf8');
    const keys = (shape: Record<string, unknown>, prefix = ''): string[] =>
      Object.entries(shape).flatMap(([k, v]) =>
        v && typeof v === 'object' && !Array.isArray(v) && !/MAPPINGS|PRIORITIES/.test(k)
          ? [prefix + k, ...keys(v as Record<string, unknown>, `${prefix}${k}.`)]
          : [prefix + k],
      );
    const config = load({ TARGETS: [] });
    for (const key of keys(config as unknown as Record<string, unknown>)) {
      const named = doc.includes(`\`${key}\``) || doc.includes(`\`${key.split('.').pop()}\``);
      expect(named, key).toBe(true);
    }
  });
});
