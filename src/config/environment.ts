// What the environment says of the config, read in this one place: each top-level KEY from its variable or from
// the file its KEY_FILE names (Docker and systemd secrets), and the nested secrets from the files named by their
// PARENT__KEY_FILE or LIST__<NAME>__KEY_FILE variables. A value read from a file is never printed.
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import type * as z from 'zod/mini';
import { ConfigError, errorText } from './error.js';
import { expectedOf, genericExpected } from './issues.js';
import { isObject, type Json, type JsonObject } from './json-file.js';
import { keyPath } from './schema-walk.js';
import { SECRET_KEYS } from './secrets.js';
import { keepStart } from '../text-cut.js';

/** A value read from the file an environment variable names. */
export interface FileValue {
  /** Where it went, as in a zod issue: ['PLEX_TOKEN'] or ['TARGETS', 0, 'TOKEN']. */
  path: (string | number)[];
  /** The same as a person reads it: PLEX_TOKEN, TARGETS[0].TOKEN. */
  key: string;
  variable: string;
  file: string;
}

export interface FromEnvironment {
  /** The file's keys with the environment's applied on top (the file's own object is left as it was). */
  effective: JsonObject;
  /** Top-level keys set by their variable or their _FILE variable. */
  envOverrides: string[];
  fromFiles: FileValue[];
}

const FILE_SUFFIX = '_FILE';
/** Between the parts of a nested key's variable: GOOGLE__CLIENT_SECRET_FILE, TARGETS__jellyfin__TOKEN_FILE. */
const NESTED = '__';

/** An empty variable counts as unset: compose files often declare `KEY=` placeholders. */
const given = (env: NodeJS.ProcessEnv, name: string): string | undefined => (env[name] === undefined || env[name] === '' ? undefined : env[name]);

/** The variable naming the file of a secret at `pattern` ("*" for a list entry, written as its NAME or index). */
export function fileVariable(pattern: readonly string[], entry = '<NAME>'): string {
  return pattern.map((part) => (part === '*' ? entry : part)).join(NESTED) + FILE_SUFFIX;
}

/** Applies the environment to what the file holds. Throws ConfigError naming the variable (and file) at fault. */
export function applyEnvironment(upgraded: JsonObject, env: NodeJS.ProcessEnv, shape: Record<string, z.ZodMiniType>): FromEnvironment {
  const effective: JsonObject = { ...upgraded };
  const envOverrides: string[] = [];
  const fromFiles: FileValue[] = [];
  for (const [key, keySchema] of Object.entries(shape)) {
    const raw = given(env, key);
    const fileVar = `${key}${FILE_SUFFIX}`;
    const file = given(env, fileVar);
    if (raw !== undefined && file !== undefined) {
      throw new ConfigError(`config error in environment variables ${key} and ${fileVar}: ${key} is given both ways; keep one`);
    }
    if (raw !== undefined) effective[key] = decodeEnv(key, raw, keySchema);
    else if (file !== undefined) {
      effective[key] = decodeFile(fileVar, file, keySchema);
      fromFiles.push({ path: [key], key, variable: fileVar, file });
    } else continue;
    envOverrides.push(key);
  }
  for (const [variable, file] of nestedFileVariables(env, shape)) {
    const path = resolvePath(variable, effective);
    const top = path[0] as string;
    // The section came from the environment too: two variables would say what one key is.
    const current = valueAt(effective, path);
    if (envOverrides.includes(top) && typeof current === 'string' && current !== '') {
      throw new ConfigError(`config error in environment variables ${top} and ${variable}: ${keyPath(path)} is given both ways; keep one`);
    }
    effective[top] = structuredClone(effective[top] ?? {});
    setAt(effective, path, readSecretFile(variable, file));
    fromFiles.push({ path, key: keyPath(path), variable, file });
  }
  return { effective, envOverrides, fromFiles };
}

/** Where to blame a bad value: the variable (and file) it came from, else undefined (the config file). */
export function blameOf(issuePath: readonly PropertyKey[], fromEnv: FromEnvironment): { where: string; hidden: boolean; fromEnv: boolean } | undefined {
  const read = fromEnv.fromFiles.find((f) => f.path.every((part, i) => issuePath[i] === part));
  if (read) return { where: `config error in environment variable ${read.variable} (the file ${read.file})`, hidden: true, fromEnv: read.path.length === 1 };
  const top = String(issuePath[0] ?? '');
  if (fromEnv.envOverrides.includes(top)) return { where: `config error in environment variable ${top}`, hidden: false, fromEnv: true };
  return undefined;
}

/** The PARENT__…_FILE variables naming a top-level key first: the nested secrets' files. */
function nestedFileVariables(env: NodeJS.ProcessEnv, shape: Record<string, unknown>): [string, string][] {
  return Object.keys(env)
    .filter((name) => name.endsWith(FILE_SUFFIX) && name.includes(NESTED) && Object.hasOwn(shape, name.slice(0, name.indexOf(NESTED))))
    .sort()
    .flatMap((name) => {
      const file = given(env, name);
      return file === undefined ? [] : [[name, file] as [string, string]];
    });
}

/** The key a nested secret's variable names, list entries found by NAME (any case) or index. */
function resolvePath(variable: string, effective: JsonObject): (string | number)[] {
  const nested = SECRET_KEYS.filter((k) => k.length > 1);
  for (const pattern of nested) {
    const star = pattern.indexOf('*');
    if (star < 0) {
      if (variable === fileVariable(pattern)) return [...pattern];
      continue;
    }
    const before = pattern.slice(0, star).join(NESTED) + NESTED;
    const after = NESTED + pattern.slice(star + 1).join(NESTED) + FILE_SUFFIX;
    if (variable.length <= before.length + after.length || !variable.startsWith(before) || !variable.endsWith(after)) continue;
    const selector = variable.slice(before.length, variable.length - after.length);
    const list = valueAt(effective, pattern.slice(0, star));
    const listName = keyPath(pattern.slice(0, star));
    const entries = Array.isArray(list) ? list : [];
    let index = entries.findIndex((e) => isObject(e) && typeof e.NAME === 'string' && e.NAME.toLowerCase() === selector.toLowerCase());
    if (index < 0 && /^\d+$/.test(selector) && Number(selector) < entries.length) index = Number(selector);
    if (index < 0) {
      const names = entries.map((e) => (isObject(e) && typeof e.NAME === 'string' ? e.NAME : undefined)).filter(Boolean);
      throw new ConfigError(
        `config error in environment variable ${variable}: ${listName} has no entry named "${selector}" (${names.length ? `its names: ${names.join(', ')}` : 'it is empty'})`,
      );
    }
    return [...pattern.slice(0, star), index, ...pattern.slice(star + 1)];
  }
  const spellings = nested.map((k) => fileVariable(k)).join(', ');
  throw new ConfigError(`config error in environment variable ${variable}: no secret is read from a file by this name; nested keys that are: ${spellings}`);
}

function valueAt(root: Json, path: readonly (string | number)[]): Json | undefined {
  let v: Json | undefined = root;
  for (const part of path) {
    if (Array.isArray(v) && typeof part === 'number') v = v[part];
    else if (isObject(v) && typeof part === 'string') v = Object.hasOwn(v, part) ? v[part] : undefined;
    else return undefined;
  }
  return v;
}

/** Sets `value` at `path`, making the objects on the way that are missing (list entries exist: resolvePath found them). */
function setAt(root: JsonObject, path: readonly (string | number)[], value: string): void {
  let at: Json = root;
  path.slice(0, -1).forEach((part, i) => {
    const next: Json | undefined = valueAt(at, [part]);
    if (isObject(next) || Array.isArray(next)) {
      at = next;
      return;
    }
    if (typeof part === 'number' || !isObject(at)) throw new ConfigError(`config error: ${keyPath(path.slice(0, i + 1))} is not an object`);
    at[part] = {};
    at = at[part];
  });
  const last = path[path.length - 1];
  if (Array.isArray(at) && typeof last === 'number') at[last] = value;
  else if (isObject(at)) at[String(last)] = value;
}

/**
 * The most a _FILE is read: a secret is short, and a JSON value for a key (a list of TARGETS) a few KB. A file
 * past it is refused unread beyond it, as a FIFO or a device is refused unopened for reading: /dev/zero read
 * whole aborted the start, and a FIFO nobody writes to hung it.
 */
export const SECRET_FILE_MAX_BYTES = 64 * 1024;

/** The file's text less its trailing newlines; an unreadable or empty file names the variable and the file only. */
function readSecretFile(variable: string, file: string): string {
  let text: string;
  const refused = (why: string) => new ConfigError(`config error in environment variable ${variable}: cannot read the file ${file}: ${why}`);
  let fd: number | undefined;
  try {
    // Non-blocking: opening a FIFO with no writer returns at once (a blocking open would wait for one).
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
    const stat = fstatSync(fd);
    if (stat.isDirectory()) throw refused('it is a folder');
    if (!stat.isFile()) throw refused('it is not a regular file (a pipe, a socket or a device): write the secret into a file');
    const bytes = Buffer.alloc(SECRET_FILE_MAX_BYTES + 1);
    let read = 0;
    for (let n; read < bytes.length && (n = readSync(fd, bytes, read, bytes.length - read, read)) > 0; ) read += n;
    if (read > SECRET_FILE_MAX_BYTES) throw refused(`it is larger than ${SECRET_FILE_MAX_BYTES / 1024} KiB, far more than a secret or a key's value`);
    text = bytes.subarray(0, read).toString('utf8');
  } catch (err) {
    if (err instanceof ConfigError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'there is no such file' : code === 'EACCES' ? 'permission denied (is it readable by the user scanrelay runs as?)' : code === 'EISDIR' ? 'it is a folder' : errorText(err);
    throw refused(why);
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
  const value = text.replace(/[\r\n]+$/, '');
  if (value.trim() === '') throw new ConfigError(`config error in environment variable ${variable}: the file ${file} is empty`);
  return value;
}

/** The probe's first issue: what a key's schema expects, and whether that is a string. */
function expectation(schema: z.ZodMiniType): { isString: boolean; expected: string } {
  const probe = schema.safeParse(Symbol('probe'), { error: genericExpected });
  const first = probe.success ? undefined : probe.error.issues[0];
  return { isString: first?.code === 'invalid_type' && first.expected === 'string', expected: first ? expectedOf(first) : 'a JSON value' };
}

/** A top-level key from its file: the raw text for a string key, else JSON. Its content never shows in an error. */
function decodeFile(variable: string, file: string, schema: z.ZodMiniType): Json {
  const text = readSecretFile(variable, file);
  const { isString, expected } = expectation(schema);
  if (isString) return text;
  try {
    return JSON.parse(text) as Json;
  } catch {
    throw new ConfigError(`config error in environment variable ${variable}: the file ${file} is not JSON for ${expected} (its content is not shown)`);
  }
}

/**
 * plex_autoscan JSON-decoded every override, so strings needed quotes and a bare word crashed it. Here a
 * string key takes the raw text unless it is a quoted JSON string; other keys still need valid JSON.
 */
function decodeEnv(key: string, raw: string, schema: z.ZodMiniType): Json {
  let decoded: Json | undefined;
  try {
    decoded = JSON.parse(raw) as Json;
  } catch {
    decoded = undefined;
  }
  const { isString, expected } = expectation(schema);
  if (isString) return typeof decoded === 'string' ? decoded : raw;
  if (decoded === undefined) {
    throw new ConfigError(
      `config error in environment variable ${key}: expected JSON for ${expected}, got ${raw.length > 60 ? `${keepStart(raw, 57)}...` : raw}`,
    );
  }
  return decoded;
}
