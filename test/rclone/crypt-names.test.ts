// rclone crypt names decoded and encoded natively, checked against the real rclone: names rclone encrypts
// (cryptdecode --reverse) decode here, names encrypted here decode in rclone, in every filename mode.
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CryptNames, plainSize } from '../../src/rclone/crypt-names.js';
import { obscure, reveal } from '../../src/rclone/obscure.js';
import { cryptRemote } from '../../src/drive/crypt-paths.js';
import { ConfigStore } from '../../src/rclone/store.js';
import { cryptdecode, rclone, writeRcloneConf } from './real-rclone.js';

let home: string;
let conf: string;
const PASSWORD = 'correct horse battery';
const SALT = 'a pinch of salt';
const PATHS = ['Media/TV/The Expanse (2015)/Season 01/The Expanse - S01E01 - Dulcinea.mkv', 'Media/Movies/Amélie (2001)/Amélie – 日本語 ! 99.mkv', 'a'];

beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), 'scanrelay-crypt-'));
  const store = join(home, 'store');
  const base = { type: 'crypt', password: rclone(home, ['obscure', PASSWORD]).trim() };
  const salt = rclone(home, ['obscure', SALT]).trim();
  conf = writeRcloneConf(home, {
    local: { type: 'local' },
    standard: { ...base, remote: `local:${store}/standard`, password2: salt },
    nosalt: { ...base, remote: `local:${store}/nosalt` },
    plaindirs: { ...base, remote: `local:${store}/plaindirs`, directory_name_encryption: 'false', password2: salt },
    obfuscate: { ...base, remote: `local:${store}/obfuscate`, filename_encryption: 'obfuscate', password2: salt },
    off: { ...base, remote: `local:${store}/off`, filename_encryption: 'off' },
    base64: { ...base, remote: `local:${store}/base64`, filename_encoding: 'base64', password2: salt },
  });
});

afterAll(() => rmSync(home, { recursive: true, force: true }));

async function names(remote: string): Promise<CryptNames> {
  return cryptRemote(await ConfigStore.open(conf, { env: {} }), remote);
}

describe('obscured passwords', () => {
  it('reveals what rclone obscured, and rclone reveals what we obscured', () => {
    expect(reveal(rclone(home, ['obscure', 'pässword 1']).trim())).toBe('pässword 1');
    expect(rclone(home, ['reveal', '--', obscure('pässword 2')]).trim()).toBe('pässword 2');
  });

  it('refuses a value that was never obscured', () => {
    expect(() => reveal('plain')).toThrow(/is it obscured/);
  });
});

describe.each(['standard', 'nosalt', 'plaindirs', 'obfuscate', 'off', 'base64'])('filename mode of remote %s', (remote) => {
  it('decodes the names rclone encrypts', async () => {
    const encrypted = cryptdecode(home, conf, `${remote}:`, PATHS, true);
    const n = await names(remote);
    expect(encrypted.map((e) => n.decryptPath(e))).toEqual(PATHS);
    if (remote !== 'off') expect(encrypted[0].split('/').pop()).not.toContain('Dulcinea');
  });

  it('encrypts names rclone decodes', async () => {
    const n = await names(remote);
    expect(cryptdecode(home, conf, `${remote}:`, PATHS.map((p) => n.encryptPath(p)), false)).toEqual(PATHS);
  });
});

describe('what is not a name of the remote', () => {
  it('is refused, not garbled', async () => {
    const standard = await names('standard');
    const other = cryptdecode(home, conf, 'nosalt:', ['Show'], true)[0];
    expect(standard.decryptPath(other)).toBeUndefined(); // other key: padding check fails
    expect(standard.decryptPath('not-base32!')).toBeUndefined();
    expect(standard.decryptPath('Media/plain')).toBeUndefined();
    expect((await names('off')).decryptPath('Media/x.mkv')).toBeUndefined(); // no .bin suffix
    expect((await names('obfuscate')).decryptPath('Media')).toBeUndefined(); // no "<n>." prefix
  });

  it('names the problem of a remote that cannot be used', async () => {
    const store = await ConfigStore.open(conf, { env: {} });
    expect(() => cryptRemote(store, 'missing')).toThrow(/does not have/);
    expect(() => cryptRemote(store, 'local')).toThrow(/type 'local'.*not crypt/);
  });
});

describe('plain size of an encrypted file', () => {
  it.each([0, 1, 65536, 65537, 200_000])('matches the size rclone stores for %i bytes', (size) => {
    const src = join(home, `plain-${size}`);
    writeFileSync(src, Buffer.alloc(size, 7));
    rclone(home, ['--config', conf, 'copyto', src, `standard:sizes/${size}`]);
    const stored = join(home, 'store', 'standard', readdirSync(join(home, 'store', 'standard')).find((d) => (statSync(join(home, 'store', 'standard', d)).isDirectory()))!);
    const file = readdirSync(stored).map((f) => join(stored, f)).find((f) => plainSize(statSync(f).size) === size);
    expect(file).toBeDefined();
  });

  it('is unknown for a size no crypt file can have', () => {
    expect(plainSize(31)).toBeUndefined();
    expect(plainSize(32 + 5)).toBeUndefined();
  });
});
