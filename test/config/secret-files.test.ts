// Secrets from files (Docker and systemd secrets): every top-level KEY from the file KEY_FILE names, every nested
// secret from its PARENT__KEY_FILE or LIST__<NAME>__KEY_FILE file, read where the environment is read
// (src/config/environment.ts); an unreadable or empty file, or a key given both ways, stops the start naming the
// variable and the file, never the content.
import { execFileSync } from 'node:child_process';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { fileVariable, SECRET_FILE_MAX_BYTES } from '../../src/config/environment.js';
import { ConfigError, loadConfig, secretsOf } from '../../src/config/load.js';
import { SECRET_KEYS } from '../../src/config/secrets.js';
import { FakePlex } from '../fakes/plex.js';
import { killChildren, runCli } from '../support/child.js';
import { writeConfigFile } from '../support/config-file.js';
import { repoRoot } from '../support/fixtures.js';
import { until } from '../support/until.js';

const dir = mkdtempSync(join(tmpdir(), 'scanrelay-secret-files-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(() => killChildren());

let n = 0;
/** A file holding `text`, as Docker puts a secret at /run/secrets/<name>. */
function secretFile(text: string): string {
  const file = join(dir, `secret-${n++}`);
  writeFileSync(file, text);
  return file;
}

/** loadConfig on a config.json holding `values`, with `env`; the file is not written back unless asked. */
function load(values: object, env: NodeJS.ProcessEnv, write = false) {
  const sub = join(dir, `c${n++}`);
  mkdirSync(sub);
  return loadConfig(writeConfigFile(sub, { SERVER_PASS: '0123456789abcdef0123456789abcdef', ...values }), env, { write });
}

function problem(values: object, env: NodeJS.ProcessEnv): string {
  try {
    load(values, env);
  } catch (err) {
    if (err instanceof ConfigError) return err.message;
    throw err;
  }
  throw new Error('expected a ConfigError');
}

/** For each list a secret sits in, an entry of that list by key, complete but for the secret the file gives. */
const ENTRY_WITHOUT: Record<string, Record<string, object>> = {
  TARGETS: {
    TOKEN: { NAME: 'jellyfin', TYPE: 'jellyfin', URL: 'http://jellyfin:8096' },
    PASSWORD: { NAME: 'other-relay', TYPE: 'relay', URL: 'http://other:3468', USER: 'me' },
    // Should a URL become a secret (it may carry user:password@).
    URL: { NAME: 'jellyfin', TYPE: 'jellyfin', TOKEN: 'jf-token-1' },
  },
  NOTIFY: { URL: { NAME: 'discord', TYPE: 'discord' } },
  ARR: { API_KEY: { NAME: 'sonarr', TYPE: 'sonarr', URL: 'http://sonarr:8989' } },
};

/** What a config needs around a secret that is not in a list (a section turned on, so its other keys count). */
const AROUND: Record<string, object> = {
  'AUTOSCAN.PASSWORD': { AUTOSCAN: { ENABLED: true, USER: 'arr' } },
};

/** A value the key accepts: URLs are URLs. */
const secretValue = (pattern: readonly string[]) => (pattern[pattern.length - 1].endsWith('URL') ? `https://hooks.example/${pattern.join('-')}/s3cr3t-from-file` : `s3cr3t-from-file-${pattern.join('-')}`);

describe('every secret key from a file', () => {
  it.each(SECRET_KEYS.map((k) => [k.join('.'), k] as const))('%s, from the file its _FILE variable names', (_dotted, pattern) => {
    const value = secretValue(pattern);
    const star = pattern.indexOf('*');
    let values: object = AROUND[pattern.join('.')] ?? {};
    let variable = fileVariable(pattern);
    if (star >= 0) {
      const list = pattern.slice(0, star).join('.');
      const entry = ENTRY_WITHOUT[list]?.[pattern.slice(star + 1).join('.')] as { NAME: string } | undefined;
      expect(entry, `a fixture entry of ${list} without ${pattern.slice(star + 1).join('.')} in ENTRY_WITHOUT`).toBeDefined();
      values = { [list]: [entry] };
      variable = fileVariable(pattern, entry!.NAME);
    }
    const loaded = load(values, { [variable]: secretFile(`${value}\n`) });
    const path = pattern.map((p) => (p === '*' ? 0 : p));
    const got = path.reduce<unknown>((v, p) => (v as Record<string | number, unknown>)[p], loaded.config);
    expect(got).toBe(value);
    // Handed to the logger to scrub like any secret.
    expect(secretsOf(loaded.config)).toContain(value);
    expect(loaded.fromFiles.map((f) => f.variable)).toEqual([variable]);
  });

  it('the nested spellings are the ones docs/configuration.md lists (a top-level key follows the one rule)', () => {
    const doc = readFileSync(join(repoRoot, 'docs', 'configuration.md'), 'utf8');
    for (const pattern of SECRET_KEYS.filter((k) => k.length > 1)) expect(doc, fileVariable(pattern)).toContain(`\`${fileVariable(pattern)}\``);
  });
});

describe('a top-level KEY_FILE', () => {
  it('gives the raw text less its trailing newline, not JSON, and is listed as coming from the environment', () => {
    const loaded = load({ PLEX_TOKEN: 'from-config-json' }, { PLEX_TOKEN_FILE: secretFile('"quoted" token\r\n'), SERVER_METRICS_TOKEN_FILE: secretFile('metrics-token-42') });
    expect(loaded.config.PLEX_TOKEN).toBe('"quoted" token');
    expect(loaded.config.SERVER_METRICS_TOKEN).toBe('metrics-token-42');
    expect(loaded.envOverrides.sort()).toEqual(['PLEX_TOKEN', 'SERVER_METRICS_TOKEN']);
  });

  it('works for every key: one that is not a string is read as JSON, like its variable', () => {
    const targets = [{ NAME: 'jf', TYPE: 'jellyfin', URL: 'http://jf:8096', TOKEN: 'jf-token-1' }];
    const loaded = load({}, { SERVER_PORT_FILE: secretFile('3470\n'), TARGETS_FILE: secretFile(JSON.stringify(targets, null, 2)) });
    expect(loaded.config.SERVER_PORT).toBe(3470);
    expect(loaded.config.TARGETS[0].TOKEN).toBe('jf-token-1');
  });

  it('that is empty, is blank, is missing or is a folder stops the start naming the variable and the file', () => {
    for (const [file, why] of [
      [secretFile(''), 'is empty'],
      [secretFile('\n\n'), 'is empty'],
      [join(dir, 'no-such-secret'), 'there is no such file'],
      [dir, 'it is a folder'],
    ]) {
      const message = problem({}, { PLEX_TOKEN_FILE: file });
      expect(message).toContain('config error in environment variable PLEX_TOKEN_FILE');
      expect(message).toContain(file);
      expect(message).toContain(why);
    }
  });

  // Issue 52, finding 6: a FIFO hung the start, /dev/zero aborted it, 300 MB were taken as a token.
  it('that is a FIFO, a device or larger than 64 KiB is refused at once, unread, naming the variable and the file', () => {
    const fifo = join(dir, `fifo-${n++}`);
    execFileSync('mkfifo', [fifo]);
    const large = secretFile('t'.repeat(SECRET_FILE_MAX_BYTES + 1));
    for (const [file, why] of [
      [fifo, 'it is not a regular file'],
      ['/dev/zero', 'it is not a regular file'],
      [large, 'it is larger than 64 KiB'],
    ]) {
      const message = problem({}, { PLEX_TOKEN_FILE: file });
      expect(message).toContain(`config error in environment variable PLEX_TOKEN_FILE: cannot read the file ${file}: ${why}`);
      expect(message).not.toContain('ttttttttt');
    }
    expect(load({}, { PLEX_TOKEN_FILE: secretFile(`${'t'.repeat(SECRET_FILE_MAX_BYTES - 1)}\n`) }).config.PLEX_TOKEN).toHaveLength(SECRET_FILE_MAX_BYTES - 1);
  });

  it('with a value the key refuses names the variable and the file, never the content', () => {
    const pass = problem({}, { SERVER_PASS_FILE: secretFile('has/a/slash-s3cr3t\n') });
    expect(pass).toMatch(/^config error in environment variable SERVER_PASS_FILE \(the file .*secret-\d+\): expected a non-empty string without "\/"/);
    expect(pass).not.toContain('s3cr3t');
    const port = problem({}, { SERVER_PORT_FILE: secretFile('not-a-port-s3cr3t') });
    expect(port).toContain('SERVER_PORT_FILE');
    expect(port).toContain('not JSON for an integer 1-65535');
    expect(port).not.toContain('s3cr3t');
    const range = problem({}, { SERVER_PORT_FILE: secretFile('99999') });
    expect(range).toMatch(/SERVER_PORT_FILE \(the file .*\): expected an integer 1-65535, got the file's content \(not shown\)$/);
  });

  it('beside its variable is an error: a key given both ways', () => {
    expect(problem({}, { PLEX_TOKEN: 'plex-token-1', PLEX_TOKEN_FILE: secretFile('plex-token-1') })).toBe(
      'config error in environment variables PLEX_TOKEN and PLEX_TOKEN_FILE: PLEX_TOKEN is given both ways; keep one',
    );
    // An empty variable counts as unset, as it does for every override.
    expect(load({}, { PLEX_TOKEN: '', PLEX_TOKEN_FILE: secretFile('plex-token-1') }).config.PLEX_TOKEN).toBe('plex-token-1');
  });

  it('is never written into config.json when an upgrade writes the added keys back', () => {
    const loaded = load({ PLEX_TOKEN: 'in-the-file' }, { PLEX_TOKEN_FILE: secretFile('plex-token-from-secret') }, true);
    expect(loaded.added.length).toBeGreaterThan(0);
    const written = readFileSync(loaded.path, 'utf8');
    expect(written).not.toContain('plex-token-from-secret');
    expect(JSON.parse(written).PLEX_TOKEN).toBe('in-the-file');
  });
});

describe('a nested secret from a file', () => {
  const jellyfin = { NAME: 'Jellyfin-4K', TYPE: 'jellyfin', URL: 'http://jf:8096' };
  const emby = { NAME: 'emby', TYPE: 'emby', URL: 'http://emby:8096', TOKEN: 'emby-token-5678' };

  it('finds its list entry by NAME in any case, or by position', () => {
    const byName = load({ TARGETS: [emby, jellyfin] }, { 'TARGETS__jellyfin-4k__TOKEN_FILE': secretFile('jf-token-1\n') });
    expect(byName.config.TARGETS.map((t) => t.TOKEN)).toEqual(['emby-token-5678', 'jf-token-1']);
    expect(byName.fromFiles.map((f) => f.key)).toEqual(['TARGETS[1].TOKEN']);
    const byIndex = load({ TARGETS: [emby, jellyfin] }, { TARGETS__1__TOKEN_FILE: secretFile('jf-token-1') });
    expect(byIndex.config.TARGETS[1].TOKEN).toBe('jf-token-1');
  });

  it("wins over config.json's value, as every environment override does", () => {
    const loaded = load({ TARGETS: [emby] }, { TARGETS__emby__TOKEN_FILE: secretFile('emby-token-from-secret') });
    expect(loaded.config.TARGETS[0].TOKEN).toBe('emby-token-from-secret');
  });

  it('beside the same key set by its section\'s variable is an error: a key given both ways', () => {
    expect(problem({}, { TARGETS: JSON.stringify([emby]), TARGETS__emby__TOKEN_FILE: secretFile('x') })).toBe(
      'config error in environment variables TARGETS and TARGETS__emby__TOKEN_FILE: TARGETS[0].TOKEN is given both ways; keep one',
    );
    // The section from its variable without the secret, the secret from its file: fine.
    const { TOKEN: _, ...withoutToken } = emby;
    expect(load({}, { TARGETS: JSON.stringify([withoutToken]), TARGETS__emby__TOKEN_FILE: secretFile('emby-token-5678') }).config.TARGETS[0].TOKEN).toBe('emby-token-5678');
  });

  it('naming no entry, or a key that is not a secret, stops the start saying what exists', () => {
    expect(problem({ TARGETS: [emby, jellyfin] }, { TARGETS__jelly__TOKEN_FILE: secretFile('x') })).toBe(
      'config error in environment variable TARGETS__jelly__TOKEN_FILE: TARGETS has no entry named "jelly" (its names: emby, Jellyfin-4K)',
    );
    const notSecret = problem({ TARGETS: [emby] }, { TARGETS__emby__URL_FILE_NOT_A_KEY_FILE: secretFile('x') });
    expect(notSecret).toMatch(/^config error in environment variable TARGETS__emby__URL_FILE_NOT_A_KEY_FILE: no secret is read from a file by this name; nested keys that are: .*TARGETS__<NAME>__TOKEN_FILE/);
    // Variables that do not start with a config key are someone else's.
    expect(load({}, { MY_APP__THING_FILE: '/nowhere' }).fromFiles).toEqual([]);
  });

  it('that is unreadable names the variable and the file, and a bad value is blamed on them, unshown', () => {
    expect(problem({ TARGETS: [emby] }, { TARGETS__emby__TOKEN_FILE: join(dir, 'missing') })).toBe(
      `config error in environment variable TARGETS__emby__TOKEN_FILE: cannot read the file ${join(dir, 'missing')}: there is no such file`,
    );
    const file = secretFile('not a url s3cr3t');
    expect(problem({ NOTIFY: [{ NAME: 'ntfy', TYPE: 'ntfy' }] }, { NOTIFY__ntfy__URL_FILE: file })).toBe(
      `config error in environment variable NOTIFY__ntfy__URL_FILE (the file ${file}): NOTIFY[0].URL: expected an http(s) URL, got the file's content (not shown)`,
    );
  });
});

describe('the server with PLEX_TOKEN only in PLEX_TOKEN_FILE', () => {
  it('calls Plex with it, and no log or console line holds it', async () => {
    const token = 'xYz-fake-plex-token-123';
    const plex = await new FakePlex({ token, sections: [{ key: '2', title: 'TV', type: 'show', locations: ['/data/media/tv'] }] }).start();
    try {
      const sub = join(dir, 'server');
      mkdirSync(sub);
      const pass = 'f00dcafef00dcafef00dcafef00dcafe';
      const config = writeConfigFile(sub, { SERVER_IP: '127.0.0.1', SERVER_SCAN_DELAY: 0, SERVER_MAX_FILE_CHECKS: 0, PLEX_LOCAL_URL: plex.url, SERVER_PATH_MAPPINGS: { '/data/media/tv/': ['/tv/'] } });
      const log = join(sub, 'scanrelay.log');
      const child = runCli(['--config', config, '--queuefile', join(sub, 'queue.db'), '--logfile', log, '--loglevel', 'TRACE', 'server', '--port', '0'], {
        cwd: sub,
        env: { PLEX_TOKEN_FILE: secretFile(`${token}\n`), SERVER_PASS_FILE: secretFile(pass) },
      });
      const [, url] = (await child.waitFor(/(http:\/\/127\.0\.0\.1:\d+)\/<SERVER_PASS from [^>]+>/)) as RegExpMatchArray;
      const body = readFileSync(join(repoRoot, 'test', 'fixtures', 'arr', 'sonarr-v4-download-bench.json'), 'utf8');
      const res = await fetch(`${url}/${pass}`, { method: 'POST', headers: { 'content-type': 'application/json', 'user-agent': 'Sonarr/4.0.14.2939' }, body });
      expect(res.status).toBe(200);
      await until(() => plex.refreshes.some((r) => r.path === '/data/media/tv/Severance (2022)/Season 02'), { ms: 15_000, what: 'a Plex refresh with the token from the file' });
      expect(plex.requests.filter((r) => r.path.startsWith('/library/sections/2/refresh')).every((r) => r.token === token)).toBe(true);
      const output = child.output();
      expect(output).toMatch(/Using ENV setting PLEX_TOKEN from the file \S+ \(PLEX_TOKEN_FILE\)/);
      for (const text of [output, readFileSync(log, 'utf8')]) {
        expect(text).not.toContain(token);
        expect(text).not.toContain(pass);
      }
    } finally {
      await plex.stop();
    }
  }, 60_000);
});

// Issue 52, finding 6: the address read from SERVER_IP_FILE was printed in the listen error.
describe('the server with SERVER_IP only in SERVER_IP_FILE', () => {
  it('names the variable, not the address, when it cannot listen there', async () => {
    const busy = createServer();
    const port = await new Promise<number>((resolve) => busy.listen(0, '127.0.0.1', () => resolve((busy.address() as AddressInfo).port)));
    try {
      const sub = join(dir, 'listen');
      mkdirSync(sub);
      const config = writeConfigFile(sub, { SERVER_PASS: 'f00dcafef00dcafef00dcafef00dcafe', PLEX_ENABLED: false });
      const child = runCli(['--config', config, '--queuefile', join(sub, 'queue.db'), '--logfile', join(sub, 'scanrelay.log'), 'server', '--port', String(port)], {
        cwd: sub,
        env: { SERVER_IP_FILE: secretFile('127.0.0.1\n') },
      });
      expect(await child.exited).toBe(1);
      expect(child.output()).toContain(`Could not listen on the address in SERVER_IP_FILE:${port}: another program uses that port.`);
      expect(child.output()).not.toContain(`Could not listen on 127.0.0.1`);
    } finally {
      busy.close();
    }
  }, 60_000);
});
