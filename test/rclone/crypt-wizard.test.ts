// `scanrelay rclone config` makes a crypt remote the way rclone 1.60 asks for it (answers on a pipe that stays
// open), real rclone reads the file back, and names encrypted by rclone with that remote decode here (and back).
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cryptRemote } from '../../src/drive/crypt-paths.js';
import { ConfigStore } from '../../src/rclone/store.js';
import { Session } from './cli-session.js';
import { cryptdecode, rclone } from './real-rclone.js';

let dir: string;
let env: NodeJS.ProcessEnv;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'scanrelay-crypt-wizard-'));
  mkdirSync(join(dir, 'store'));
  env = { PATH: process.env.PATH, HOME: dir, TZ: 'UTC', SCANRELAY_RCLONE: '' };
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const PLAIN = ['Media/TV/The Expanse (2015)/Season 01/The Expanse - S01E01.mkv', 'Amélie (2001).mkv'];

describe('a crypt remote from the wizard', () => {
  it('typed password, generated salt, plain folder names: rclone reads it and agrees on the names; q exits with stdin still open', async () => {
    const file = join(dir, 'typed.conf');
    const s = Session.cli(['rclone', 'config', '--config', file], env);
    await s.answer('n/s/q> ', 'n');
    await s.answer('name> ', 'secret');
    await s.answer('Storage> ', 'crypt');
    await s.answer('remote> ', join(dir, 'store'));
    await s.answer('filename_encryption> ', '');
    await s.answer('directory_name_encryption> ', '2');
    await s.answer('y/g> ', 'y');
    s.send('horse battery staple\nhorse battery staple\n'); // "password:" twice, on stderr
    await s.answer('y/g/n> ', 'g');
    await s.answer('Bits> ', '128');
    const [, salt] = await s.waitFor(/Your password is: ([A-Za-z0-9_-]+)\n/);
    await s.answer('y/n> ', 'y');
    await s.answer('y/n> ', 'n'); // advanced
    await s.answer('y/e/d> ', 'y');
    await s.answer('e/n/d/r/c/s/q> ', 'q');
    // The pipe stays open: the session must still end by itself.
    expect(await s.exited).toBe(0);

    const dump = JSON.parse(rclone(dir, ['config', 'dump', '--config', file])) as Record<string, Record<string, string>>;
    expect(dump.secret).toMatchObject({ type: 'crypt', remote: join(dir, 'store'), directory_name_encryption: 'false' });
    expect(dump.secret.filename_encryption).toBeUndefined(); // the default is not written, as rclone does
    expect(rclone(dir, ['reveal', '--', dump.secret.password]).trim()).toBe('horse battery staple');
    expect(rclone(dir, ['reveal', '--', dump.secret.password2]).trim()).toBe(salt);
    expect(salt.length).toBe(22); // 128 bits, base64url

    const encrypted = cryptdecode(dir, file, 'secret:', PLAIN, true);
    expect(encrypted[0].startsWith('Media/TV/The Expanse (2015)/Season 01/')).toBe(true);
    const names = cryptRemote(await ConfigStore.open(file, { env: {} }), 'secret');
    expect(encrypted.map((e) => names.decryptPath(e))).toEqual(PLAIN);
    expect(cryptdecode(dir, file, 'secret:', PLAIN.map((p) => names.encryptPath(p)), false)).toEqual(PLAIN);
  });

  it('obfuscate with a generated password and base64 in the advanced options; a mistyped confirmation is asked again', async () => {
    const file = join(dir, 'generated.conf');
    const s = Session.cli(['rclone', 'config', '--config', file], env);
    await s.answer('n/s/q> ', 'n');
    await s.answer('name> ', 'obf');
    await s.answer('Storage> ', '2');
    await s.answer('remote> ', join(dir, 'store'));
    await s.answer('filename_encryption> ', 'obfuscate');
    await s.answer('directory_name_encryption> ', '');
    await s.answer('y/g> ', 'g');
    await s.answer('Bits> ', '256');
    await s.answer('y/n> ', '');
    await s.answer('y/g/n> ', 'y');
    s.send('one\ntwo\n');
    await s.waitFor(/Passwords do not match!/);
    s.send('pepper\npepper\n');
    await s.answer('y/n> ', 'y'); // advanced
    await s.answer('filename_encoding> ', 'base64');
    await s.answer('y/e/d> ', 'y');
    await s.answer('e/n/d/r/c/s/q> ', 'q');
    expect(await s.exited).toBe(0);

    const dump = JSON.parse(rclone(dir, ['config', 'dump', '--config', file])) as Record<string, Record<string, string>>;
    expect(dump.obf).toMatchObject({ type: 'crypt', filename_encryption: 'obfuscate', filename_encoding: 'base64' });
    expect(rclone(dir, ['reveal', '--', dump.obf.password2]).trim()).toBe('pepper');
    const names = cryptRemote(await ConfigStore.open(file, { env: {} }), 'obf');
    expect(cryptdecode(dir, file, 'obf:', PLAIN, true).map((e) => names.decryptPath(e))).toEqual(PLAIN);
  });

  it('editing a crypt remote offers its values as defaults and keeps the passwords on n', async () => {
    const file = join(dir, 'typed.conf'); // made by the first test
    const before = JSON.parse(rclone(dir, ['config', 'dump', '--config', file])) as Record<string, Record<string, string>>;
    const s = Session.cli(['rclone', 'config', '--config', file], env);
    await s.answer('e/n/d/r/c/s/q> ', 'e');
    await s.answer('remote> ', '1');
    await s.answer('remote> ', '');
    await s.answer('filename_encryption> ', '');
    await s.waitFor(/Press Enter for the default \(false\)\.\n(.*\n)*directory_name_encryption> $/);
    await s.answer('directory_name_encryption> ', 'true');
    await s.answer('y/g/n> ', '');
    await s.answer('y/g/n> ', 'n');
    await s.answer('y/n> ', 'n');
    await s.answer('y/e/d> ', 'y');
    await s.answer('e/n/d/r/c/s/q> ', 'q');
    expect(await s.exited).toBe(0);
    const after = JSON.parse(rclone(dir, ['config', 'dump', '--config', file])) as Record<string, Record<string, string>>;
    expect(after.secret).toEqual({ ...before.secret, directory_name_encryption: 'true' });
  });
});
