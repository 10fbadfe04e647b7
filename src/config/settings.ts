// Where the files are and how much to log: each setting from its flag, its environment variable or a default.
import { join, resolve } from 'node:path';
import { ConfigError } from './error.js';

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
