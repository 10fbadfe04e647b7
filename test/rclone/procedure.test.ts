// The procedure of docs/rclone.md (steps 1-19) end to end through the real CLI with answers on a pipe, against the fake Google
// endpoints and the REAL rclone binary (its authorize output pasted in, its config dump/show reading
// our file back). Everything that uses the fixed loopback port 53682 lives in this one file.
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeBlob } from '../../src/rclone/blob.js';
import { Conf } from '../../src/rclone/conf.js';
import { startFakeDriveList, type FakeDriveList } from '../fakes/drive-list.js';
import { startFakeGoogleOAuth, type FakeGoogleOAuth } from '../fakes/google-oauth.js';
import { PASTE_BLOCK, Session, playBrowser, realRcloneAuthorize } from './cli-session.js';

const CLIENT_ID = 'test-client.apps.googleusercontent.com';
const CLIENT_SECRET = 'test-secret';

let google: FakeGoogleOAuth;
let driveList: FakeDriveList;
let dir: string;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  google = await startFakeGoogleOAuth();
  driveList = await startFakeDriveList();
  dir = mkdtempSync(join(tmpdir(), 'scanrelay-rclone-'));
  env = {
    PATH: process.env.PATH,
    HOME: dir,
    TZ: 'UTC',
    RCLONE_DRIVE_AUTH_URL: google.authUrl,
    RCLONE_DRIVE_TOKEN_URL: google.tokenUrl,
    SCANRELAY_DRIVE_API_URL: driveList.url,
  };
});

afterAll(async () => {
  await google?.close();
  await driveList?.close();
  rmSync(dir, { recursive: true, force: true });
});

function rclone(args: string[], extraEnv: NodeJS.ProcessEnv = {}): string {
  return execFileSync('rclone', args, { env: { ...env, ...extraEnv }, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

function dump(file: string, extraEnv: NodeJS.ProcessEnv = {}): Record<string, Record<string, string>> {
  return JSON.parse(rclone(['config', 'dump', '--config', file], extraEnv)) as Record<string, Record<string, string>>;
}

/** Steps 1-19 with client id, scope 1, headless paste from real rclone; shared drive by list number or none. */
async function scriptedRun(file: string, sharedDrive: number | undefined): Promise<Session> {
  const s = Session.cli(['rclone', 'config', '--config', file], env);
  await s.answer('n/s/q> ', 'n');
  await s.answer('name> ', 'gdrive');
  await s.answer('Storage> ', 'drive');
  await s.answer('client_id> ', CLIENT_ID);
  await s.answer('client_secret> ', CLIENT_SECRET);
  await s.answer('scope> ', '1');
  await s.answer('root_folder_id> ', '');
  await s.answer('service_account_file> ', '');
  await s.answer('y/n> ', 'n'); // Edit advanced config?
  await s.answer('y/n> ', 'n'); // Use auto config?
  const [, blob] = await s.waitFor(/\tscanrelay rclone authorize "drive" "([A-Za-z0-9+/]+)"\n/);
  const paste = await realRcloneAuthorize(['drive', blob], env);
  await s.answer('config_token> ', paste);
  if (sharedDrive === undefined) await s.answer('y/n> ', 'n');
  else {
    await s.answer('y/n> ', 'y');
    await s.answer('config_team_drive> ', String(sharedDrive));
  }
  await s.answer('y/e/d> ', 'y');
  await s.answer('e/n/d/r/c/s/q> ', 'q');
  s.endInput();
  expect(await s.exited, s.stderr).toBe(0);
  return s;
}

describe('the procedure of docs/rclone.md, piped, with real rclone', () => {
  it('steps 1-19 leave a file real rclone reads back with identical fields', async () => {
    const file = join(dir, 'steps.conf');
    const s = await scriptedRun(file, undefined);

    // The printed command carries rclone's blob of the non-default options.
    const [, blob] = s.stdout.match(/authorize "drive" "([^"]+)"/)!;
    expect(decodeBlob(blob)).toMatchObject({ client_id: CLIENT_ID, client_secret: CLIENT_SECRET, scope: 'drive' });

    const ours = Conf.parse(readFileSync(file, 'utf8'));
    const theirs = dump(file);
    expect(Object.keys(theirs)).toEqual(['gdrive']);
    expect(theirs.gdrive).toEqual(Object.fromEntries(ours.entries('gdrive')));
    expect(theirs.gdrive).toMatchObject({ type: 'drive', client_id: CLIENT_ID, client_secret: CLIENT_SECRET, scope: 'drive', team_drive: '' });
    const token = JSON.parse(theirs.gdrive.token) as Record<string, string>;
    expect(Object.keys(token)).toEqual(['access_token', 'token_type', 'refresh_token', 'expiry']);
    expect(token).toMatchObject({ access_token: google.tokenResponse.access_token, token_type: 'Bearer', refresh_token: google.tokenResponse.refresh_token });
    expect(token.expiry).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/);

    // Byte layout as rclone writes it, and real `config show` prints the same remote.
    const text = readFileSync(file, 'utf8');
    expect(text).toBe(`[gdrive]\ntype = drive\nclient_id = ${CLIENT_ID}\nclient_secret = ${CLIENT_SECRET}\nscope = drive\ntoken = ${theirs.gdrive.token}\nteam_drive = \n\n`);
    expect(rclone(['config', 'show', '--config', file])).toBe(text);
    expect(rclone(['config', 'show', 'gdrive', '--config', file])).toBe(text.slice(0, -1));
    expect(statSync(file).mode & 0o777).toBe(0o600);

    // The code went through the fake with the client id and the loopback redirect.
    const exchange = google.requests.filter((r) => r.path === '/token' && r.form.grant_type === 'authorization_code').at(-1)!;
    expect(exchange.form).toMatchObject({ client_id: CLIENT_ID, client_secret: CLIENT_SECRET, redirect_uri: 'http://127.0.0.1:53682/' });
  });

  it('the same run with a shared drive picked by number writes its ID in team_drive', async () => {
    const file = join(dir, 'shared.conf');
    const s = await scriptedRun(file, 2);
    expect(s.stdout).toContain(' 1 / Media\n   \\ (0ASrMediaTeamDrv1PVA)\n 2 / Media-4K\n   \\ (0ASrMedia4KTeamDrvPVA)\n');
    const theirs = dump(file);
    expect(theirs.gdrive.team_drive).toBe(driveList.drives[1].id);
    expect(theirs.gdrive.root_folder_id).toBe('');
    expect(driveList.bearerTokens.at(-1)).toBe(google.tokenResponse.access_token);
  });
});

describe('authorize and the loopback flow', () => {
  it('our authorize blob is accepted by real rclone config create … config_token=', async () => {
    const blob = 'eyJjbGllbnRfaWQiOiJ0ZXN0LWNsaWVudC5hcHBzLmdvb2dsZXVzZXJjb250ZW50LmNvbSIsImNsaWVudF9zZWNyZXQiOiJ0ZXN0LXNlY3JldCIsInNjb3BlIjoiZHJpdmUifQ';
    expect(decodeBlob(blob)).toEqual({ client_id: CLIENT_ID, client_secret: CLIENT_SECRET, scope: 'drive' });
    const s = Session.cli(['rclone', 'authorize', 'drive', blob, '--auth-no-open-browser'], env);
    s.endInput();
    expect(await playBrowser(s)).toBe(200);
    expect(await s.exited, s.stderr).toBe(0);
    const [, pasted] = s.stdout.match(PASTE_BLOCK)!;
    expect(s.stdout).toBe(`Paste the following into your remote machine --->\n${pasted}\n<---End paste\n`);
    expect(s.stderr).toContain('Please go to the following link: http://127.0.0.1:53682/auth?state=');
    expect(Object.keys(decodeBlob(pasted))).toEqual(['token']);

    const file = join(dir, 'theirs.conf');
    rclone(['config', 'create', 'gd', 'drive', `client_id=${CLIENT_ID}`, `client_secret=${CLIENT_SECRET}`, 'scope=drive', 'config_is_local=false', `config_token=${pasted}`, '--config', file]);
    const token = JSON.parse(dump(file).gd.token) as Record<string, string>;
    expect(token.access_token).toBe(google.tokenResponse.access_token);
  });

  it('authorize without a blob prints the raw token JSON', async () => {
    const s = Session.cli(['rclone', 'authorize', 'drive', CLIENT_ID, CLIENT_SECRET, '--auth-no-open-browser'], env);
    s.endInput();
    await playBrowser(s);
    expect(await s.exited).toBe(0);
    const [, pasted] = s.stdout.match(PASTE_BLOCK)!;
    expect(JSON.parse(pasted)).toMatchObject({ access_token: google.tokenResponse.access_token, token_type: 'Bearer' });
  });

  it('auto config y runs the loopback flow here when a client id is given', async () => {
    const file = join(dir, 'local.conf');
    const s = Session.cli(['rclone', 'config', '--config', file, '--auth-no-open-browser'], env);
    for (const [prompt, line] of [['n/s/q> ', 'n'], ['name> ', 'local'], ['Storage> ', '1'], ['client_id> ', CLIENT_ID], ['client_secret> ', CLIENT_SECRET], ['scope> ', 'drive.readonly'], ['root_folder_id> ', ''], ['service_account_file> ', ''], ['y/n> ', ''], ['y/n> ', 'y']] as const) {
      await s.answer(prompt, line);
    }
    expect(await playBrowser(s)).toBe(200);
    await s.answer('y/n> ', 'n');
    await s.answer('y/e/d> ', 'y');
    await s.answer('e/n/d/r/c/s/q> ', 'q');
    s.endInput();
    expect(await s.exited, s.stderr).toBe(0);
    const consent = google.requests.filter((r) => r.path === '/auth').at(-1)!;
    expect(consent.query).toMatchObject({ access_type: 'offline', client_id: CLIENT_ID, redirect_uri: 'http://127.0.0.1:53682/', response_type: 'code', scope: 'https://www.googleapis.com/auth/drive.readonly' });
    expect(dump(file).local).toMatchObject({ scope: 'drive.readonly', team_drive: '' });
    expect(JSON.parse(dump(file).local.token)).toMatchObject({ access_token: google.tokenResponse.access_token });
  });

  it('a blank client_id hands authorization to the installed rclone authorize', async () => {
    const file = join(dir, 'delegated.conf');
    const s = Session.cli(['rclone', 'config', '--config', file, '--auth-no-open-browser'], env);
    for (const [prompt, line] of [['n/s/q> ', 'n'], ['name> ', 'shared'], ['Storage> ', 'drive'], ['client_id> ', ''], ['client_secret> ', ''], ['scope> ', '1'], ['root_folder_id> ', ''], ['service_account_file> ', ''], ['y/n> ', 'n'], ['y/n> ', 'y']] as const) {
      await s.answer(prompt, line);
    }
    expect([200, 0]).toContain(await playBrowser(s)); // the link printed by the real rclone child (0: see playBrowser)
    await s.answer('y/n> ', 'n');
    await s.answer('y/e/d> ', 'y');
    await s.answer('e/n/d/r/c/s/q> ', 'q');
    s.endInput();
    expect(await s.exited, s.stderr).toBe(0);
    expect(s.stderr).toMatch(/NOTICE: Log in and authorize rclone for access/);
    const remote = dump(file).shared;
    expect(remote.client_id ?? '').toBe('');
    expect(JSON.parse(remote.token)).toMatchObject({ access_token: google.tokenResponse.access_token });
    // rclone's own client went to the fake; nothing of it is in our file or our code.
    expect(readFileSync(file, 'utf8')).not.toMatch(/client_secret = \S/);
  });

  it('a blank client_id without rclone installed says a client ID of ones own is needed', async () => {
    const file = join(dir, 'no-rclone.conf');
    const s = Session.cli(['rclone', 'config', '--config', file], { ...env, SCANRELAY_RCLONE: '' });
    for (const [prompt, line] of [['n/s/q> ', 'n'], ['name> ', 'x'], ['Storage> ', 'drive'], ['client_id> ', ''], ['client_secret> ', ''], ['scope> ', '1'], ['root_folder_id> ', ''], ['service_account_file> ', ''], ['y/n> ', 'n'], ['y/n> ', 'y'], ['client_id> ', ''], ['y/n> ', 'n']] as const) {
      await s.answer(prompt, line);
    }
    expect(s.stdout).toContain("rclone's shared key is being retired during 2026");
    expect(s.stdout).toContain('https://console.cloud.google.com/');
    // Headless then prints rclone's own authorize line: only rclone may use its key.
    await s.waitFor(/\trclone authorize "drive" "[A-Za-z0-9+/]+"\n/);
    s.kill();
    await s.exited;
  });

  it('authorize with a blank client_id and no rclone exits non-zero with the advice', async () => {
    const s = Session.cli(['rclone', 'authorize', 'drive'], { ...env, SCANRELAY_RCLONE: '' });
    s.endInput();
    expect(await s.exited).toBe(1);
    expect(s.stderr).toContain('A client ID of your own is needed');
    expect(s.stdout).toBe('');
  });
});

describe('the file', () => {
  it('an encrypted file we write is read by real rclone with RCLONE_CONFIG_PASS, and back', async () => {
    const file = join(dir, 'enc.conf');
    const s = Session.cli(['rclone', 'config', '--config', file], env);
    s.send('s\na\nsecret words\nsecret words\nq\nq\n');
    s.endInput();
    expect(await s.exited, s.stderr).toBe(0);
    expect(s.stdout).toContain('Password set\nYour configuration is encrypted.\n');
    expect(readFileSync(file, 'utf8')).toMatch(/^# Encrypted rclone configuration File\n\nRCLONE_ENCRYPT_V0:\n/);

    // rclone adds a remote to our encrypted file (re-encrypting it with its own nonce) …
    rclone(['config', 'create', 'gd', 'drive', 'scope=drive', 'token={"access_token":"x"}', 'config_refresh_token=false', 'config_change_team_drive=false', '--config', file], { RCLONE_CONFIG_PASS: 'secret words' });
    expect(dump(file, { RCLONE_CONFIG_PASS: 'secret words' }).gd.scope).toBe('drive');
    // … and we read rclone's encryption back.
    const show = Session.cli(['rclone', 'config', 'show', '--config', file], { ...env, RCLONE_CONFIG_PASS: 'secret words' });
    show.endInput();
    expect(await show.exited, show.stderr).toBe(0);
    // rclone writes create's keys in Go map order, so compare values, not layout.
    expect(Conf.parse(show.stdout).get('gd', 'scope')).toBe('drive');
    // The wizard asks for the password when it opens the file.
    const wizard = Session.cli(['rclone', 'config', '--config', file], env);
    wizard.send('wrong\nsecret words\nq\n');
    wizard.endInput();
    expect(await wizard.exited, wizard.stderr).toBe(0);
    expect(wizard.stderr).toContain('Enter configuration password:');
    expect(wizard.stderr).toContain("Couldn't decrypt configuration, most likely wrong password.");
    expect(wizard.stdout).toContain('gd                   drive');
  });

  it('config create refuses invalid names with rclone wording, exit 1, file untouched', async () => {
    const file = join(dir, 'names.conf');
    writeFileSync(file, '# mine\n[keep]\ntype = local\n\n');
    const before = readFileSync(file, 'utf8');
    for (const [args, message] of [
      [['a/b', 'drive'], 'config name contains invalid characters - may only contain `0-9`, `A-Z`, `a-z`, `_`, `-`, `.` and space'],
      [['--', '-x', 'drive'], 'config name starts with `-`'],
    ] as const) {
      const s = Session.cli(['rclone', 'config', 'create', '--config', file, ...args, 'config_is_local=false'], env);
      s.endInput();
      expect(await s.exited).toBe(1);
      expect(s.stderr).toContain(`Error: ${message}`);
      // rclone itself says the same.
      expect(() => rclone(['config', 'create', '--config', file, ...args])).toThrow(message);
      expect(readFileSync(file, 'utf8')).toBe(before);
    }
  });

  it('config create: new file 0600, existing file keeps its mode, other remotes and comments kept', async () => {
    const fresh = join(dir, 'fresh.conf');
    const token = '{"access_token":"a","token_type":"Bearer","refresh_token":"r","expiry":"2026-01-01T00:00:00Z"}';
    const run = async (file: string, name: string): Promise<Session> => {
      const s = Session.cli(['rclone', 'config', 'create', '--config', file, name, 'drive', 'scope=drive', 'config_is_local=false', `config_token=${token}`], env);
      s.endInput();
      expect(await s.exited, s.stderr).toBe(0);
      return s;
    };
    const created = await run(fresh, 'gd');
    expect(created.stdout).toBe(`[gd]\ntype = drive\nscope = drive\ntoken = ${token}\nteam_drive = \n`);
    expect(statSync(fresh).mode & 0o777).toBe(0o600);

    const existing = join(dir, 'existing.conf');
    writeFileSync(existing, '; my remotes\n[local one]\n# where the media is\npath=/srv\ntype : local\n\n# end note\n');
    chmodSync(existing, 0o640);
    await run(existing, 'media drive');
    expect(statSync(existing).mode & 0o777).toBe(0o640);
    const text = readFileSync(existing, 'utf8');
    expect(text).toBe(
      `; my remotes\n[local one]\n# where the media is\npath = /srv\ntype = local\n\n[media drive]\ntype = drive\nscope = drive\ntoken = ${token}\nteam_drive = \n\n# end note\n`,
    );
    expect(Object.keys(dump(existing))).toEqual(['local one', 'media drive']);
    expect(existsSync(`${existing}.old`)).toBe(false);
  });
});
