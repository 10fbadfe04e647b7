// The byte-level formats rclone shares with us: secretbox, the encrypted file, the INI dialect, the
// authorize blob, token JSON and remote names.
import { describe, expect, it } from 'vitest';
import { BlobError, decodeBlob, encodeBlob } from '../../src/rclone/blob.js';
import { Conf } from '../../src/rclone/conf.js';
import { ConfigPasswordError, configKey, decryptConfig, encryptConfig, isEncrypted } from '../../src/rclone/crypt.js';
import { goJson } from '../../src/rclone/gojson.js';
import { nameError, newNameProblem } from '../../src/rclone/names.js';
import { open, poly1305, seal } from '../../src/rclone/secretbox.js';
import { goTime, tokenJson } from '../../src/rclone/token.js';
import { googleAnswer } from '../fakes/google-answers.js';

const hex = (s: string): Uint8Array => new Uint8Array(Buffer.from(s.replace(/[\s:]/g, ''), 'hex'));

describe('secretbox', () => {
  it('Poly1305 matches the test vector of RFC 8439 section 2.5.2 (https://www.rfc-editor.org/rfc/rfc8439#section-2.5.2)', () => {
    const key = hex('85:d6:be:78:57:55:6d:33:7f:44:52:fe:42:d5:06:a8:01:03:80:8a:fb:0d:b2:fd:4a:bf:f6:af:41:49:f5:1b');
    const tag = poly1305(new Uint8Array(Buffer.from('Cryptographic Forum Research Group')), key);
    expect(Buffer.from(tag).toString('hex')).toBe('a8061dc1305136c6c22b8baf0c0127a9');
  });

  it('opens what it seals, refuses a wrong key or an altered box', () => {
    const key = new Uint8Array(32).fill(7);
    const nonce = new Uint8Array(24).fill(3);
    const plain = new Uint8Array(Buffer.from('x'.repeat(200)));
    const box = seal(plain, nonce, key);
    expect(box.length).toBe(216);
    expect(Buffer.from(open(box, nonce, key)!).toString()).toBe('x'.repeat(200));
    expect(open(box, nonce, new Uint8Array(32).fill(8))).toBeUndefined();
    box[20] ^= 1;
    expect(open(box, nonce, key)).toBeUndefined();
  });
});

describe('encrypted config', () => {
  it('round-trips with the password and says when the password is wrong', () => {
    const text = encryptConfig('[a]\ntype = local\n\n', configKey('pw'));
    expect(text).toMatch(/^# Encrypted rclone configuration File\n\nRCLONE_ENCRYPT_V0:\n[A-Za-z0-9+/]+=*$/);
    expect(isEncrypted(text)).toBe(true);
    expect(decryptConfig(text, configKey('pw'))).toBe('[a]\ntype = local\n\n');
    expect(decryptConfig(text, configKey('other'))).toBeUndefined();
  });

  it('derives the key as rclone does and refuses blank passwords and unknown versions', () => {
    // NFKC: the ligature "ﬁ" and "fi" are the same password.
    expect(Buffer.from(configKey('\uFB01le'))).toEqual(Buffer.from(configKey('file')));
    expect(() => configKey('   ')).toThrow(ConfigPasswordError);
    expect(() => isEncrypted('RCLONE_ENCRYPT_V1:\nabc')).toThrow('unsupported configuration encryption');
    expect(isEncrypted('# c\n[a]\ntype = local\n')).toBe(false);
  });
});

describe('rclone.conf', () => {
  it('writes rclone layout: spaces around =, an empty value with its trailing space, a blank line after each section', () => {
    const conf = new Conf();
    conf.set('gdrive', 'type', 'drive');
    conf.set('gdrive', 'team_drive', '');
    expect(conf.serialize()).toBe('[gdrive]\ntype = drive\nteam_drive = \n\n');
    expect(new Conf().serialize()).toBe('');
  });

  it('reads what goconfig reads and keeps comments and order', () => {
    const text = '\uFEFF# top\n[one]\r\nb=2\n  ; about a\na : 1 = x\n\n[empty]\n[one]\nb = 3\nq = `has ` tick`\n# tail\n';
    const conf = Conf.parse(text);
    expect(conf.remoteNames()).toEqual(['one', 'empty']);
    expect(conf.entries('one')).toEqual([['b', '3'], ['a', '1 = x'], ['q', 'has ` tick']]);
    expect(conf.serialize()).toBe('# top\n[one]\nb = 3\n; about a\na = 1 = x\nq = "has ` tick"\n\n[empty]\n\n# tail\n');
  });

  it('keeps values raw: no inline comments, no unquoting of plain quotes', () => {
    const conf = Conf.parse('[r]\nv = b # c\nw = "quoted"\n');
    expect(conf.get('r', 'v')).toBe('b # c');
    expect(conf.get('r', 'w')).toBe('"quoted"');
  });
});

describe('authorize blob', () => {
  it("encodes scope=drive exactly as rclone prints it", () => {
    expect(encodeBlob({ scope: 'drive' })).toBe('eyJzY29wZSI6ImRyaXZlIn0');
  });

  it('decodes the blob real rclone 1.60 authorize printed', () => {
    const blob =
      'eyJ0b2tlbiI6IntcImFjY2Vzc190b2tlblwiOlwieWEyOS5GQUtFQUNDRVNTXCIsXCJ0b2tlbl90eXBlXCI6XCJCZWFyZXJcIixcInJlZnJlc2hfdG9rZW5cIjpcIjEvL0ZBS0VSRUZSRVNIXCIsXCJleHBpcnlcIjpcIjIwMjYtMTEtMjFUMDQ6NDI6MzQuOTM0MzU2NVpcIn0ifQ';
    const map = decodeBlob(`${blob.slice(0, 40)}\n  ${blob.slice(40)}`);
    expect(JSON.parse(map.token)).toEqual({ access_token: 'ya29.FAKEACCESS', token_type: 'Bearer', refresh_token: '1//FAKEREFRESH', expiry: '2026-11-21T04:42:34.9343565Z' });
    expect(encodeBlob(map)).toBe(blob);
  });

  it('sorts keys, escapes like Go, refuses padding, the URL alphabet and non-string values', () => {
    expect(Buffer.from(encodeBlob({ z: '1', a: '<&>' }), 'base64').toString()).toBe('{"a":"\\u003c\\u0026\\u003e","z":"1"}');
    expect(() => decodeBlob('eyJzY29wZSI6ImRyaXZlIn0=')).toThrow(BlobError);
    expect(() => decodeBlob('eyJzY29wZSI6ImRyaXZlIn0-_')).toThrow(BlobError);
    expect(() => decodeBlob(Buffer.from('{"a":1}').toString('base64').replace(/=+$/, ''))).toThrow(BlobError);
  });
});

describe('token JSON', () => {
  it('is Go oauth2.Token: field order, Bearer, expiry now+expires_in in RFC 3339', () => {
    const response = googleAnswer('token');
    const json = tokenJson(response, new Date('2026-11-21T03:42:35.000Z'));
    const parsed = JSON.parse(json) as Record<string, string>;
    expect(Object.keys(parsed)).toEqual(['access_token', 'token_type', 'refresh_token', 'expiry']);
    expect(new Date(parsed.expiry).toISOString()).toBe('2026-11-21T04:42:34.000Z');
    expect(json).not.toContain('scope');
  });

  it('formats times as Go does: trailing zeros trimmed, Z or the local offset', () => {
    const t = new Date('2026-11-21T04:42:34.930Z');
    const text = goTime(t);
    expect(new Date(text).getTime()).toBe(t.getTime());
    expect(text).toMatch(/T\d\d:\d\d:34\.93(Z|[+-]\d\d:\d\d)$/);
    expect(goTime(new Date('2026-11-21T04:42:34.000Z'))).toMatch(/:34(Z|[+-]\d\d:\d\d)$/);
    expect(goJson({ a: 'x\by' })).toBe('{"a":"x\\u0008y"}');
  });
});

describe('remote names', () => {
  it("uses rclone's rules and wording, existing before empty before invalid", () => {
    expect(nameError('my drive_1.x-y')).toBeUndefined();
    expect(nameError('a/b')).toBe('config name contains invalid characters - may only contain `0-9`, `A-Z`, `a-z`, `_`, `-`, `.` and space');
    expect(nameError('-x')).toBe('config name starts with `-`');
    expect(nameError('héllo')).toMatch(/invalid characters/);
    const exists = (n: string): boolean => n === 'gdrive';
    expect(newNameProblem('gdrive', exists)).toBe('Remote "gdrive" already exists.');
    expect(newNameProblem('', exists)).toBe("Can't use empty name.");
    expect(newNameProblem('a/b', exists)).toBe('Can\'t use "a/b" as config name contains invalid characters - may only contain `0-9`, `A-Z`, `a-z`, `_`, `-`, `.` and space.');
  });
});
