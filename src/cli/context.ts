// What every command needs first: settings (flags, env, defaults), the loaded config and a logger.
import type { Command } from 'commander';
import { dirname } from 'node:path';
import { ConfigError, loadConfig, resolveSettings, secretsOf, type LoadedConfig, type Settings } from '../config/load.js';
import { createLogger, normaliseLevel, type Logger } from '../log.js';
import { sizeInBytes } from '../log-file.js';

export interface GlobalFlags {
  config?: string;
  queuefile?: string;
  logfile?: string;
  loglevel?: string;
  cachefile?: string;
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
    .option('--loglevel <level>', 'WARN, INFO or DEBUG, any case (env SCANRELAY_LOGLEVEL; default INFO)')
    .option('--cachefile <file>', 'accepted for plex_autoscan compatibility; Drive data lives in the queue file');
}

/** Loads everything or exits with the one-line reason (a broken config must not start anything). */
export function loadContext(flags: GlobalFlags, opts: { consoleLog?: boolean; buffered?: boolean } = {}): CommandContext {
  try {
    const { settings, origins } = resolveSettings(flags, process.env, process.cwd());
    normaliseLevel(settings.loglevel);
    const loaded = loadConfig(settings.config, process.env);
    const logger = createLogger({
      level: settings.loglevel,
      file: settings.logfile === '-' ? undefined : settings.logfile,
      rotate: { maxBytes: sizeInBytes(loaded.config.LOG_MAX_SIZE), keep: loaded.config.LOG_KEEP },
      secrets: secretsOf(loaded.config),
      console: opts.consoleLog === false ? null : process.stdout,
      buffered: opts.buffered,
    });
    for (const key of Object.keys(origins) as (keyof Settings)[]) {
      logger.debug({ setting: key, value: settings[key], from: origins[key] }, `Using ${origins[key]} setting ${String(key)}=${settings[key]}`);
    }
    if (loaded.created) logger.info({ file: loaded.path }, `No config file found: wrote a default one to '${loaded.path}'. Edit it (PLEX_TOKEN, SERVER_PATH_MAPPINGS) and restart.`);
    if (loaded.writeError) logger.warn({ file: loaded.path }, `Could not write the added config keys back to '${loaded.path}' (${loaded.writeError}); running with their defaults anyway.`);
    for (const key of loaded.added) logger.info({ key }, `Added '${key}' config option with its default.`);
    for (const key of loaded.ignored) logger.debug({ key }, `Config key '${key}' is not used by scanrelay; ignored.`);
    for (const key of loaded.envOverrides) logger.info({ key }, `Using ENV setting ${key}.`);
    return { settings, loaded, logger, configDir: dirname(loaded.path) };
  } catch (err) {
    if (err instanceof ConfigError || (err as Error).message?.startsWith('unknown log level')) {
      process.stderr.write(`${(err as Error).message}\n`);
      process.exit(1);
    }
    throw err;
  }
}

/** The global flags as commander parsed them, from any subcommand. */
export function globalFlags(cmd: Command): GlobalFlags {
  return cmd.optsWithGlobals() as GlobalFlags;
}
