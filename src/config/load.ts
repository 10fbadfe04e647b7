// Reads, upgrades and validates config.json into a Config: missing keys added and written back, environment
// overrides (and secrets from the files _FILE variables name) applied on top, every mistake reported in one line
// naming the file, or the variable, and the key.
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type * as z from 'zod/mini';
import { defaultConfig } from './defaults.js';
import { ConfigError, errorText } from './error.js';
import { applyEnvironment, blameOf, type FileValue } from './environment.js';
import { describeIssue, genericExpected } from './issues.js';
import { parseJson, type JsonObject } from './json-file.js';
import { configSchema, newServerPass, type Config } from './schema.js';
import { addMissing, collectIgnored, sortKnownObjects } from './schema-walk.js';
import { unknownKeys, type UnknownKey } from './unknown-keys.js';

type ConfigSchema = ReturnType<typeof configSchema>;

// The loader's public face: callers need these beside loadConfig.
export { defaultConfig, ConfigError };
export { resolveSettings, type Settings } from './settings.js';
export { LEGACY_KEYS, type UnknownKey } from './unknown-keys.js';
export { secretsOf } from './secrets.js';

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
  /** Top-level keys whose value came from an environment variable of the same name (or the file its _FILE names). */
  envOverrides: string[];
  /** The values read from files named by _FILE variables (secrets kept out of the environment and the file). */
  fromFiles: FileValue[];
  /** Why the added keys could not be written back; the config loaded all the same. */
  writeError?: string;
}

interface LoadOptions {
  /** Write a new file, or the keys an upgrade added. Default true. */
  write?: boolean;
  /** Source of a new SERVER_PASS. */
  random?: () => string;
}

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
    const schema = configSchema();
    if (write) {
      try {
        mkdirSync(dirname(file), { recursive: true });
        writeFileSync(file, toFileText(fresh, schema), { mode: 0o600, flag: 'wx' });
      } catch (err) {
        // Running on with a random SERVER_PASS nobody can read back would only fail later and obscurely.
        throw new ConfigError(`${where}: there is no config file and a default one could not be created: ${errorText(err)}`);
      }
    }
    return { ...finish(file, fresh, env, [], schema), unknown: [], created: write };
  }

  const fromFile = parseJson(text, where);
  const schema = configSchema();
  // A new secret only for a file without one: making it loads node:crypto, which an idle relay can do without.
  const base = schema.parse({ SERVER_PASS: fromFile.SERVER_PASS === undefined ? random() : 'kept-from-the-file' }) as unknown as JsonObject;
  const added: string[] = [];
  const upgraded = addMissing(fromFile, base, schema, [], added) as JsonObject;

  // Validate before writing: a file with a mistake in it is reported, not rewritten.
  const result = finish(file, upgraded, env, added, schema);
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
      writeFileSync(file, toFileText(upgraded, schema));
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
  const schema = configSchema();
  finish(file, data, {}, [], schema);
  writeFileSync(file, toFileText(data, schema));
}

/** Applies env overrides, validates, and collects what is ignored. `upgraded` is what the file holds (or would). */
function finish(file: string, upgraded: JsonObject, env: NodeJS.ProcessEnv, added: string[], schema: ConfigSchema): Omit<LoadedConfig, 'created' | 'unknown'> {
  const fromEnv = applyEnvironment(upgraded, env, schema.shape as Record<string, z.ZodMiniType>);
  const { effective, envOverrides, fromFiles } = fromEnv;

  const ignored: string[] = [];
  collectIgnored(effective, schema, [], ignored);

  const parsed = schema.safeParse(effective, { reportInput: true, error: genericExpected });
  if (!parsed.success) {
    const issues = parsed.error.issues;
    const first = issues[0];
    const blame = blameOf(first.path, fromEnv);
    const where = blame?.where ?? `config error in ${file}`;
    const more = issues.length > 1 ? ` (and ${issues.length - 1} more problem${issues.length > 2 ? 's' : ''})` : '';
    // The variable already names a top-level key; repeating it would read "SERVER_PORT: SERVER_PORT: ...".
    throw new ConfigError(`${where}: ${describeIssue(first, effective, (blame?.fromEnv ?? false) && first.path.length === 1, blame?.hidden)}${more}`);
  }
  return { config: parsed.data, path: file, added, ignored, envOverrides, fromFiles };
}

/** JSON with 2-space indent and sorted keys like plex_autoscan's files. */
function toFileText(data: JsonObject, schema: ConfigSchema): string {
  return JSON.stringify(sortKnownObjects(data, schema), null, 2) + '\n';
}
