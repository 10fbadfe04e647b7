// Sign-ins: token file refresh (before expiry, after 401), invalid_grant with backoff, service account JWT, rclone remote token.
import { generateKeyPairSync } from 'node:crypto';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseRcloneConf, parseRcloneToken, readRcloneRemoteToken } from '../../src/drive/rclone-token.js';
import { REFRESH_MARGIN_MS, TokenFileSource, readTokenFile, writeTokenFile } from '../../src/drive/token-store.js';
import { silentLogger } from '../../src/log/logger.js';
import { startHarness, tvTree, type Harness } from './harness.js';

let h: Harness;
afterEach(async () => {
  await h?.close();
});

describe('token file sign-in', () => {
  it('refreshes before the stored expiry, keeps the refresh token and rewrites the file 0600', async () => {
    h = await startHarness();
    const file = join(h.dir, 'token.json');
    const before = readTokenFile(file);
    const source = new TokenFileSource(file, { tokenUrl: h.auth.tokenUrl, clientId: h.auth.clientId, clientSecret: h.auth.clientSecret, clock: h.clock, logger: silentLogger });
    expect(await source.getAccessToken()).toBe(before.access_token);
    expect(h.auth.grants).toEqual([]);

    h.clock.advance(3600_000 - REFRESH_MARGIN_MS + 1000);
    const renewed = await source.getAccessToken();
    expect(renewed).not.toBe(before.access_token);
    expect(h.auth.grants).toEqual(['refresh_token']);
    const after = readTokenFile(file);
    expect(after.access_token).toBe(renewed);
    expect(after.refresh_token).toBe(before.refresh_token);
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it('refreshes after Drive answers 401 and carries on', async () => {
    h = await startHarness();
    const t = tvTree(h.drive);
    await h.monitor.pollOnce();
    h.auth.expireAccessTokens();
    h.drive.addFile('e.mkv', t.season);
    const s = await h.monitor.pollOnce();
    expect(s.errors).toEqual([]);
    expect(h.auth.grants).toEqual(['refresh_token']);
    expect(h.enqueued).toHaveLength(1);
    // Secrets never reach the log, even at DEBUG.
    const token = readTokenFile(join(h.dir, 'token.json'));
    const log = h.log.lines.join('\n');
    expect(log).toContain('Renewed Google Drive access token');
    for (const secret of [token.access_token, token.refresh_token!, h.auth.clientSecret]) expect(log).not.toContain(secret);
  });

  it('invalid_grant: one clear line, the monitor keeps retrying with backoff, and recovers after a new authorize', async () => {
    h = await startHarness();
    const t = tvTree(h.drive);
    await h.monitor.pollOnce();
    h.auth.expireAccessTokens();
    h.auth.refreshRefused = true;

    const delays: number[] = [];
    for (let i = 0; i < 3; i++) {
      const s = await h.monitor.pollOnce();
      expect(s.errors).toHaveLength(1);
      delays.push(h.monitor.status().drives[0].nextAttemptAt! - h.clock.now());
      // Before the backoff ends nothing is tried.
      expect((await h.monitor.pollOnce()).drives).toBe(0);
      h.clock.advance(delays[i]);
    }
    // Backoff doubles from POLL_INTERVAL.
    expect(delays).toEqual([60_000, 120_000, 240_000]);
    expect(h.auth.grants).toEqual(['refresh_token', 'refresh_token', 'refresh_token']);
    const status = h.monitor.status().drives[0];
    expect(status.consecutiveFailures).toBe(3);
    expect(status.lastError).toMatch(/invalid_grant.*run `npx scanrelay authorize` again.*"Testing".*7 days/);
    const errors = h.log.lines.map((l) => JSON.parse(l) as { level: string; msg: string }).filter((l) => l.level === 'error');
    expect(errors).toHaveLength(1);
    expect(errors[0].msg).toContain('invalid_grant');

    // The user re-runs authorize: a new token file; the next try picks it up.
    writeTokenFile(join(h.dir, 'token.json'), h.auth.issueToken(h.clock.now() + 3600_000));
    h.drive.addFile('e.mkv', t.season);
    const s = await h.monitor.pollOnce();
    expect(s.errors).toEqual([]);
    expect(h.enqueued).toHaveLength(1);
  });

  it('a missing token file tells the user to run authorize, and the monitor start does not throw', async () => {
    h = await startHarness({ writeToken: false });
    const s = await h.monitor.pollOnce();
    expect(s.errors[0].error).toMatch(/no Google Drive token at .*token\.json: run `npx scanrelay authorize`/);
    expect(h.monitor.status().lastError).toBe(s.errors[0].error);
    expect(h.monitor.status().nextAttemptAt).toBeGreaterThan(h.clock.now());
  });
});

function makeServiceAccount(h: Harness, register = true): string {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const email = 'scanrelay@fake-project.iam.gserviceaccount.com';
  if (register) h.auth.registerServiceAccount(email, publicKey.export({ type: 'spki', format: 'pem' }).toString());
  writeFileSync(
    join(h.dir, 'sa.json'),
    JSON.stringify({
      type: 'service_account',
      project_id: 'fake-project',
      private_key_id: 'abc123',
      private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
      client_email: email,
      token_uri: h.auth.tokenUrl,
    }),
  );
  return email;
}

describe('service-account sign-in', () => {
  it('signs an RS256 JWT, gets a token with the jwt-bearer grant, and mints a new one when it runs out', async () => {
    h = await startHarness({ writeToken: false, settings: { SERVICE_ACCOUNT_FILE: 'sa.json' } });
    makeServiceAccount(h);
    const t = tvTree(h.drive);
    await h.monitor.pollOnce();
    h.drive.addFile('e.mkv', t.season);
    await h.monitor.pollOnce();
    expect(h.enqueued).toHaveLength(1);
    expect(h.auth.grants).toEqual(['urn:ietf:params:oauth:grant-type:jwt-bearer']);
    expect(h.monitor.status().signIn).toBe('service-account');

    h.clock.advance(3600_000);
    await h.monitor.pollOnce();
    expect(h.auth.grants).toHaveLength(2);
  });

  it('a key Google does not know gives a line naming GOOGLE.SERVICE_ACCOUNT_FILE', async () => {
    h = await startHarness({ writeToken: false, settings: { SERVICE_ACCOUNT_FILE: 'sa.json' } });
    makeServiceAccount(h, false);
    const s = await h.monitor.pollOnce();
    expect(s.errors[0].error).toMatch(/invalid_grant.*GOOGLE\.SERVICE_ACCOUNT_FILE/);
  });
});

describe('rclone remote sign-in', () => {
  const conf = (h: Harness, token: object, extra = '') =>
    `# written by rclone\n[other]\ntype = local\n\n[gdrive]\ntype = drive\nclient_id = ${h.auth.clientId}\nclient_secret = ${h.auth.clientSecret}\nscope = drive\n` +
    `token = ${JSON.stringify(token)}\nteam_drive = \n${extra}\n[gcrypt]\ntype = crypt\nremote = gdrive:encrypted\n`;

  it('uses the remote token while it is fresh, refreshes it with the remote\'s client when stale, and never writes rclone.conf', async () => {
    h = await startHarness({ writeToken: false, settings: { RCLONE_REMOTE: 'gdrive', RCLONE_CONFIG: 'rclone.conf' } });
    const refresh = h.auth.issueRefreshToken();
    // rclone's Go time format: nanoseconds and a zone offset.
    const expiry = new Date(h.clock.now() + 3600_000).toISOString().replace('Z', '123456+00:00').replace(/\.(\d{3})123456/, '.$1123456');
    const text = conf(h, { access_token: h.auth.issueAccessToken(), token_type: 'Bearer', refresh_token: refresh, expiry, expires_in: 3599 });
    writeFileSync(join(h.dir, 'rclone.conf'), text);
    const t = tvTree(h.drive);
    await h.monitor.pollOnce();
    h.drive.addFile('e.mkv', t.season);
    await h.monitor.pollOnce();
    expect(h.enqueued).toHaveLength(1);
    expect(h.auth.grants).toEqual([]);

    h.clock.advance(3600_000);
    h.drive.addFile('f.mkv', t.season);
    await h.monitor.pollOnce();
    expect(h.auth.grants).toEqual(['refresh_token']);
    expect(h.enqueued).toHaveLength(2);
    expect(readFileSync(join(h.dir, 'rclone.conf'), 'utf8')).toBe(text);
    expect(h.monitor.status().tokenSource).toMatch(/^rclone remote gdrive in .*rclone\.conf$/);
  });

  it('reads rclone.conf sections and tokens, and explains what it cannot use', async () => {
    h = await startHarness({ writeToken: false });
    const path = join(h.dir, 'rclone.conf');
    writeFileSync(path, conf(h, { AccessToken: 'legacy', RefreshToken: 'r', Expiry: '2020-01-01T00:00:00Z' }));
    expect(parseRcloneConf(readFileSync(path, 'utf8')).get('gcrypt')).toEqual({ type: 'crypt', remote: 'gdrive:encrypted' });
    expect(readRcloneRemoteToken(path, 'gdrive:').token).toMatchObject({ access_token: 'legacy', refresh_token: 'r' });
    expect(parseRcloneToken('{"access_token":"a","expiry":"0001-01-01T00:00:00Z"}').expiry).toBe(new Date(0).toISOString());
    expect(() => readRcloneRemoteToken(path, 'gcrypt')).toThrow(/type "crypt".*wraps "gdrive:encrypted"/);
    expect(() => readRcloneRemoteToken(path, 'nope')).toThrow(/GOOGLE.RCLONE_REMOTE: no remote \[nope\]/);
    writeFileSync(path, '# Encrypted rclone configuration File\n\nRCLONE_ENCRYPT_V0:\nabcdef');
    expect(() => readRcloneRemoteToken(path, 'gdrive')).toThrow(/encrypted rclone config/);
  });
});
