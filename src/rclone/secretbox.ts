// NaCl secretbox (XSalsa20 + Poly1305), the cipher of rclone's encrypted config. Node's crypto has
// neither XSalsa20 nor a bare Poly1305, so this is a small self-contained implementation; the config
// file is a few kilobytes, so clarity wins over speed (Poly1305 runs on BigInt).
import { timingSafeEqual } from 'node:crypto';

export const KEY_BYTES = 32;
export const NONCE_BYTES = 24;
/** The Poly1305 tag that precedes the ciphertext. */
export const OVERHEAD = 16;

// "expand 32-byte k", the Salsa20 constant for 256-bit keys.
const SIGMA = [0x61707865, 0x3320646e, 0x79622d32, 0x6b206574];

const rotl = (v: number, c: number): number => ((v << c) | (v >>> (32 - c))) >>> 0;

function readLE32(bytes: Uint8Array, at: number): number {
  return (bytes[at] | (bytes[at + 1] << 8) | (bytes[at + 2] << 16) | (bytes[at + 3] << 24)) >>> 0;
}

function writeLE32(out: Uint8Array, at: number, v: number): void {
  out[at] = v & 0xff;
  out[at + 1] = (v >>> 8) & 0xff;
  out[at + 2] = (v >>> 16) & 0xff;
  out[at + 3] = (v >>> 24) & 0xff;
}

/** The 20 Salsa20 rounds over a 16-word state, in place. */
function salsaRounds(x: Uint32Array): void {
  const qr = (a: number, b: number, c: number, d: number): void => {
    x[b] ^= rotl((x[a] + x[d]) >>> 0, 7);
    x[c] ^= rotl((x[b] + x[a]) >>> 0, 9);
    x[d] ^= rotl((x[c] + x[b]) >>> 0, 13);
    x[a] ^= rotl((x[d] + x[c]) >>> 0, 18);
  };
  for (let i = 0; i < 10; i++) {
    // columns
    qr(0, 4, 8, 12);
    qr(5, 9, 13, 1);
    qr(10, 14, 2, 6);
    qr(15, 3, 7, 11);
    // rows
    qr(0, 1, 2, 3);
    qr(5, 6, 7, 4);
    qr(10, 11, 8, 9);
    qr(15, 12, 13, 14);
  }
}

function initialState(key: Uint8Array, input16: Uint8Array): Uint32Array {
  const s = new Uint32Array(16);
  s[0] = SIGMA[0];
  s[5] = SIGMA[1];
  s[10] = SIGMA[2];
  s[15] = SIGMA[3];
  for (let i = 0; i < 4; i++) {
    s[1 + i] = readLE32(key, i * 4);
    s[11 + i] = readLE32(key, 16 + i * 4);
    s[6 + i] = readLE32(input16, i * 4);
  }
  return s;
}

/** HSalsa20: derives XSalsa20's subkey from the key and the first 16 nonce bytes. */
function hsalsa20(key: Uint8Array, nonce16: Uint8Array): Uint8Array {
  const x = initialState(key, nonce16);
  salsaRounds(x);
  const out = new Uint8Array(32);
  [0, 5, 10, 15, 6, 7, 8, 9].forEach((word, i) => writeLE32(out, i * 4, x[word]));
  return out;
}

/** XSalsa20 keystream XORed into `data` (so the same call encrypts and decrypts). */
function xsalsa20Xor(key: Uint8Array, nonce: Uint8Array, data: Uint8Array): Uint8Array {
  const subkey = hsalsa20(key, nonce.subarray(0, 16));
  const input = new Uint8Array(16);
  input.set(nonce.subarray(16, 24), 0);
  const out = new Uint8Array(data.length);
  const block = new Uint8Array(64);
  for (let offset = 0, counter = 0; offset < data.length; offset += 64, counter++) {
    writeLE32(input, 8, counter >>> 0);
    writeLE32(input, 12, Math.floor(counter / 0x100000000));
    const s = initialState(subkey, input);
    const x = s.slice();
    salsaRounds(x);
    for (let i = 0; i < 16; i++) writeLE32(block, i * 4, (x[i] + s[i]) >>> 0);
    const n = Math.min(64, data.length - offset);
    for (let i = 0; i < n; i++) out[offset + i] = data[offset + i] ^ block[i];
  }
  return out;
}

function leBytesToBigInt(bytes: Uint8Array): bigint {
  let v = 0n;
  for (let i = bytes.length - 1; i >= 0; i--) v = (v << 8n) | BigInt(bytes[i]);
  return v;
}

const P1305 = (1n << 130n) - 5n;

/** One-time authenticator over `message` with a 32-byte one-time key. */
export function poly1305(message: Uint8Array, oneTimeKey: Uint8Array): Uint8Array {
  const r = leBytesToBigInt(oneTimeKey.subarray(0, 16)) & 0x0ffffffc0ffffffc0ffffffc0fffffffn;
  const s = leBytesToBigInt(oneTimeKey.subarray(16, 32));
  let h = 0n;
  for (let i = 0; i < message.length; i += 16) {
    const chunk = message.subarray(i, Math.min(i + 16, message.length));
    const n = leBytesToBigInt(chunk) | (1n << BigInt(8 * chunk.length));
    h = ((h + n) * r) % P1305;
  }
  let tag = (h + s) & ((1n << 128n) - 1n);
  const out = new Uint8Array(16);
  for (let i = 0; i < 16; i++) {
    out[i] = Number(tag & 0xffn);
    tag >>= 8n;
  }
  return out;
}

function checkSizes(key: Uint8Array, nonce: Uint8Array): void {
  if (key.length !== KEY_BYTES) throw new Error(`secretbox key must be ${KEY_BYTES} bytes`);
  if (nonce.length !== NONCE_BYTES) throw new Error(`secretbox nonce must be ${NONCE_BYTES} bytes`);
}

/** Encrypts and authenticates: returns tag ‖ ciphertext, as NaCl's secretbox.Seal. */
export function seal(plain: Uint8Array, nonce: Uint8Array, key: Uint8Array): Uint8Array {
  checkSizes(key, nonce);
  // The first 32 keystream bytes become the Poly1305 key; the message is XORed from byte 32 on.
  const padded = new Uint8Array(32 + plain.length);
  padded.set(plain, 32);
  const stream = xsalsa20Xor(key, nonce, padded);
  const cipher = stream.subarray(32);
  const tag = poly1305(cipher, stream.subarray(0, 32));
  const out = new Uint8Array(OVERHEAD + cipher.length);
  out.set(tag, 0);
  out.set(cipher, OVERHEAD);
  return out;
}

/** Verifies and decrypts tag ‖ ciphertext; undefined when the key is wrong or the box was altered. */
export function open(box: Uint8Array, nonce: Uint8Array, key: Uint8Array): Uint8Array | undefined {
  checkSizes(key, nonce);
  if (box.length < OVERHEAD) return undefined;
  const tag = box.subarray(0, OVERHEAD);
  const cipher = box.subarray(OVERHEAD);
  const polyKey = xsalsa20Xor(key, nonce, new Uint8Array(32));
  const expected = poly1305(cipher, polyKey);
  if (!timingSafeEqual(Buffer.from(tag), Buffer.from(expected))) return undefined;
  const padded = new Uint8Array(32 + cipher.length);
  padded.set(cipher, 32);
  return xsalsa20Xor(key, nonce, padded).subarray(32);
}
