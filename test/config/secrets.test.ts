// The secrets a config holds, listed once (src/config/secrets.ts): handed to the logger for scrubbing and never
// printed in a config error.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, secretsOf } from '../../src/config/load.js';
import { configSchema } from '../../src/config/schema.js';
import { describeIssue } from '../../src/config/issues.js';
import { isSecretKey, SECRET_KEYS } from '../../src/config/secrets.js';

const config = configSchema().parse({
  SERVER_PASS: 'pass with space',
  PLEX_TOKEN: 'plex-token-1',
  SERVER_METRICS_TOKEN: 'metrics-token-1',
  GOOGLE: { CLIENT_ID: 'client-id', CLIENT_SECRET: 'client-secret-1' },
  AUTOSCAN: { ENABLED: true, USER: 'arr', PASSWORD: 'autoscan-password-1' },
  TARGETS: [
    { NAME: 'jf', TYPE: 'jellyfin', URL: 'http://jf:8096', TOKEN: 'jf-token-1' },
    { NAME: 'local', TYPE: 'plex-scanner' },
    { NAME: 'other', TYPE: 'relay', URL: 'http://other:3468', USER: 'me', PASSWORD: 'relay-password-1' },
  ],
});

describe('secretsOf', () => {
  it('lists every secret value that is set, SERVER_PASS also as it appears in a URL', () => {
    expect(secretsOf(config).sort()).toEqual(
      [
        'pass with space',
        'pass%20with%20space',
        'plex-token-1',
        'metrics-token-1',
        'client-secret-1',
        'autoscan-password-1',
        'jf-token-1',
        'relay-password-1',
      ].sort(),
    );
  });

  it('leaves out unset ones', () => {
    expect(secretsOf(configSchema().parse({ SERVER_PASS: 'abcdef' }))).toEqual(['abcdef']);
  });
});

describe('the secret keys', () => {
  it('name TARGETS entries by index and nothing that merely shares a secret name', () => {
    expect(isSecretKey(['TARGETS', 3, 'TOKEN'])).toBe(true);
    expect(isSecretKey(['AUTOSCAN', 'PASSWORD'])).toBe(true);
    expect(isSecretKey(['TARGETS', 3, 'USER'])).toBe(false);
    expect(isSecretKey(['AUTOSCAN', 'USER'])).toBe(false);
    expect(isSecretKey(['TARGETS', 'TOKEN'])).toBe(false);
  });

  // A custom rule (like SERVER_PASS's "no slash") can refuse a string: each listed key's value stays hidden.
  it.each(SECRET_KEYS.map((key) => key.join('.')))('a refused string at %s is named in the error, not shown', (dotted) => {
    const path: (string | number)[] = dotted.split('.').map((part) => (part === '*' ? 0 : part));
    const input: Record<string, unknown> = {};
    let at: Record<string, unknown> | unknown[] = input;
    path.forEach((part, i) => {
      const last = i === path.length - 1;
      const next = last ? 'secret-value-1' : typeof path[i + 1] === 'number' ? [] : {};
      (at as Record<string | number, unknown>)[part] = next;
      if (!last) at = next as Record<string, unknown>;
    });
    const message = describeIssue({ code: 'custom', path, message: 'something else', input: 'secret-value-1' }, input as never, false);
    expect(message).toBe(`${dotted.replace('.*.', '[0].')}: expected something else, got a string (not shown: it is a secret)`);
  });

  it('a key outside the list is shown as written', () => {
    const message = describeIssue({ code: 'custom', path: ['AUTOSCAN', 'USER'], message: 'a user', input: 'a:b' }, { AUTOSCAN: { USER: 'a:b' } }, false);
    expect(message).toBe('AUTOSCAN.USER: expected a user, got "a:b"');
  });

  it('a wrong SERVER_PASS in a file is not printed', () => {
    const dir = mkdtempSync(join(tmpdir(), 'scanrelay-secrets-'));
    try {
      const file = join(dir, 'config.json');
      writeFileSync(file, JSON.stringify({ SERVER_PASS: 'my/secret' }));
      expect(() => loadConfig(file, {}, { write: false })).toThrow(ConfigError);
      expect(() => loadConfig(file, {}, { write: false })).toThrow('SERVER_PASS: expected a non-empty string without "/", got a string (not shown: it is a secret)');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('a user and password written into a URL key', () => {
  const PASS = 'userinfo-pass-5150';
  const withUserinfo = configSchema().parse({
    SERVER_PASS: 'abcdef',
    PLEX_LOCAL_URL: `http://plex-user:${PASS}@plex:32400`,
    TARGETS: [{ NAME: 'jf', TYPE: 'jellyfin', URL: 'http://proxy-user:jf-proxy-pass@jf:8096', TOKEN: 'jf-token-1' }],
    NOTIFY: [{ NAME: 'phone', TYPE: 'ntfy', URL: 'https://me:ntfy-pass-1@ntfy.example/alerts' }],
    RCLONE: { RC_CACHE_REFRESH: { ENABLED: true, RC_URL: 'http://rc:rc%2Fpass@localhost:5572' } },
    GOOGLE: { TOKEN_URL: 'https://gw:gateway-pass@oauth.example/token' },
  });

  it('is a secret of its own: the password as written and decoded, with its user, as the Basic header holds it', () => {
    const secrets = secretsOf(withUserinfo);
    for (const s of [PASS, `plex-user:${PASS}`, Buffer.from(`plex-user:${PASS}`).toString('base64'), 'jf-proxy-pass', 'ntfy-pass-1', 'rc%2Fpass', 'rc/pass', 'gateway-pass']) {
      expect(secrets).toContain(s);
    }
    expect(secrets).not.toContain('plex-user');
  });

  it('is never printed in a config error, though the URL around it is', () => {
    const message = describeIssue({ code: 'custom', path: ['PLEX_LOCAL_URL'], message: 'an http:// or https:// URL', input: '' }, { PLEX_LOCAL_URL: `ftp://plex-user:${PASS}@plex` }, false);
    expect(message).toBe('PLEX_LOCAL_URL: expected an http:// or https:// URL, got "ftp://plex"');
  });
});
