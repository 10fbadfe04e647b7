// rclone crypt's file and folder names, both ways: keys from the remote's password and salt (scrypt), then per
// path segment the `standard` (EME + base32hex/base64), `obfuscate` or `off` (".bin" suffix) filename modes, with
// directory_name_encryption. Also the plain size of an encrypted file, which Drive only reports encrypted.
// Format facts: https://rclone.org/crypt/#file-formats
import { scryptSync } from 'node:crypto';
import { emeTransform } from './eme.js';

export type FilenameEncryption = 'standard' | 'obfuscate' | 'off';
export type FilenameEncoding = 'base32' | 'base64';

export interface CryptNameOptions {
  /** The passwords as typed (already revealed from rclone.conf's obscured form). */
  password: string;
  /** password2; "" means rclone's built-in salt. */
  salt: string;
  filenameEncryption: FilenameEncryption;
  directoryNameEncryption: boolean;
  filenameEncoding: FilenameEncoding;
}

// rclone's salt when password2 is empty.
const DEFAULT_SALT = Buffer.from('a80df43a8fbd0308a7cab83e581f86b1', 'hex');
const OFF_SUFFIX = '.bin';
const BASE32HEX = '0123456789abcdefghijklmnopqrstuv';
/** The escape character of obfuscated names: it quotes the next character. */
const QUOTE = '!';

function base32hexEncode(bytes: Buffer): string {
  let out = '';
  let bits = 0;
  let value = 0;
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += BASE32HEX[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
    value &= (1 << bits) - 1;
  }
  if (bits > 0) out += BASE32HEX[(value << (5 - bits)) & 31];
  return out;
}

function base32hexDecode(text: string): Buffer | undefined {
  const lower = text.toLowerCase();
  // Unpadded base32 never leaves 1, 3 or 6 characters in the last group of 8.
  if ([1, 3, 6].includes(lower.length % 8)) return undefined;
  const out: number[] = [];
  let bits = 0;
  let value = 0;
  for (const ch of lower) {
    const v = BASE32HEX.indexOf(ch);
    if (v < 0) return undefined;
    value = (value << 5) | v;
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 0xff);
      bits -= 8;
    }
    value &= (1 << bits) - 1;
  }
  if (value !== 0) return undefined; // leftover bits must be zero in a canonical encoding
  return Buffer.from(out);
}

function pad(bytes: Buffer): Buffer {
  const n = 16 - (bytes.length % 16);
  return Buffer.concat([bytes, Buffer.alloc(n, n)]);
}

function unpad(bytes: Buffer): Buffer | undefined {
  if (bytes.length === 0 || bytes.length % 16 !== 0) return undefined;
  const n = bytes[bytes.length - 1];
  if (n < 1 || n > 16) return undefined;
  for (let i = bytes.length - n; i < bytes.length; i++) if (bytes[i] !== n) return undefined;
  return bytes.subarray(0, bytes.length - n);
}

export class CryptNames {
  private readonly nameKey: Buffer;
  private readonly nameTweak: Buffer;
  /** Sum of the name key's bytes: the secret part of an obfuscated name's rotation. */
  private readonly keySum: number;

  constructor(private readonly options: CryptNameOptions) {
    const salt = options.salt === '' ? DEFAULT_SALT : Buffer.from(options.salt, 'utf8');
    // 32 bytes data key (unused for names), 32 bytes name key, 16 bytes name tweak.
    const key = options.password === '' ? Buffer.alloc(80) : scryptSync(Buffer.from(options.password, 'utf8'), salt, 80, { N: 16384, r: 8, p: 1, maxmem: 64 * 1024 * 1024 });
    this.nameKey = key.subarray(32, 64);
    this.nameTweak = key.subarray(64, 80);
    this.keySum = [...this.nameKey].reduce((a, b) => a + b, 0);
  }

  /** A path relative to the crypt remote's root, decoded; undefined when a segment is not a name of this remote. */
  decryptPath(path: string): string | undefined {
    const segments = path.split('/');
    const out: string[] = [];
    for (let i = 0; i < segments.length; i++) {
      const isLeaf = i === segments.length - 1;
      const plain = this.decryptSegment(segments[i], isLeaf);
      if (plain === undefined) return undefined;
      out.push(plain);
    }
    return out.join('/');
  }

  /** The inverse of decryptPath (tests and the wizard's self-check). */
  encryptPath(path: string): string {
    const segments = path.split('/');
    return segments.map((s, i) => this.encryptSegment(s, i === segments.length - 1)).join('/');
  }

  private decryptSegment(segment: string, isLeaf: boolean): string | undefined {
    if (segment === '') return '';
    const mode = this.options.filenameEncryption;
    if (mode === 'off') {
      if (!isLeaf) return segment;
      return segment.endsWith(OFF_SUFFIX) && segment.length > OFF_SUFFIX.length ? segment.slice(0, -OFF_SUFFIX.length) : undefined;
    }
    if (!isLeaf && !this.options.directoryNameEncryption) return segment;
    return mode === 'standard' ? this.decryptStandard(segment) : this.deobfuscate(segment);
  }

  private encryptSegment(segment: string, isLeaf: boolean): string {
    if (segment === '') return '';
    const mode = this.options.filenameEncryption;
    if (mode === 'off') return isLeaf ? segment + OFF_SUFFIX : segment;
    if (!isLeaf && !this.options.directoryNameEncryption) return segment;
    return mode === 'standard' ? this.encryptStandard(segment) : this.obfuscate(segment);
  }

  private encode(bytes: Buffer): string {
    return this.options.filenameEncoding === 'base64' ? bytes.toString('base64url') : base32hexEncode(bytes);
  }

  private decode(text: string): Buffer | undefined {
    if (this.options.filenameEncoding === 'base64') {
      return /^[A-Za-z0-9_-]+$/.test(text) ? Buffer.from(text, 'base64url') : undefined;
    }
    return base32hexDecode(text);
  }

  private encryptStandard(segment: string): string {
    return this.encode(emeTransform(this.nameKey, this.nameTweak, pad(Buffer.from(segment, 'utf8')), 'encrypt'));
  }

  private decryptStandard(segment: string): string | undefined {
    const bytes = this.decode(segment);
    if (!bytes || bytes.length === 0 || bytes.length % 16 !== 0 || bytes.length > 2048) return undefined;
    const plain = unpad(emeTransform(this.nameKey, this.nameTweak, bytes, 'decrypt'));
    if (!plain) return undefined;
    const text = plain.toString('utf8');
    return Buffer.from(text, 'utf8').equals(plain) ? text : undefined;
  }

  /**
   * "<n>.<rotated>": n is the sum of the name's code points mod 256; each character is rotated within its class
   * (digits, ASCII letters, Latin-1, 256-blocks above) by an amount from n plus the key sum. "!" quotes.
   */
  private obfuscate(segment: string): string {
    const base = [...segment].reduce((a, ch) => a + ch.codePointAt(0)!, 0) % 256;
    const dir = base + this.keySum;
    let out = `${base}.`;
    for (const ch of segment) out += rotate(ch, dir, +1);
    return out;
  }

  private deobfuscate(segment: string): string | undefined {
    if (segment.startsWith(`${QUOTE}.`)) return segment.slice(2);
    const dot = segment.indexOf('.');
    if (dot <= 0 || !/^\d+$/.test(segment.slice(0, dot))) return undefined;
    const dir = Number(segment.slice(0, dot)) + this.keySum;
    let out = '';
    const chars = [...segment.slice(dot + 1)];
    for (let i = 0; i < chars.length; i++) {
      if (chars[i] === QUOTE) {
        if (i + 1 >= chars.length) return undefined;
        out += chars[++i];
        continue;
      }
      out += rotate(chars[i], dir, -1);
    }
    return out;
  }
}

const mod = (a: number, n: number): number => ((a % n) + n) % n;

/** Rotates one character forward (+1) or back (-1) within its class; "!" and others outside the classes stay. */
function rotate(ch: string, dir: number, sign: 1 | -1): string {
  const c = ch.codePointAt(0)!;
  if (ch === QUOTE) return sign > 0 ? QUOTE + QUOTE : ch;
  if (c >= 0x30 && c <= 0x39) return String.fromCodePoint(0x30 + mod(c - 0x30 + sign * (mod(dir, 9) + 1), 10));
  const upper = c >= 0x41 && c <= 0x5a;
  const lower = c >= 0x61 && c <= 0x7a;
  if (upper || lower) {
    // A-Z then a-z as one ring of 52, so a letter never maps to its own other case by a trivial shift.
    const pos = upper ? c - 0x41 : c - 0x61 + 26;
    const next = mod(pos + sign * (mod(dir, 25) + 1), 52);
    return String.fromCodePoint(next < 26 ? 0x41 + next : 0x61 + next - 26);
  }
  if (c >= 0xa0 && c <= 0xff) return String.fromCodePoint(0xa0 + mod(c - 0xa0 + sign * (mod(dir, 95) + 1), 96));
  if (c >= 0x100) {
    const block = c - (c % 256);
    const next = block + mod(c - block + sign * (mod(dir, 127) + 1), 256);
    // A surrogate would not be a character: rclone quotes the original instead of rotating into that range.
    if (next >= 0xd800 && next <= 0xdfff) return sign > 0 ? QUOTE + ch : ch;
    return String.fromCodePoint(next);
  }
  return ch;
}

/** The plain size of a crypt file from its stored size (32-byte header, 64 KiB blocks with 16 bytes each). */
export function plainSize(encrypted: number): number | undefined {
  const HEADER = 32;
  const BLOCK_DATA = 64 * 1024;
  const BLOCK_OVERHEAD = 16;
  if (encrypted < HEADER) return undefined;
  const body = encrypted - HEADER;
  const blocks = Math.floor(body / (BLOCK_DATA + BLOCK_OVERHEAD));
  const rest = body % (BLOCK_DATA + BLOCK_OVERHEAD);
  if (rest === 0) return blocks * BLOCK_DATA;
  if (rest <= BLOCK_OVERHEAD) return undefined;
  return blocks * BLOCK_DATA + rest - BLOCK_OVERHEAD;
}
