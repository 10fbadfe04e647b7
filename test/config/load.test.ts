// config.json on disk: creation, upgrade of old files, env overrides and the one-line errors users see.
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/load.js';
import { repoRoot } from '../support/fixtures.js';
import { LONE_SURROGATE } from '../support/surrogates.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'scanrelay-config-'));
  dirs.push(d);
  return d;
}

/** Writes `content` (text as-is, anything else as JSON) to a fresh config.json and returns its path. */
function configFile(content: unknown, mode?: number): string {
  const file = join(tempDir(), 'config.json');
  writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content, null, 2));
  if (mode !== undefined) chmodSync(file, mode);
  return file;
}

function fixtureText(name: string): string {
  return readFileSync(join(repoRoot, 'test', 'fixtures', 'config', name), 'utf8');
}

function errorOf(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as Error).message).not.toContain('\n');
    return err as ConfigError;
  }
  throw new Error('expected a ConfigError');
}

const fixedPass = () => '0123456789abcdef0123456789abcdef';
const readJson = (file: string) => JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;

describe('a missing config file', () => {
  it('is created complete, in new folders, mode 0600, and the service carries on', () => {
    const file = join(tempDir(), 'deep', 'er', 'config.json');
    const loaded = loadConfig(file, {});

    expect(loaded.created).toBe(true);
    expect(loaded.path).toBe(file);
    expect(loaded.added).toEqual([]);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(loaded.config.SERVER_PASS).toMatch(/^[0-9a-f]{32}$/);
    expect(readJson(file).SERVER_PASS).toBe(loaded.config.SERVER_PASS);
    expect(loaded.config.SERVER_PATH_MAPPINGS).toEqual({
      '/data/Movies/': ['/movies/', '/mnt/unionfs/Media/Movies/', 'My Drive/Media/Movies/'],
      '/data/TV/': ['/tv/', '/mnt/unionfs/Media/TV/', 'My Drive/Media/TV/'],
      '/data/Music/': ['/music/', '/mnt/unionfs/Media/Music/', 'My Drive/Media/Music/'],
    });
  });

  it('gets a different random SERVER_PASS per install', () => {
    const a = loadConfig(join(tempDir(), 'config.json'), {}).config.SERVER_PASS;
    const b = loadConfig(join(tempDir(), 'config.json'), {}).config.SERVER_PASS;
    expect(a).not.toBe(b);
  });

  it('is written with sorted keys and 2-space indent, and loads back unchanged', () => {
    const file = join(tempDir(), 'config.json');
    const first = loadConfig(file, {}, { random: fixedPass });
    const text = readFileSync(file, 'utf8');
    expect(text.startsWith('{\n  "ARR": [],\n  "AUTOSCAN": {\n    "A_TRAIN_DRIVES": {},')).toBe(true);
    const top = Object.keys(readJson(file));
    expect(top).toEqual([...top].sort());

    const again = loadConfig(file, {});
    expect(again.created).toBe(false);
    expect(again.added).toEqual([]);
    expect(again.config).toEqual(first.config);
    expect(readFileSync(file, 'utf8')).toBe(text);
  });

  it('is not written with write: false', () => {
    const file = join(tempDir(), 'config.json');
    const loaded = loadConfig(file, {}, { write: false, random: fixedPass });
    expect(loaded.created).toBe(false);
    expect(loaded.config.SERVER_PASS).toBe(fixedPass());
    expect(existsSync(file)).toBe(false);
  });

  it('that cannot be created is a ConfigError naming the file', () => {
    const blocker = join(tempDir(), 'not-a-folder');
    writeFileSync(blocker, '');
    const file = join(blocker, 'config.json');
    expect(errorOf(() => loadConfig(file, {})).message).toMatch(
      new RegExp(`^config error in ${escape(file)}: there is no config file and a default one could not be created: `),
    );
  });
});

describe('upgrading a file with only some keys', () => {
  it('fills in the rest, writes them back sorted, keeps unknown keys, order of mappings and the file mode', () => {
    const file = configFile(fixtureText('partial.json'), 0o640);
    const loaded = loadConfig(file, {});

    expect(loaded.added).toContain('PLEX_TOKEN');
    expect(loaded.added).toContain('TARGETS');
    expect(loaded.added).toContain('GOOGLE.POLL_INTERVAL');
    expect(loaded.added).toContain('GOOGLE.ALLOWED.MIME_TYPES_LIST');
    expect(loaded.added).toContain('RCLONE');
    expect(loaded.added).not.toContain('SERVER_PORT');
    expect(loaded.added).not.toContain('GOOGLE.ALLOWED.FILE_PATHS');
    expect(loaded.ignored).toEqual(['PLEX_SECTION_PATH_MAPPINGS']);

    // Values from the file win; missing ones are base defaults, not the generated examples.
    expect(loaded.config.SERVER_PORT).toBe(3470);
    expect(loaded.config.SERVER_PASS).toBe('f00dcafef00dcafef00dcafef00dcafe');
    expect(loaded.config.SERVER_SCAN_PRIORITIES).toEqual({});
    expect(loaded.config.GOOGLE.ALLOWED.FILE_PATHS).toEqual(['My Drive/Media/']);
    expect(loaded.config.SERVER_PATH_MAPPINGS['/data/TV/']).toEqual(['/tv/']);

    const written = readJson(file);
    expect(Object.keys(written)).toEqual(Object.keys(written).sort());
    expect(Object.keys(written)).toHaveLength(Object.keys(loaded.config).length + 1);
    expect(written.PLEX_SECTION_PATH_MAPPINGS).toEqual({ '1': ['/Movies/'] });
    expect(Object.keys(written.SERVER_PATH_MAPPINGS as object)).toEqual(['/data/TV/', '/data/Movies/']);
    expect(written.SERVER_PATH_MAPPINGS).toEqual(JSON.parse(fixtureText('partial.json')).SERVER_PATH_MAPPINGS);
    expect(readFileSync(file, 'utf8')).toMatch(/^\{\n {2}"ARR": \[\],\n {2}"AUTOSCAN"/);
    expect(statSync(file).mode & 0o777).toBe(0o640);

    const again = loadConfig(file, {});
    expect(again.added).toEqual([]);
    expect(again.config).toEqual(loaded.config);
  });

  it('keeps a generated SERVER_PASS once written, so the webhook URL stays the same', () => {
    const file = configFile({ SERVER_PORT: 3468 });
    const first = loadConfig(file, {});
    expect(first.added).toContain('SERVER_PASS');
    expect(loadConfig(file, {}).config.SERVER_PASS).toBe(first.config.SERVER_PASS);
  });

  it('leaves the file alone with write: false', () => {
    const text = '{"SERVER_PORT": 3468}';
    const file = configFile(text);
    const loaded = loadConfig(file, {}, { write: false });
    expect(loaded.added.length).toBeGreaterThan(10);
    expect(readFileSync(file, 'utf8')).toBe(text);
  });

  it('reports but survives a file it cannot write', () => {
    const file = configFile('{"SERVER_PORT": 3468}', 0o444);
    chmodSync(join(file, '..'), 0o755);
    const result = loadAsUnprivileged(file);
    expect(result.error).toBeUndefined();
    expect(result.added).toContain('SERVER_PASS');
    expect(result.writeError).toMatch(/EACCES|permission/i);
    expect(readFileSync(file, 'utf8')).toBe('{"SERVER_PORT": 3468}');
  });

  it('accepts a file saved with a byte-order mark', () => {
    const file = configFile('\ufeff{"SERVER_PORT": 3469}');
    expect(loadConfig(file, {}, { write: false }).config.SERVER_PORT).toBe(3469);
  });
});

describe('plex_autoscan config files', () => {
  it('loads the config plex_autoscan generates, keeping every value and adding only scanrelay keys', () => {
    const original = JSON.parse(fixtureText('plex_autoscan-generated.json'));
    const file = configFile(original);
    const loaded = loadConfig(file, {});

    expect(loaded.ignored).toEqual([]);
    expect(loaded.added.sort()).toEqual(
      [
        'ARR',
        'AUTOSCAN',
        'GOOGLE.API_URL',
        'GOOGLE.AUTH_URL',
        'GOOGLE.RCLONE_CONFIG',
        'GOOGLE.RCLONE_REMOTE',
        'GOOGLE.SERVICE_ACCOUNT_FILE',
        'GOOGLE.TOKEN_FILE',
        'GOOGLE.TOKEN_URL',
        'HISTORY_DAYS',
        'HISTORY_MAX_ROWS',
        'LOG_KEEP',
        'LOG_MAX_SIZE',
        'NOTIFY',
        'PLEX_CONFIRM_SCANS',
        'PLEX_CONFIRM_TIMEOUT',
        'PLEX_ENABLED',
        'PLEX_FIX_MISMATCHED_DRY_RUN',
        'PLEX_FOLLOW_INTERVAL',
        'PLEX_NOTIFICATIONS',
        'PLEX_MAX_OUTSTANDING',
        'PLEX_REFRESH_ITEMS',
        'PLEX_SCAN_CONCURRENCY',
        'PLEX_SCAN_MODE',
        'PLEX_SCAN_PAUSE',
        'SERVER_BASE_PATH',
        'SERVER_ANCHOR_FILES',
        'SERVER_MAX_REQUEST_PATHS',
        'SERVER_SCAN_DELAYS',
        'SERVER_SCAN_MAX_WAIT',
        'SERVER_METRICS_TOKEN',
        'SERVER_SCAN_RETRY_MAX_DELAY',
        'SERVER_TRUST_PROXY',
        'TARGETS',
        'WATCH',
      ].sort(),
    );
    const c = loaded.config;
    // What the user had stays what it was, including plex_autoscan's own code defaults.
    expect(c.SERVER_PORT).toBe(3467);
    expect(c.USE_SUDO).toBe(true);
    expect(c.SERVER_USE_SQLITE).toBe(false);
    expect(c.GOOGLE.SHOW_CACHE_LOGS).toBe(true);
    expect(c.PLEX_SCANNER).toBe('/usr/lib/plexmediaserver/Plex\\ Media\\ Scanner');
    expect(c.SERVER_SCAN_PRIORITIES).toEqual({ '0': ['/Movies/'], '1': ['/TV/'], '2': ['/Music/'] });
    expect(c.GOOGLE.ALLOWED.FILE_EXTENSIONS_LIST).toHaveLength(42);
    expect(c.RCLONE.RC_CACHE_REFRESH.FILE_EXISTS_TO_REMOTE_MAPPINGS).toEqual({ 'Media/': ['/mnt/rclone/Media/'] });

    const written = readJson(file);
    for (const [key, value] of Object.entries(original)) {
      if (key !== 'GOOGLE') expect(written[key]).toEqual(value);
    }
    expect(written.GOOGLE).toMatchObject(original.GOOGLE);
  });

  it('loads an old Cloudbox config and lists its legacy keys as ignored, keeping them in the file', () => {
    const file = configFile(fixtureText('plex_autoscan-cloudbox-legacy.json'));
    const loaded = loadConfig(file, {});
    expect(loaded.ignored.sort()).toEqual(['GDRIVE', 'PLEX_SECTION_PATH_MAPPINGS', 'RCLONE_RC_CACHE_EXPIRE']);
    expect(loaded.config.USE_DOCKER).toBe(true);
    expect(loaded.config.SERVER_SCAN_DELAY).toBe(120);
    const written = readJson(file);
    expect(written.GDRIVE).toBeDefined();
    expect(written.RCLONE_RC_CACHE_EXPIRE).toBeDefined();
    expect(written.PLEX_SECTION_PATH_MAPPINGS).toEqual({ '1': ['/Movies/'], '2': ['/TV/'] });
  });

  it('ignores unknown keys at any depth, including develop-branch ones', () => {
    const file = configFile({
      PLEX_SECTION_PATH_MAPPINGS_WITH_API: true,
      SOMETHING_ELSE: 1,
      GOOGLE: { FUTURE: true, ALLOWED: { ODD: [] } },
      RCLONE: { RC_CACHE_REFRESH: { RC_USER: 'x' } },
      TARGETS: [{ NAME: 'scanner2', TYPE: 'plex-scanner', COLOUR: 'red' }],
    });
    expect(loadConfig(file, {}, { write: false }).ignored.sort()).toEqual(
      [
        'GOOGLE.ALLOWED.ODD',
        'GOOGLE.FUTURE',
        'PLEX_SECTION_PATH_MAPPINGS_WITH_API',
        'RCLONE.RC_CACHE_REFRESH.RC_USER',
        'SOMETHING_ELSE',
        'TARGETS[0].COLOUR',
      ].sort(),
    );
  });
});

describe('environment overrides', () => {
  it('JSON-decode each top-level key, are listed, and are never written back', () => {
    const file = configFile({ SERVER_PORT: 3468, USE_DOCKER: false });
    const loaded = loadConfig(file, { USE_DOCKER: 'true', SERVER_PORT: '3470', PLEX_TOKEN: '"abc"', GOOGLE: '{"ENABLED": true}' });

    expect(loaded.config.USE_DOCKER).toBe(true);
    expect(loaded.config.SERVER_PORT).toBe(3470);
    expect(loaded.config.PLEX_TOKEN).toBe('abc');
    expect(loaded.config.GOOGLE.ENABLED).toBe(true);
    expect(loaded.config.GOOGLE.POLL_INTERVAL).toBe(120);
    expect(loaded.envOverrides.sort()).toEqual(['GOOGLE', 'PLEX_TOKEN', 'SERVER_PORT', 'USE_DOCKER']);

    const written = readJson(file);
    expect(written.SERVER_PORT).toBe(3468);
    expect(written.USE_DOCKER).toBe(false);
    expect(written.PLEX_TOKEN).toBe('');
    expect((written.GOOGLE as { ENABLED: boolean }).ENABLED).toBe(false);
  });

  it('take a string key raw when it is not a JSON string', () => {
    const file = configFile({});
    const { config } = loadConfig(file, { PLEX_TOKEN: 'abc', SERVER_IP: '127.0.0.1', SERVER_PASS: '12345', PLEX_ANALYZE_TYPE: 'Deep' }, { write: false });
    expect(config.PLEX_TOKEN).toBe('abc');
    expect(config.SERVER_IP).toBe('127.0.0.1');
    expect(config.SERVER_PASS).toBe('12345');
    expect(config.PLEX_ANALYZE_TYPE).toBe('deep');
  });

  it('ignore empty variables and names that are not config keys', () => {
    const file = configFile({ PLEX_TOKEN: 'file-token' });
    const loaded = loadConfig(file, { PLEX_TOKEN: '', plex_token: 'x', PATH: '/usr/bin', HOME: '/root' }, { write: false });
    expect(loaded.config.PLEX_TOKEN).toBe('file-token');
    expect(loaded.envOverrides).toEqual([]);
  });

  it('that are not JSON for a non-string key are a ConfigError naming the variable and what was expected', () => {
    const file = configFile({});
    expect(errorOf(() => loadConfig(file, { USE_DOCKER: 'yes' })).message).toBe(
      'config error in environment variable USE_DOCKER: expected JSON for true or false, got yes',
    );
    expect(errorOf(() => loadConfig(file, { SERVER_PORT: 'abc' })).message).toBe(
      'config error in environment variable SERVER_PORT: expected JSON for an integer 1-65535, got abc',
    );
  });

  it('that are long are shown by their start, which ends on a character, never half an emoji', () => {
    const file = configFile({});
    const raw = errorOf(() => loadConfig(file, { USE_DOCKER: `${'y'.repeat(56)}😀${'z'.repeat(10)}` })).message;
    expect(raw).not.toMatch(LONE_SURROGATE);
    expect(raw).toBe(`config error in environment variable USE_DOCKER: expected JSON for true or false, got ${'y'.repeat(56)}...`);
    const value = errorOf(() => loadConfig(file, { GOOGLE: JSON.stringify({ ENABLED: `${'y'.repeat(54)}😀😀😀` }) })).message;
    expect(value).not.toMatch(LONE_SURROGATE);
    expect(value).toBe(`config error in environment variable GOOGLE: GOOGLE.ENABLED: expected true or false, got "${'y'.repeat(54)}..."`);
  });

  it('with a wrong value are blamed on the variable, not the file', () => {
    const file = configFile({});
    expect(errorOf(() => loadConfig(file, { SERVER_PORT: '70000' })).message).toBe(
      'config error in environment variable SERVER_PORT: expected an integer 1-65535, got 70000',
    );
    expect(errorOf(() => loadConfig(file, { GOOGLE: '{"ENABLED": "yes"}' })).message).toBe(
      'config error in environment variable GOOGLE: GOOGLE.ENABLED: expected true or false, got "yes"',
    );
  });
});

describe('errors in the file', () => {
  it('name the file, the key, what was expected and what was found', () => {
    const file = configFile({ SERVER_PORT: 'abc' });
    expect(errorOf(() => loadConfig(file, {})).message).toBe(
      `config error in ${file}: SERVER_PORT: expected an integer 1-65535, got "abc"`,
    );
  });

  it('point at the line and column of broken JSON', () => {
    const file = configFile('{\n  "SERVER_PORT": 3468,\n  "SERVER_IP": "0.0.0.0",\n}\n');
    expect(errorOf(() => loadConfig(file, {})).message).toMatch(
      new RegExp(`^config error in ${escape(file)}: invalid JSON at line 4, column 1: \\S`),
    );
  });

  it('point at the end of a truncated file', () => {
    const file = configFile('{\n  "SERVER_IGNORE_LIST": [\n    "/.grab/",\n');
    expect(errorOf(() => loadConfig(file, {})).message).toMatch(/invalid JSON at line 4, column 1: Unexpected end of JSON input$/);
  });

  it('refuse a top-level key written twice, naming the line of each (JSON would keep only the last)', () => {
    const text = '{\n  "SERVER_PATH_MAPPINGS": { "/data/TV/": ["/tv/"] },\n  "SERVER_PORT": 3468,\n  "SERVER_PATH_MAPPINGS": { "/data/TV/": ["/tvshows/"] },\n  "PLEX_TOKEN": "x"\n}\n';
    const file = configFile(text);
    expect(errorOf(() => loadConfig(file, {})).message).toBe(
      `config error in ${file}: 'SERVER_PATH_MAPPINGS' is written 2 times (lines 2, 4) and only the last would count: merge their entries into one 'SERVER_PATH_MAPPINGS', delete the others, and start again (the file was not changed)`,
    );
    expect(readFileSync(file, 'utf8')).toBe(text);
    // One name at different depths, or inside a string, is no duplicate.
    expect(() => loadConfig(configFile('{"PLEX_TOKEN": "x", "RCLONE": {"PLEX_TOKEN": 1}, "SERVER_IGNORE_LIST": ["\\"PLEX_TOKEN\\": 2"]}'), {}, { write: false })).not.toThrow();
  });

  it('explain an empty file', () => {
    const file = configFile('  \n');
    expect(errorOf(() => loadConfig(file, {})).message).toBe(
      `config error in ${file}: the file is empty; fill it with a JSON object, or delete it to get a default one`,
    );
  });

  it('explain a top-level array or scalar', () => {
    expect(errorOf(() => loadConfig(configFile('[]'), {})).message).toMatch(/expected a JSON object \(\{ \.\.\. \}\) at the top level, got a list of 0 items$/);
    expect(errorOf(() => loadConfig(configFile('"x"'), {})).message).toMatch(/at the top level, got a string$/);
  });

  it('explain a path that is a folder', () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'config.json'));
    expect(errorOf(() => loadConfig(join(dir, 'config.json'), {})).message).toBe(
      `config error in ${join(dir, 'config.json')}: this is a folder, not a file`,
    );
  });

  it('explain an unreadable file', () => {
    const file = configFile('{}', 0o000);
    chmodSync(join(file, '..'), 0o755);
    const result = loadAsUnprivileged(file);
    expect(result.error).toMatch(new RegExp(`^config error in ${escape(file)}: cannot read the file: EACCES`));
  });

  it('never write anything back', () => {
    const text = '{"SERVER_PORT": 0}';
    const file = configFile(text);
    errorOf(() => loadConfig(file, {}));
    expect(readFileSync(file, 'utf8')).toBe(text);
  });

  it('count the other problems without listing them', () => {
    const file = configFile({ SERVER_PORT: 0, USE_DOCKER: 'no', SERVER_SCAN_DELAY: -1 });
    expect(errorOf(() => loadConfig(file, {})).message).toMatch(/SERVER_PORT: expected an integer 1-65535, got 0 \(and 2 more problems\)$/);
  });

  it('do not print a secret', () => {
    const file = configFile({ SERVER_PASS: 'my/secret' });
    const message = errorOf(() => loadConfig(file, {})).message;
    expect(message).toContain('SERVER_PASS: expected a non-empty string without "/"');
    expect(message).not.toContain('my/secret');
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * Runs loadConfig as a user the file's permissions apply to: root ignores them, and these tests run as root
 * in CI containers.
 */
function loadAsUnprivileged(file: string): { added?: string[]; writeError?: string; error?: string } {
  const runAs = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : {};
  const script = join(tempDir(), 'run.mjs');
  const loadUrl = pathToFileURL(join(repoRoot, 'src', 'config', 'load.ts')).href;
  writeFileSync(
    script,
    `const { loadConfig } = await import(${JSON.stringify(loadUrl)});
     try { const r = loadConfig(${JSON.stringify(file)}, {}); console.log(JSON.stringify({ added: r.added, writeError: r.writeError })); }
     catch (e) { console.log(JSON.stringify({ error: e.message })); }`,
  );
  chmodSync(join(script, '..'), 0o755);
  chmodSync(script, 0o644);
  const run = spawnSync(process.execPath, ['--import', 'tsx', script], {
    cwd: repoRoot,
    encoding: 'utf8',
    env: { PATH: process.env.PATH, HOME: tmpdir() },
    ...runAs,
  });
  const line = run.stdout.trim().split('\n').pop() ?? '';
  if (!line.startsWith('{')) throw new Error(`child failed: ${run.stderr}`);
  return JSON.parse(line);
}
