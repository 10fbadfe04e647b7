// rclone's "obscured" config values (crypt passwords): AES-256-CTR under a key every rclone shares, a random IV in
// front, base64url without padding. It hides a password from a glance at rclone.conf, not from anyone who tries.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

// The fixed key rclone's lib/obscure uses; a value obscured here reveals in rclone and back.
const KEY = Buffer.from('9c935b48730a554d6bfd7c63c886a92bd390198eb8128afbf4de162b8b95f638', 'hex');
const IV_BYTES = 16;

export class RevealError extends Error {}

export function obscure(plain: string): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-ctr', KEY, iv);
  return Buffer.concat([iv, cipher.update(plain, 'utf8'), cipher.final()]).toString('base64url');
}

export function reveal(obscured: string): string {
  const bytes = Buffer.from(obscured, 'base64url');
  if (!/^[A-Za-z0-9_-]*$/.test(obscured) || bytes.length < IV_BYTES) {
    throw new RevealError('input too short when revealing password - is it obscured?');
  }
  const decipher = createDecipheriv('aes-256-ctr', KEY, bytes.subarray(0, IV_BYTES));
  return Buffer.concat([decipher.update(bytes.subarray(IV_BYTES)), decipher.final()]).toString('utf8');
}
