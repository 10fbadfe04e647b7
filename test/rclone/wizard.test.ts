// The interactive procedure in-process, answers fed through a stream: rclone's texts and order, the
// menu actions (edit, delete, rename, copy), option rules, pasted tokens and the shared-drive list.
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Conf } from '../../src/rclone/conf.js';
import { InputEnded, LineInput, Terminal } from '../../src/rclone/prompt.js';
import { ConfigStore } from '../../src/rclone/store.js';
import { Wizard } from '../../src/rclone/wizard.js';
import { startFakeDriveList, type FakeDriveList } from '../fakes/drive-list.js';
import { startFakeGoogleOAuth, type FakeGoogleOAuth } from '../fakes/google-oauth.js';

const TOKEN = '{"access_token":"ya29.FAKEACCESS","token_type":"Bearer","refresh_token":"1//FAKEREFRESH","expiry":"2026-11-21T04:42:34.9343565Z"}';

let dir: string;
let google: FakeGoogleOAuth;
let driveList: FakeDriveList;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'scanrelay-wizard-'));
  google = await startFakeGoogleOAuth();
  driveList = await startFakeDriveList();
});
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await google.close();
  await driveList.close();
});

class Collect extends Writable {
  text = '';
  override _write(chunk: Buffer, _enc: BufferEncoding, done: () => void): void {
    this.text += chunk.toString();
    done();
  }
}

let n = 0;
async function run(answers: string[], options: { file?: string; initial?: string; env?: NodeJS.ProcessEnv; colour?: boolean } = {}) {
  const file = options.file ?? join(dir, `w${++n}.conf`);
  if (options.initial !== undefined) writeFileSync(file, options.initial);
  const input = new PassThrough();
  input.end(answers.map((a) => `${a}\n`).join(''));
  const out = new Collect();
  const err = new Collect();
  const env = options.env ?? { SCANRELAY_RCLONE: '' };
  const store = await ConfigStore.open(file, { env });
  const terminal = new Terminal(new LineInput(input), out, err, !!options.colour);
  let error: Error | undefined;
  try {
    await new Wizard({ store, terminal, env, toolName: 'scanrelay rclone', openBrowser: false }).run();
  } catch (e) {
    error = e as Error;
  }
  const text = (() => {
    try {
      return readFileSync(file, 'utf8');
    } catch {
      return '';
    }
  })();
  return { out: out.text, err: err.text, file, text, conf: text.includes('RCLONE_ENCRYPT_V0:') ? new Conf() : Conf.parse(text), error };
}

const NEW_HEADLESS = (name: string, id = '', secret = '', scope = '1') => ['n', name, 'drive', id, secret, scope, '', '', 'n', 'n'];

describe('a new remote, headless, as rclone 1.60 shows it', () => {
  it('prints rclone texts in order and writes the rclone bytes', async () => {
    const r = await run([...NEW_HEADLESS('gdrive'), TOKEN, 'n', 'y', 'q']);
    expect(r.error).toBeUndefined();
    expect(r.out.startsWith('No remotes found, make a new one?\nn) New remote\ns) Set configuration password\nq) Quit config\nn/s/q> \nEnter name for new remote.\nname> \nOption Storage.\nType of storage to configure.\n')).toBe(true);
    expect(r.out).toContain('Edit advanced config?\ny) Yes\nn) No (default)\ny/n> \nUse auto config?\n * Say Y if not sure\n * Say N if you are working on a remote or headless machine\n\ny) Yes (default)\nn) No\ny/n> \n');
    // A blank client id: the command is rclone's, with rclone's exact blob for scope=drive.
    expect(r.out).toContain(
      'Option config_token.\nFor this to work, you will need rclone available on a machine that has\na web browser available.\nFor more help and alternate methods see: https://rclone.org/remote_setup/\nExecute the following on the machine with the web browser (same rclone\nversion recommended):\n\trclone authorize "drive" "eyJzY29wZSI6ImRyaXZlIn0"\nThen paste the result.\nEnter a value.\nconfig_token> \n',
    );
    expect(r.out).toContain(
      `Configure this as a Shared Drive (Team Drive)?\n\ny) Yes\nn) No (default)\ny/n> \nConfiguration complete.\nOptions:\n- type: drive\n- scope: drive\n- token: ${TOKEN}\n- team_drive: \nKeep this "gdrive" remote?\ny) Yes this is OK (default)\ne) Edit this remote\nd) Delete this remote\ny/e/d> \nCurrent remotes:\n\nName                 Type\n====                 ====\ngdrive               drive\n\ne) Edit existing remote\nn) New remote\nd) Delete remote\nr) Rename remote\nc) Copy remote\ns) Set configuration password\nq) Quit config\ne/n/d/r/c/s/q> `,
    );
    // The file rclone itself writes for this remote, byte for byte (docs/rclone.md, "The file").
    expect(r.text).toBe(`[gdrive]\ntype = drive\nscope = drive\ntoken = ${TOKEN}\nteam_drive = \n\n`);
  });

  it('re-asks names with rclone wording', async () => {
    const r = await run(['n', '', '-x', 'a/b', 'ok', 'drive', '', '', '', '', '', 'n', 'n', TOKEN, 'n', 'y', 'n', 'ok', 'ok2', 'x', 'q'], {});
    expect(r.out).toContain("name> Can't use empty name.\nEnter name for new remote.\nname> Can't use \"-x\" as config name starts with `-`.\n");
    expect(r.out).toContain('Can\'t use "a/b" as config name contains invalid characters');
    expect(r.out).toContain('name> Remote "ok" already exists.\n');
    // With no scope and nothing else set there is no blob at all.
    expect(r.out).toContain('\trclone authorize "drive"\n');
  });

  it('re-asks an undecodable paste, accepts a blob with whitespace, and refuses an unknown storage', async () => {
    const blob = Buffer.from(JSON.stringify({ token: TOKEN })).toString('base64').replace(/=+$/, '');
    const r = await run(['n', 'g', 's3', '1', '', '', '1', '', '', 'n', 'n', 'nonsense', `${blob.slice(0, 10)} ${blob.slice(10)}`, 'n', 'y', 'q']);
    expect(r.out).toContain('Bad remote "s3": didn\'t find backend called "s3"\nOption Storage.');
    expect(r.out).toContain("Couldn't decode response - try again (make sure you are using a matching version of rclone on both sides: ");
    expect(r.conf.get('g', 'token')).toBe(TOKEN);
  });

  it('drive.appfolder sets root_folder_id = appDataFolder, and client id/secret go together', async () => {
    const r = await run(['n', 'app', 'drive', 'ID', '', '', '', '', 'ID', 'SECRET', '4', '', '', 'n', 'n', TOKEN, 'n', 'y', 'q']);
    expect(r.out).toContain('Enter both client_id and client_secret, or leave both blank.');
    expect(r.conf.entries('app')).toEqual([
      ['type', 'drive'],
      ['client_id', 'ID'],
      ['client_secret', 'SECRET'],
      ['scope', 'drive.appfolder'],
      ['root_folder_id', 'appDataFolder'],
      ['token', TOKEN],
      ['team_drive', ''],
    ]);
    // Ours is the authorize command when the client id is one's own.
    expect(r.out).toMatch(/\tscanrelay rclone authorize "drive" "[A-Za-z0-9+/]+"\n/);
  });

  it('advanced options: parsed, canonicalised, written only when they differ from the default', async () => {
    const advanced = ['', '', '', 'maybe', 'false', '', '', '', '', '', '', '', '', '', ''];
    const r = await run(['n', 'adv', 'drive', '', '', 'drive.readonly,drive.file', '', '', 'y', ...advanced, 'n', TOKEN, 'n', 'y', 'q']);
    expect(r.out).toContain('Option use_trash.\nSend files to the trash instead of deleting permanently.\nDefaults to true, namely sending files to the trash.\nUse `--drive-use-trash=false` to delete files permanently instead.\nEnter a boolean value (true or false). Press Enter for the default (true).\nuse_trash> Failed to parse "maybe": strconv.ParseBool: parsing "maybe": invalid syntax\n');
    expect(r.conf.entries('adv')).toEqual([
      ['type', 'drive'],
      ['scope', 'drive.readonly,drive.file'],
      ['use_trash', 'false'],
      ['token', TOKEN],
      ['team_drive', ''],
    ]);
  });

  it('stops with rclone\'s EOF error when the answers run out', async () => {
    const r = await run(['n', 'short']);
    expect(r.error).toBeInstanceOf(InputEnded);
    expect(r.error?.message).toBe('Failed to read line: EOF');
  });

  it('colours list entries on a terminal, as rclone does', async () => {
    const r = await run(['n', 'c', 'drive', '', '', '1', '', '', 'n', 'n', TOKEN, 'n', 'y', 'q'], { colour: true });
    expect(r.out).toContain('\x1b[91m 1 / Google Drive\n   \\ (drive)\n\x1b[0m');
    expect(r.out).toContain('\x1b[92m 2 / Read-only access to file metadata and file contents.\n');
  });
});

describe('shared drives and service accounts', () => {
  it('lists the account drives by number with the token just pasted', async () => {
    const env = { SCANRELAY_RCLONE: '', SCANRELAY_DRIVE_API_URL: driveList.url };
    const r = await run([...NEW_HEADLESS('td'), TOKEN, 'y', '1', 'y', 'q'], { env });
    expect(r.out).toContain('Option config_team_drive.\nShared Drive\nChoose a number from below, or type in an existing string value.\nPress Enter for the default (0ASrMediaTeamDrv1PVA).\n 1 / Media\n   \\ (0ASrMediaTeamDrv1PVA)\n 2 / Media-4K\n');
    expect(r.conf.get('td', 'team_drive')).toBe('0ASrMediaTeamDrv1PVA');
    expect(driveList.bearerTokens.at(-1)).toBe('ya29.FAKEACCESS');
  });

  it('with a service_account_file skips the token and lists drives with a JWT-bearer token', async () => {
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const sa = join(dir, 'sa.json');
    writeFileSync(sa, JSON.stringify({ type: 'service_account', client_email: 'sa@example.iam.gserviceaccount.com', private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }), private_key_id: 'k1', token_uri: google.tokenUrl }));
    const env = { SCANRELAY_RCLONE: '', SCANRELAY_DRIVE_API_URL: driveList.url };
    const r = await run(['n', 'sa', 'drive', '', '', '1', '', sa, 'n', 'y', '2', 'y', 'q'], { env });
    expect(r.out).not.toContain('Use auto config?');
    expect(r.conf.entries('sa')).toEqual([
      ['type', 'drive'],
      ['scope', 'drive'],
      ['service_account_file', sa],
      ['team_drive', '0ASrMedia4KTeamDrvPVA'],
      ['root_folder_id', ''],
    ]);
    expect(google.requests.at(-1)?.form.grant_type).toBe('urn:ietf:params:oauth:grant-type:jwt-bearer');
    expect(driveList.bearerTokens.at(-1)).toBe('ya29.c.scanrelay-fixture-service-account');
  });
});

describe('the menu on existing remotes', () => {
  const initial = `# kept\n[gdrive]\ntype = drive\nscope = drive\ntoken = ${TOKEN}\nteam_drive = \n\n[other]\ntype = local\n\n`;

  it('edit offers the current values and keeps the token when refresh is declined', async () => {
    const r = await run(['e', '1', '', '', '', '', '', 'n', 'n', 'n', 'y', 'q'], { initial });
    expect(r.out).toContain('Select remote.\nChoose a number from below, or type in an existing value.\n 1 > gdrive\n 2 > other\nremote> \nEditing existing "gdrive" remote with options:\n- type: drive\n- scope: drive\n');
    expect(r.out).toContain('Choose a number from below, or type in your own string value.\nPress Enter for the default (drive).\n');
    expect(r.out).toContain('Already have a token - refresh?\ny) Yes (default)\nn) No\ny/n> \nConfigure this as a Shared Drive (Team Drive)?\n');
    expect(r.text).toBe(initial);
  });

  it('delete, rename and copy behave as in rclone', async () => {
    const r = await run(['c', 'gdrive', 'copy', 'r', 'other', 'gdrive', 'renamed', 'd', '3', 'q'], { initial });
    expect(r.out).toContain('Enter name for copy of "gdrive" remote.\nEnter name for new remote.\nname> ');
    expect(r.out).toContain('Enter new name for "other" remote.\nEnter name for new remote.\nname> Remote "gdrive" already exists.\n');
    // copy, other->renamed, then the third of the sorted list (renamed) deleted.
    expect(r.conf.remoteNames()).toEqual(['gdrive', 'copy']);
    expect(r.conf.entries('copy')).toEqual(r.conf.entries('gdrive'));
    expect(r.text.startsWith('# kept\n[gdrive]\n')).toBe(true);
  });

  it('"e" at the end of a new remote edits it, "d" deletes it', async () => {
    const r = await run([...NEW_HEADLESS('tmp'), TOKEN, 'n', 'e', '', '', '', '', '', 'n', 'n', 'n', 'd', 'q'], { initial });
    expect(r.out).toContain('Editing existing "tmp" remote with options:');
    expect(r.conf.remoteNames()).toEqual(['gdrive', 'other']);
  });

  it('s sets, changes and removes the configuration password', async () => {
    const r = await run(['s', 'a', 'one', 'two', 'pw', 'pw', 'q', 'q'], { initial });
    expect(r.out).toContain('Passwords do not match!\n');
    expect(r.err).toContain('Enter NEW configuration password:\npassword:Confirm NEW configuration password:\npassword:');
    expect(r.text).toMatch(/^# Encrypted rclone configuration File/);
    const reopened = await ConfigStore.open(r.file, { env: { RCLONE_CONFIG_PASS: 'pw' } });
    expect(reopened.conf.serialize()).toBe(initial);
    const back = await run(['s', 'u', 'q', 'q'], { file: r.file, env: { RCLONE_CONFIG_PASS: 'pw', SCANRELAY_RCLONE: '' } });
    expect(back.out).toContain('Your configuration is encrypted.\nc) Change Password\nu) Unencrypt configuration\nq) Quit to main menu\nc/u/q> Your configuration is not encrypted.');
    expect(back.text).toBe(initial);
  });
});
