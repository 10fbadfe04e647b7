// rclone's encrypted config file: "RCLONE_ENCRYPT_V0:" then base64 of nonce ‖ secretbox(INI text),
// keyed by SHA-256 of "[password][rclone-config]" — so a file written here opens in rclone and back.
import { createHash, randomBytes } from 'node:crypto';
import { NONCE_BYTES, OVERHEAD, open, seal } from './secretbox.js';

const MARKER = 'RCLONE_ENCRYPT_V0:';
const HEADER = `# Encrypted rclone configuration File\n\n${MARKER}\n`;

export class ConfigPasswordError extends Error {}

/**
 * The password as rclone uses it: Unicode NFKC-normalised, refused when it is only whitespace.
 * (rclone keeps surrounding whitespace and only warns about it, so this does too.)
 */
export function checkPassword(password: string): string {
  if (password.trim().length === 0) throw new ConfigPasswordError('no characters in password');
  return password.normalize('NFKC');
}

/** The 32-byte secretbox key rclone derives from a configuration password. */
export function configKey(password: string): Uint8Array {
  const normalised = checkPassword(password);
  return createHash('sha256').update(`[${normalised}][rclone-config]`, 'utf8').digest();
}

/**
 * Whether the text is an encrypted config: the first line that is neither blank nor a comment is the
 * marker. A newer marker version is refused, as rclone refuses it.
 */
export function isEncrypted(text: string): boolean {
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    if (line === MARKER) return true;
    if (line.startsWith('RCLONE_ENCRYPT_V')) {
      throw new ConfigPasswordError('unsupported configuration encryption - update rclone for support');
    }
    return false;
  }
  return false;
}

export function encryptConfig(plain: string, key: Uint8Array): string {
  const nonce = randomBytes(NONCE_BYTES);
  const box = seal(new Uint8Array(Buffer.from(plain, 'utf8')), nonce, key);
  // rclone streams standard padded base64 with no line breaks and no final newline.
  return HEADER + Buffer.concat([nonce, box]).toString('base64');
}

/** The INI text inside an encrypted config, or undefined when the key does not open it. */
export function decryptConfig(text: string, key: Uint8Array): string | undefined {
  const at = text.indexOf(MARKER);
  if (at < 0) throw new ConfigPasswordError('not an encrypted rclone config');
  const body = text.slice(at + MARKER.length).replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(body)) {
    throw new ConfigPasswordError('failed to load base64 encoded data: illegal base64 data');
  }
  const raw = Buffer.from(body, 'base64');
  if (raw.length < NONCE_BYTES + OVERHEAD) throw new ConfigPasswordError('configuration data too short');
  const plain = open(raw.subarray(NONCE_BYTES), raw.subarray(0, NONCE_BYTES), key);
  return plain === undefined ? undefined : Buffer.from(plain).toString('utf8');
}
