// What every command needs first: settings (flags, env, defaults), the loaded config and a logger.
import type { Command } from 'commander';
import { dirname } from 'node:path';
import { compatibilityNotes } from '../config/compat.js';
import { Writable } from 'node:stream';
import { ConfigError, LEGACY_KEYS, loadConfig, resolveSettings, secretsOf, type LoadedConfig, type Settings } from '../config/load.js';
import { createLogger, normaliseLevel, type Logger } from '../log/logger.js';
import { consoleFormat, LogFormatError, parseLogFormat } from '../log/format.js';
import { sizeInBytes } from '../log/file.js';

export interface GlobalFlags {
  config?: string;
  queuefile?: string;
  logfile?: string;
  loglevel?: string;
  cachefile?: string;
  logFormat?: string;
}

export interface CommandContext {
  settings: Settings;
  loaded: LoadedConfig;
  logger: Logger;
  configDir: string;
}

/** Registers plex_autoscan's global flags on the program. */
export function addGlobalOptions(program: Command): Command {
  return program
    .option('--config <file>', 'config.json to use (env SCANRELAY_CONFIG or PLEX_AUTOSCAN_CONFIG; default ./config/config.json)')
    .option('--queuefile <file>', 'SQLite queue file (env SCANRELAY_QUEUEFILE; default ./queue.db)')
    .option('--logfile <file>', 'log file, rotated by LOG_MAX_SIZE; "-" for none (env SCANRELAY_LOGFILE; default ./scanrelay.log)')
    .option('--loglevel <level>', 'ERROR, WARN, INFO, DEBUG or TRACE, any case (env SCANRELAY_LOGLEVEL; default INFO)')
    .option('--cachefile <file>', 'accepted for plex_autoscan compatibility; Drive data lives in the queue file')
    .option('--log-format <format>', 'console lines: human or json (default: human on a terminal, else json; the log file is always json)');
}

/** Loads everything or exits with the one-line reason (a broken config must not start anything). */
export function loadContext(flags: GlobalFlags, opts: { consoleLog?: boolean | 'plain'; buffered?: boolean } = {}): CommandContext {
  try {
    const { settings, origins } = resolveSettings(flags, process.env, process.cwd());
    normaliseLevel(settings.loglevel);
    const format = consoleFormat(parseLogFormat(flags.logFormat));
    const loaded = loadConfig(settings.config, process.env);
    const logger = createLogger({
      level: settings.loglevel,
      file: settings.logfile === '-' ? undefined : settings.logfile,
      rotate: { maxBytes: sizeInBytes(loaded.config.LOG_MAX_SIZE), keep: loaded.config.LOG_KEEP },
      secrets: secretsOf(loaded.config),
      console: opts.consoleLog === false ? null : opts.consoleLog === 'plain' ? plainConsole() : process.stdout,
      buffered: opts.buffered,
      format,
    });
    for (const key of Object.keys(origins) as (keyof Settings)[]) {
      logger.debug({ setting: key, value: settings[key], from: origins[key] }, `Using ${origins[key]} setting ${String(key)}=${settings[key]}`);
    }
    if (loaded.created) logger.info({ file: loaded.path }, `No config file found: wrote a default one to '${loaded.path}'. Edit it (PLEX_TOKEN, SERVER_PATH_MAPPINGS) and restart.`);
    if (loaded.writeError) logger.warn({ file: loaded.path }, `Could not write the added config keys back to '${loaded.path}' (${loaded.writeError}); running with their defaults anyway.`);
    // An upgrade from plex_autoscan adds a dozen keys: one line lists them instead of a screenful.
    if (loaded.added.length === 1) logger.info({ key: loaded.added[0] }, `Added '${loaded.added[0]}' config option with its default.`);
    else if (loaded.added.length > 1) logger.info({ keys: loaded.added }, `Added ${loaded.added.length} config options with their defaults: ${loaded.added.join(', ')}.`);
    if (loaded.backup) logger.info({ file: loaded.backup }, `Copied the config to '${loaded.backup}' before writing the added keys.`);
    for (const note of compatibilityNotes(loaded.config)) logger[note.level]({ key: note.key }, note.text);
    const unknown = new Set(loaded.unknown.map((u) => u.key));
    for (const u of loaded.unknown) {
      logger.warn(
        { key: u.key, line: u.line },
        `Unknown config key '${u.key}'${u.line ? ` on line ${u.line}` : ''} of '${loaded.path}'${u.suggestion ? `: did you mean '${u.suggestion}'?` : '.'} It has no effect.`,
      );
    }
    for (const key of loaded.ignored) {
      if (unknown.has(key)) continue;
      // A legacy key gets a visible line: the user may believe it still does something.
      if (LEGACY_KEYS.has(key)) logger.info({ key }, `Config key '${key}' is not used by scanrelay; ignored (accepted for compatibility: docs/configuration.md says what replaces it).`);
      else logger.debug({ key }, `Config key '${key}' is not used by scanrelay; ignored.`);
    }
    // A secret read from a file is named with its file, never shown.
    const fromFile = new Map(loaded.fromFiles.map((f) => [f.key, f]));
    for (const key of loaded.envOverrides) {
      const read = fromFile.get(key);
      logger.info({ key }, read ? `Using ENV setting ${key} from the file ${read.file} (${read.variable}).` : `Using ENV setting ${key}.`);
    }
    for (const read of loaded.fromFiles.filter((f) => f.path.length > 1)) {
      logger.info({ key: read.key, variable: read.variable }, `Using ${read.key} from the file ${read.file} (${read.variable}).`);
    }
    return { settings, loaded, logger, configDir: dirname(loaded.path) };
  } catch (err) {
    if (err instanceof ConfigError || err instanceof LogFormatError || (err as Error).message?.startsWith('unknown log level')) {
      process.stderr.write(`${(err as Error).message}\n`);
      process.exit(1);
    }
    throw err;
  }
}

/**
 * Console lines as plain sentences (warnings and errors on stderr), for the commands a person runs by hand and
 * reads like the others' output; the log file keeps the structured lines.
 */
function plainConsole(): Writable {
  return new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) {
        let entry: { level?: string; msg?: string };
        try {
          entry = JSON.parse(line) as typeof entry;
        } catch {
          entry = { msg: line };
        }
        const toErr = entry.level === 'error' || entry.level === 'warn' || entry.level === 'fatal';
        (toErr ? process.stderr : process.stdout).write(`${entry.msg ?? line}\n`);
      }
      done();
    },
  });
}

/** The global flags as commander parsed them, from any subcommand. */
export function globalFlags(cmd: Command): GlobalFlags {
  return cmd.optsWithGlobals() as GlobalFlags;
}
