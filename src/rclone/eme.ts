// EME, the ECB-Mix-ECB wide-block mode of Halevi and Rogaway ("A Parallelizable Enciphering Mode", 2003), over
// AES-256: rclone crypt enciphers each file and folder name with it, so equal names give equal ciphertexts and a
// name's ciphertext is as long as its padded plaintext. Blocks are multiplied by x in GF(2^128) with the
// little-endian byte order and the 0x87 reduction the EME paper fixes.
import { createCipheriv, createDecipheriv } from 'node:crypto';

const BLOCK = 16;
/** EME is defined for 1 to 128 blocks (2 KiB). */
export const EME_MAX_BLOCKS = 128;

function times2(block: Buffer): Buffer {
  const out = Buffer.alloc(BLOCK);
  for (let i = 0; i < BLOCK; i++) {
    const carryIn = i === 0 ? 0 : block[i - 1] >> 7;
    out[i] = ((block[i] << 1) & 0xff) | carryIn;
  }
  if (block[BLOCK - 1] & 0x80) out[0] ^= 0x87;
  return out;
}

function xorInto(target: Buffer, other: Buffer): void {
  for (let i = 0; i < BLOCK; i++) target[i] ^= other[i];
}

type Direction = 'encrypt' | 'decrypt';

/** One AES block in the given direction (ECB, no padding: every input here is exactly one block). */
function aesBlock(key: Buffer, direction: Direction) {
  const make = direction === 'encrypt' ? createCipheriv : createDecipheriv;
  return (block: Buffer): Buffer => {
    const c = make('aes-256-ecb', key, null).setAutoPadding(false);
    return Buffer.concat([c.update(block), c.final()]);
  };
}

/** Enciphers (or deciphers) `data`, a whole number of 16-byte blocks, under the 16-byte `tweak`. */
export function emeTransform(key: Buffer, tweak: Buffer, data: Buffer, direction: Direction): Buffer {
  const m = data.length / BLOCK;
  if (!Number.isInteger(m) || m < 1 || m > EME_MAX_BLOCKS) throw new Error(`EME needs 1 to ${EME_MAX_BLOCKS} whole blocks, got ${data.length} bytes`);
  if (tweak.length !== BLOCK) throw new Error('EME tweak must be 16 bytes');
  const aes = aesBlock(key, direction);
  // The mask for block j is 2^(j+1)·E(0), always from the forward cipher.
  const masks: Buffer[] = [];
  let mask: Buffer = times2(aesBlock(key, 'encrypt')(Buffer.alloc(BLOCK)));
  for (let j = 0; j < m; j++) {
    masks.push(mask);
    mask = times2(mask);
  }
  // First ECB layer over the masked blocks.
  const inner: Buffer[] = [];
  for (let j = 0; j < m; j++) {
    const b = Buffer.from(data.subarray(j * BLOCK, (j + 1) * BLOCK));
    xorInto(b, masks[j]);
    inner.push(aes(b));
  }
  // The mix: one more cipher call over the sum of everything and the tweak spreads each block into all others.
  const sum = Buffer.from(tweak);
  for (const b of inner) xorInto(sum, b);
  const mixed = aes(sum);
  let spread: Buffer = Buffer.from(sum);
  xorInto(spread, mixed);
  const out: Buffer[] = [Buffer.alloc(BLOCK)];
  for (let j = 1; j < m; j++) {
    spread = times2(spread);
    const b = Buffer.from(inner[j]);
    xorInto(b, spread);
    out.push(b);
  }
  const first = Buffer.from(mixed);
  xorInto(first, tweak);
  for (let j = 1; j < m; j++) xorInto(first, out[j]);
  out[0] = first;
  // Second ECB layer, unmasked on the way out.
  return Buffer.concat(
    out.map((b, j) => {
      const c = aes(b);
      xorInto(c, masks[j]);
      return c;
    }),
  );
}
