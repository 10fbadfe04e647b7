// The config blob rclone passes between machines (the argument of `rclone authorize` and the pasted
// result): a flat string map as compact JSON with sorted keys, in standard base64 without padding.
import { goJsonSortedMap } from './gojson.js';

export class BlobError extends Error {}

export function encodeBlob(map: Record<string, string>): string {
  return Buffer.from(goJsonSortedMap(map), 'utf8').toString('base64').replace(/=+$/, '');
}

/**
 * Decodes a blob as rclone does: all whitespace removed, standard alphabet, no padding (rclone
 * refuses "=" and the URL-safe "-" and "_"), and a JSON object whose values are all strings.
 */
export function decodeBlob(input: string): Record<string, string> {
  const text = input.replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/]*$/.test(text) || text.length % 4 === 1) {
    throw new BlobError('illegal base64 data');
  }
  const parsed: unknown = JSON.parse(Buffer.from(text, 'base64').toString('utf8'));
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new BlobError('the blob is not a JSON object');
  }
  const map: Record<string, string> = {};
  for (const [key, value] of Object.entries(parsed)) {
    if (typeof value !== 'string') throw new BlobError(`the blob's value for ${key} is not a string`);
    map[key] = value;
  }
  return map;
}
