// Turns the command line, the environment and config.json into settings and a validated Config, the way
// plex_autoscan did (same flags, env vars, keys and auto-upgrade) minus its exits and crashes.
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { z } from 'zod';
import { editDistance } from '../doctor/distance.js';
import { defaultConfig } from './defaults.js';
import { configSchema, newServerPass, type Config } from './schema.js';

export { defaultConfig };

/** A problem the user must fix before the service can start. The message is one line, printed as-is. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

// ---------------------------------------------------------------- settings (where the files are, log level)

export interface Settings {
  config: string;
  queuefile: string;
  logfile: string;
  loglevel: string;
  cachefile: string;
}

type Origin = 'arg' | 'env' | 'default';

const SETTING_DEFAULTS: Record<keyof Settings, (cwd: string) => string> = {
  config: (cwd) => join(cwd, 'config', 'config.json'),
  queuefile: (cwd) => join(cwd, 'queue.db'),
  logfile: (cwd) => join(cwd, 'scanrelay.log'),
  loglevel: () => 'INFO',
  cachefile: (cwd) => join(cwd, 'cache.db'),
};

const LOG_LEVELS = ['ERROR', 'WARN', 'INFO', 'DEBUG', 'TRACE'];

/** Python's os.path.expandvars, which plex_autoscan applied to every setting: unknown variables stay as written. */
function expandVars(value: string, env: NodeJS.ProcessEnv): string {
  return value.replace(/\$(\w+)|\$\{([^}]+)\}/g, (whole, bare: string | undefined, braced: string | undefined) => {
    const v = env[(bare ?? braced) as string];
    return v === undefined ? whole : v;
  });
}

/**
 * Each setting comes from its flag, else SCANRELAY_<NAME>, else plex_autoscan's PLEX_AUTOSCAN_<NAME>, else a
 * default under `cwd`. Paths come back absolute; the log level upper-case (WARN, INFO, DEBUG, ERROR, TRACE).
 */
export function resolveSettings(
  flags: Partial<Settings>,
  env: NodeJS.ProcessEnv,
  cwd: string,
): { settings: Settings; origins: Record<keyof Settings, Origin> } {
  const settings = {} as Settings;
  const origins = {} as Record<keyof Settings, Origin>;
  const sources = {} as Record<keyof Settings, string>;
  for (const key of Object.keys(SETTING_DEFAULTS) as (keyof Settings)[]) {
    const envNames = [`SCANRELAY_${key.toUpperCase()}`, `PLEX_AUTOSCAN_${key.toUpperCase()}`];
    const fromEnv = envNames.find((name) => env[name] !== undefined && env[name] !== '');
    let value: string;
    if (flags[key] !== undefined && flags[key] !== '') {
      value = flags[key] as string;
      origins[key] = 'arg';
      sources[key] = `--${key}`;
    } else if (fromEnv) {
      value = env[fromEnv] as string;
      origins[key] = 'env';
      sources[key] = fromEnv;
    } else {
      value = SETTING_DEFAULTS[key](cwd);
      origins[key] = 'default';
      sources[key] = 'the default';
    }
    value = expandVars(value, env);
    // `--logfile -`: no log file; the console (journald, docker logs) or logrotate takes care of the lines.
    settings[key] = key === 'loglevel' || (key === 'logfile' && value === '-') ? value : resolve(cwd, value);
  }
  const level = settings.loglevel.trim().toUpperCase();
  settings.loglevel = level === 'WARNING' ? 'WARN' : level;
  if (!LOG_LEVELS.includes(settings.loglevel)) {
    throw new ConfigError(
      `invalid log level ${JSON.stringify(settings.loglevel)} from ${sources.loglevel}: expected ERROR, WARN, INFO, DEBUG or TRACE`,
    );
  }
  return { settings, origins };
}

// ---------------------------------------------------------------- config.json

export interface LoadedConfig {
  config: Config;
  /** Absolute path of the file. */
  path: string;
  /** The file did not exist and a default one was written. */
  created: boolean;
  /** Keys that were missing and got their default, as KEY or PARENT.KEY. */
  added: string[];
  /** Keys scanrelay does not use (legacy or unknown); kept in the file. */
  ignored: string[];
  /** The ignored keys that are not plex_autoscan's legacy keys: probably typos (warned about). */
  unknown: UnknownKey[];
  /** Where the file was copied before the added keys were written into it. */
  backup?: string;
  /** Top-level keys whose value came from an environment variable of the same name. */
  envOverrides: string[];
  /** Why the added keys could not be written back; the config loaded all the same. */
  writeError?: string;
}

interface LoadOptions {
  /** Write a new file, or the keys an upgrade added. Default true. */
  write?: boolean;
  /** Source of a new SERVER_PASS. */
  random?: () => string;
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Reads, upgrades and validates config.json. A missing file is created from defaultConfig() (mode 0600: it
 * holds secrets); missing keys get their base default and are written back; env overrides apply on top and
 * are never written. Throws ConfigError for anything the user has to fix.
 */
export function loadConfig(path: string, env: NodeJS.ProcessEnv, opts: LoadOptions = {}): LoadedConfig {
  const file = resolve(path);
  const write = opts.write ?? true;
  const random = opts.random ?? newServerPass;
  const where = `config error in ${file}`;

  let text: string | undefined;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EISDIR') throw new ConfigError(`${where}: this is a folder, not a file`);
    // ENOTDIR: a parent is a file; like a missing file, it fails below with the reason creating it failed.
    if (code !== 'ENOENT' && code !== 'ENOTDIR') throw new ConfigError(`${where}: cannot read the file: ${errorText(err)}`);
  }

  if (text === undefined) {
    const fresh = defaultConfig(random) as unknown as JsonObject;
    if (write) {
      try {
        mkdirSync(dirname(file), { recursive: true });
        writeFileSync(file, toFileText(fresh), { mode: 0o600, flag: 'wx' });
      } catch (err) {
        // Running on with a random SERVER_PASS nobody can read back would only fail later and obscurely.
        throw new ConfigError(`${where}: there is no config file and a default one could not be created: ${errorText(err)}`);
      }
    }
    return { ...finish(file, fresh, env, []), unknown: [], created: write };
  }

  const fromFile = parseJson(text, where);
  const base = configSchema.parse({ SERVER_PASS: random() }) as unknown as JsonObject;
  const added: string[] = [];
  const upgraded = addMissing(fromFile, base, configSchema, [], added) as JsonObject;

  // Validate before writing: a file with a mistake in it is reported, not rewritten.
  const result = finish(file, upgraded, env, added);
  const unknown = unknownKeys(result.ignored, text, added);
  // Writing the default of a key the user misspelled would bury their value: refuse until the name is fixed.
  const typo = unknown.find((u) => u.missing);
  if (typo) {
    throw new ConfigError(
      `${where}: '${typo.key}'${typo.line ? ` (line ${typo.line})` : ''} looks like a typo of '${typo.suggestion}', which is missing: rename it to '${typo.suggestion}' and start again (the file was not changed)`,
    );
  }
  let writeError: string | undefined;
  let backup: string | undefined;
  if (write && added.length > 0) {
    try {
      backup = `${file}.${new Date().toISOString().replace(/:/g, '-')}.bak`;
      copyFileSync(file, backup);
      // In place, not via rename: keeps the mode, owner, symlinks and Docker single-file bind mounts.
      writeFileSync(file, toFileText(upgraded));
    } catch (err) {
      writeError = errorText(err);
    }
  }
  return { ...result, unknown, created: false, writeError, backup };
}

/**
 * Writes `pass` as SERVER_PASS into the config file, in place (mode, owner and bind mounts kept), leaving every
 * other key as it is. The file must load first: a broken file is reported, not rewritten.
 */
export function writeServerPass(path: string, pass: string): void {
  const file = resolve(path);
  const data = parseJson(readFileSync(file, 'utf8'), `config error in ${file}`);
  data.SERVER_PASS = pass;
  finish(file, data, {}, []);
  writeFileSync(file, toFileText(data));
}

/** Applies env overrides, validates, and collects what is ignored. `upgraded` is what the file holds (or would). */
function finish(file: string, upgraded: JsonObject, env: NodeJS.ProcessEnv, added: string[]): Omit<LoadedConfig, 'created' | 'unknown'> {
  const effective: JsonObject = { ...upgraded };
  const envOverrides: string[] = [];
  for (const [key, schema] of Object.entries(configSchema.shape)) {
    const raw = env[key];
    // An empty variable counts as unset: compose files often declare `KEY=` placeholders.
    if (raw === undefined || raw === '') continue;
    effective[key] = decodeEnv(key, raw, schema as z.ZodType);
    envOverrides.push(key);
  }

  const ignored: string[] = [];
  collectIgnored(effective, configSchema, [], ignored);

  const parsed = configSchema.safeParse(effective, { reportInput: true, error: genericExpected });
  if (!parsed.success) {
    const issues = parsed.error.issues;
    const first = issues[0];
    const top = String(first.path[0] ?? '');
    const fromEnv = envOverrides.includes(top);
    const where = fromEnv ? `config error in environment variable ${top}` : `config error in ${file}`;
    const more = issues.length > 1 ? ` (and ${issues.length - 1} more problem${issues.length > 2 ? 's' : ''})` : '';
    // The variable already names a top-level key; repeating it would read "SERVER_PORT: SERVER_PORT: ...".
    throw new ConfigError(`${where}: ${describeIssue(first, effective, fromEnv && first.path.length === 1)}${more}`);
  }
  return { config: parsed.data, path: file, added, ignored, envOverrides };
}

/**
 * plex_autoscan JSON-decoded every override, so strings needed quotes and a bare word crashed it. Here a
 * string key takes the raw text unless it is a quoted JSON string; other keys still need valid JSON.
 */
function decodeEnv(key: string, raw: string, schema: z.ZodType): Json {
  let decoded: Json | undefined;
  try {
    decoded = JSON.parse(raw) as Json;
  } catch {
    decoded = undefined;
  }
  const probe = schema.safeParse(Symbol('probe'), { error: genericExpected });
  const firstProbe = probe.success ? undefined : probe.error.issues[0];
  const isStringKey = firstProbe?.code === 'invalid_type' && firstProbe.expected === 'string';
  if (isStringKey) return typeof decoded === 'string' ? decoded : raw;
  if (decoded === undefined) {
    const expected = firstProbe ? expectedOf(firstProbe) : 'a JSON value';
    throw new ConfigError(
      `config error in environment variable ${key}: expected JSON for ${expected}, got ${raw.length > 60 ? `${raw.slice(0, 57)}...` : raw}`,
    );
  }
  return decoded;
}

// ---------------------------------------------------------------- JSON text in and out

function parseJson(text: string, where: string): JsonObject {
  // Windows editors like to start files with a byte-order mark, which JSON.parse refuses.
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  if (body.trim() === '') {
    throw new ConfigError(`${where}: the file is empty; fill it with a JSON object, or delete it to get a default one`);
  }
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch (err) {
    throw new ConfigError(`${where}: ${jsonErrorText(body, (err as Error).message)}`);
  }
  if (!isObject(value)) {
    throw new ConfigError(`${where}: expected a JSON object ({ ... }) at the top level, got ${kindOf(value)}`);
  }
  return value;
}

/** "invalid JSON at line L, column C: <reason>", from the position in Node's parser message. */
function jsonErrorText(text: string, message: string): string {
  const lineColumn = /\(line (\d+) column (\d+)\)/.exec(message);
  const position = /at position (\d+)/.exec(message);
  const reason = message
    .replace(/\s*\(line \d+ column \d+\)/, '')
    .replace(/\s*(?:in JSON )?at position \d+/, '')
    .trim();
  let line: number | undefined;
  let column: number | undefined;
  if (lineColumn) {
    line = Number(lineColumn[1]);
    column = Number(lineColumn[2]);
  } else {
    const at = position ? Number(position[1]) : /end of JSON input/.test(message) ? text.length : undefined;
    if (at !== undefined) {
      const before = text.slice(0, at);
      line = before.split('\n').length;
      column = at - (before.lastIndexOf('\n') + 1) + 1;
    }
  }
  return line === undefined ? `invalid JSON: ${reason}` : `invalid JSON at line ${line}, column ${column}: ${reason}`;
}

/** JSON with 2-space indent and sorted keys like plex_autoscan; mappings and priorities keep the user's order. */
function toFileText(data: JsonObject): string {
  return JSON.stringify(sortKnownObjects(data, configSchema), null, 2) + '\n';
}

function sortKnownObjects(value: Json, schema: z.ZodType): Json {
  const shape = objectShape(schema);
  if (!shape || !isObject(value)) return value;
  const out: JsonObject = {};
  for (const key of Object.keys(value).sort()) {
    out[key] = Object.hasOwn(shape, key) ? sortKnownObjects(value[key], shape[key]) : value[key];
  }
  return out;
}

// ---------------------------------------------------------------- walking the schema alongside the data

/** The object shape behind defaults and optionals, if the schema is an object at heart. */
function objectShape(schema: z.ZodType): Record<string, z.ZodType> | undefined {
  const inner = unwrap(schema);
  return inner instanceof z.ZodObject ? (inner.shape as Record<string, z.ZodType>) : undefined;
}

function unwrap(schema: z.ZodType): z.ZodType {
  let s: z.ZodType = schema;
  for (;;) {
    if (s instanceof z.ZodDefault || s instanceof z.ZodPrefault || s instanceof z.ZodOptional) {
      s = s.def.innerType as z.ZodType;
    } else {
      return s;
    }
  }
}

/**
 * Fills keys missing from fixed-shape objects (the top level, GOOGLE, GOOGLE.ALLOWED, RCLONE, ...) with the
 * base default, recording each as a dotted path. Mappings, lists and unknown keys are left exactly as written.
 */
function addMissing(value: Json, base: Json, schema: z.ZodType, path: string[], added: string[]): Json {
  const shape = objectShape(schema);
  if (!shape || !isObject(value) || !isObject(base)) return value;
  const out: JsonObject = { ...value };
  for (const [key, child] of Object.entries(shape)) {
    if (!Object.hasOwn(base, key)) continue; // optional without a default: nothing to add
    if (value[key] === undefined) {
      out[key] = base[key];
      added.push([...path, key].join('.'));
    } else {
      out[key] = addMissing(value[key], base[key], child, [...path, key], added);
    }
  }
  return out;
}

/** plex_autoscan's and Cloudbox's keys that scanrelay accepts and ignores (docs/configuration.md); never typos. */
/** Keys of older plex_autoscan and Cloudbox files: accepted for compatibility, with an INFO line saying so. */
export const LEGACY_KEYS: ReadonlySet<string> = new Set(['PLEX_SECTION_PATH_MAPPINGS', 'PLEX_SECTION_PATH_MAPPINGS_WITH_API', 'GDRIVE', 'RCLONE_RC_CACHE_EXPIRE']);

export interface UnknownKey {
  /** As KEY, PARENT.KEY or TARGETS[0].KEY. */
  key: string;
  /** Its line in the file (first occurrence of the quoted name), when found. */
  line?: number;
  /** The closest key scanrelay knows at that level, when close enough to be a typo. */
  suggestion?: string;
  /** The suggestion is missing from the file (so its default would otherwise be written). */
  missing: boolean;
}

/** Ignored keys that are not legacy ones, each with its line and the known key it most likely meant. */
function unknownKeys(ignored: string[], text: string, added: string[]): UnknownKey[] {
  const lines = text.split('\n');
  return ignored
    .filter((k) => !LEGACY_KEYS.has(k))
    .map((dotted) => {
      const parts = /^(.*?)([^.[\]]+|\["[^"]*"\])$/.exec(dotted);
      const parentPath = parts?.[1].replace(/\.$/, '') ?? '';
      const name = (parts?.[2] ?? dotted).replace(/^\["|"\]$/g, '');
      const siblings = knownSiblings(parentPath);
      let suggestion: string | undefined;
      let best = Infinity;
      for (const s of siblings) {
        const d = editDistance(name.toUpperCase(), s);
        if (d < best) [best, suggestion] = [d, s];
      }
      // A typo is a couple of letters off; anything further is another key altogether.
      if (best > Math.max(2, Math.floor(name.length / 6))) suggestion = undefined;
      const index = lines.findIndex((l) => l.includes(JSON.stringify(name)));
      const full = suggestion ? (parentPath ? `${parentPath}.${suggestion}` : suggestion) : undefined;
      return { key: dotted, line: index >= 0 ? index + 1 : undefined, suggestion: full, missing: full !== undefined && added.includes(full) };
    });
}

/** The keys the schema knows in the object at `parentPath` (e.g. "", "GOOGLE", "TARGETS[0]"). */
function knownSiblings(parentPath: string): string[] {
  let schema: z.ZodType = configSchema;
  for (const part of parentPath.split(/\.|(?=\[)/).filter(Boolean)) {
    const inner = unwrap(schema);
    if (part.startsWith('[')) {
      if (!(inner instanceof z.ZodArray)) return [];
      schema = inner.element as z.ZodType;
    } else {
      const shape = objectShape(inner);
      if (!shape || !Object.hasOwn(shape, part)) return [];
      schema = shape[part];
    }
  }
  return Object.keys(objectShape(schema) ?? {});
}

function collectIgnored(value: unknown, schema: z.ZodType, path: (string | number)[], ignored: string[]): void {
  const inner = unwrap(schema);
  if (inner instanceof z.ZodArray && Array.isArray(value)) {
    value.forEach((item, i) => collectIgnored(item, inner.element as z.ZodType, [...path, i], ignored));
    return;
  }
  const shape = objectShape(inner);
  if (!shape || !isObject(value)) return;
  for (const key of Object.keys(value)) {
    if (Object.hasOwn(shape, key)) collectIgnored(value[key], shape[key], [...path, key], ignored);
    else ignored.push(keyPath([...path, key]));
  }
}

// ---------------------------------------------------------------- one-line explanations

const SECRET_KEYS = new Set(['SERVER_PASS', 'PLEX_TOKEN', 'CLIENT_SECRET', 'SERVER_METRICS_TOKEN', 'TOKEN']);

/** The "expected ..." phrase for issues whose schema did not carry its own. */
function genericExpected(issue: z.core.$ZodRawIssue): string | undefined {
  if (issue.code === 'invalid_type') {
    const phrases: Record<string, string> = {
      string: 'a string',
      boolean: 'true or false',
      number: 'a number',
      int: 'a whole number',
      array: 'a list',
      object: 'an object',
      record: 'an object',
    };
    return phrases[issue.expected] ?? `a ${issue.expected}`;
  }
  if (issue.code === 'invalid_value') return `one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`;
  return undefined;
}

function expectedOf(issue: z.core.$ZodIssue): string {
  if (issue.code === 'invalid_key' && issue.issues[0]) return issue.issues[0].message;
  return issue.message;
}

function describeIssue(issue: z.core.$ZodIssue, input: JsonObject, omitPath: boolean): string {
  const path = issue.path as (string | number)[];
  const found = issue.code === 'invalid_key' ? path[path.length - 1] : valueAt(input, path, issue.input);
  const where = omitPath ? '' : keyPath(path);
  const last = path.filter((p) => typeof p === 'string').pop();
  return `${where ? `${where}: ` : ''}expected ${expectedOf(issue)}, got ${describeValue(found, last)}`;
}

/** What the user wrote at `path` (before any transform), or the issue's own input when the path leads nowhere. */
function valueAt(root: unknown, path: (string | number)[], fallback: unknown): unknown {
  let v: unknown = root;
  for (const p of path) {
    if (Array.isArray(v) && typeof p === 'number') v = v[p];
    else if (isObject(v) && typeof p === 'string') v = Object.hasOwn(v, p) ? v[p] : undefined;
    else return fallback;
  }
  return v;
}

/** KEY.SUB[2]["/data/Mr. Robot/"]: config keys dotted, user-chosen keys (paths, priorities) quoted. */
function keyPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const p of path) {
    if (typeof p === 'number') out += `[${p}]`;
    else if (/^[A-Z][A-Z0-9_]*$/.test(String(p))) out += (out ? '.' : '') + String(p);
    else out += `[${JSON.stringify(String(p))}]`;
  }
  return out;
}

function describeValue(value: unknown, key?: string): string {
  if (value === undefined) return 'nothing';
  if (typeof value === 'string' && value !== '' && key && SECRET_KEYS.has(key)) return 'a string (not shown: it is a secret)';
  const json = JSON.stringify(value);
  if (json.length <= 60) return json;
  if (typeof value === 'string') return `${json.slice(0, 56)}..."`;
  return kindOf(value);
}

function kindOf(value: unknown): string {
  if (Array.isArray(value)) return `a list of ${value.length} item${value.length === 1 ? '' : 's'}`;
  if (value === null) return 'null';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'string') return 'a string';
  return JSON.stringify(value);
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

// ---------------------------------------------------------------- secrets

/** A copy safe to show in logs or the UI: every secret that is set reads "***" (an unset one stays ""). */
export function redactedConfig(config: Config): unknown {
  const hide = (s: string): string => (s === '' ? '' : '***');
  const copy = structuredClone(config);
  copy.SERVER_PASS = hide(copy.SERVER_PASS);
  copy.PLEX_TOKEN = hide(copy.PLEX_TOKEN);
  copy.SERVER_METRICS_TOKEN = hide(copy.SERVER_METRICS_TOKEN);
  copy.GOOGLE.CLIENT_SECRET = hide(copy.GOOGLE.CLIENT_SECRET);
  for (const t of copy.TARGETS) {
    if (t.TOKEN !== undefined) t.TOKEN = hide(t.TOKEN);
    if (t.PASSWORD !== undefined) t.PASSWORD = hide(t.PASSWORD);
  }
  copy.AUTOSCAN.PASSWORD = hide(copy.AUTOSCAN.PASSWORD);
  return copy;
}

/**
 * Every secret value that is set, for the logger to scrub. SERVER_PASS is also listed URL-encoded, the form in
 * which it appears in request URLs.
 */
export function secretsOf(config: Config): string[] {
  const values = [
    config.SERVER_PASS,
    encodeURIComponent(config.SERVER_PASS),
    config.PLEX_TOKEN,
    config.GOOGLE.CLIENT_SECRET,
    config.SERVER_METRICS_TOKEN,
    ...config.TARGETS.flatMap((t) => [t.TOKEN ?? '', t.PASSWORD ?? '']),
    config.AUTOSCAN.PASSWORD,
  ];
  return [...new Set(values.filter((v) => v !== ''))];
}
