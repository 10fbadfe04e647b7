// Reads fields out of a decoded webhook body without trusting its shape: every accessor answers
// `undefined` for anything missing or of the wrong type, so the app modules never throw on odd input.
import { joinPath } from '../paths/folder.js';

export type Payload = Record<string, unknown>;

/**
 * JSON objects and the null-prototype objects `querystring.parse` returns for form bodies count;
 * arrays, class instances (Buffer, Date, Map) and primitives do not.
 */
export function isPlainObject(value: unknown): value is Payload {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

export function objectAt(payload: Payload, key: string): Payload | undefined {
  const value = payload[key];
  return isPlainObject(value) ? value : undefined;
}

export function objectsAt(payload: Payload, key: string): Payload[] | undefined {
  const value = payload[key];
  return Array.isArray(value) ? value.filter(isPlainObject) : undefined;
}

/**
 * A path-like string as sent, untouched. Blank strings count as absent: the arrs omit nulls, so a
 * whitespace-only value can only come from a broken sender and is no folder we could scan.
 */
export function pathAt(payload: Payload | undefined, key: string): string | undefined {
  const value = payload?.[key];
  // A NUL is kept: the path gate refuses it (400, rule control-character), as docs/security.md promises, rather
  // than the request passing as one that names no path.
  return typeof value === 'string' && value.trim() !== '' ? value : undefined;
}

/**
 * Where a file record points: its absolute `path`, else its folder joined with `relativeKey`
 * (Sonarr and Radarr send both; plex_autoscan only ever used the joined form).
 */
export function filePathOf(
  file: Payload | undefined,
  folder: string | undefined,
  pathKey = 'path',
  relativeKey = 'relativePath',
): string | undefined {
  const absolute = pathAt(file, pathKey);
  if (absolute !== undefined) return absolute;
  const relative = pathAt(file, relativeKey);
  return folder !== undefined && relative !== undefined ? joinPath(folder, relative) : undefined;
}
