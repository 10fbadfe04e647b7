// Where the config, queue, cache and log files are, and the log level: flag, then env, then default.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, resolveSettings, type Settings } from '../../src/config/load.js';

const cwd = join('/srv', 'scanrelay');

describe('resolveSettings', () => {
  it('defaults everything under the working directory', () => {
    const { settings, origins } = resolveSettings({}, {}, cwd);
    expect(settings).toEqual({
      config: join(cwd, 'config', 'config.json'),
      queuefile: join(cwd, 'queue.db'),
      logfile: join(cwd, 'scanrelay.log'),
      loglevel: 'INFO',
      cachefile: join(cwd, 'cache.db'),
    });
    expect(Object.values(origins)).toEqual(['default', 'default', 'default', 'default', 'default']);
  });

  const paths: (keyof Settings)[] = ['config', 'queuefile', 'logfile', 'cachefile'];
  it.each(paths)('%s: flag beats SCANRELAY_ beats PLEX_AUTOSCAN_', (key) => {
    const upper = key.toUpperCase();
    const env = { [`SCANRELAY_${upper}`]: '/from/scanrelay', [`PLEX_AUTOSCAN_${upper}`]: '/from/pas' };

    const all = resolveSettings({ [key]: '/from/flag' }, env, cwd);
    expect(all.settings[key]).toBe('/from/flag');
    expect(all.origins[key]).toBe('arg');

    const envOnly = resolveSettings({}, env, cwd);
    expect(envOnly.settings[key]).toBe('/from/scanrelay');
    expect(envOnly.origins[key]).toBe('env');

    const legacy = resolveSettings({}, { [`PLEX_AUTOSCAN_${upper}`]: '/from/pas' }, cwd);
    expect(legacy.settings[key]).toBe('/from/pas');
    expect(legacy.origins[key]).toBe('env');
  });

  it('resolves relative values against the working directory and expands $VARS like plex_autoscan', () => {
    const { settings } = resolveSettings(
      { queuefile: 'data/queue.db' },
      { SCANRELAY_CONFIG: '${HOME}/pas/config.json', PLEX_AUTOSCAN_LOGFILE: '$NOPE/x.log', HOME: '/home/me' },
      cwd,
    );
    expect(settings.queuefile).toBe(join(cwd, 'data', 'queue.db'));
    expect(settings.config).toBe('/home/me/pas/config.json');
    // An unknown variable stays as written (Python's expandvars), here making a relative path.
    expect(settings.logfile).toBe(join(cwd, '$NOPE', 'x.log'));
  });

  it('treats an empty flag or variable as not given', () => {
    const { settings, origins } = resolveSettings({ config: '' }, { SCANRELAY_CONFIG: '', PLEX_AUTOSCAN_CONFIG: '/pas.json' }, cwd);
    expect(settings.config).toBe('/pas.json');
    expect(origins.config).toBe('env');
  });

  it.each([
    ['debug', 'DEBUG'],
    ['Warn', 'WARN'],
    ['warning', 'WARN'],
    ['INFO', 'INFO'],
    ['error', 'ERROR'],
    ['trace', 'TRACE'],
  ])('accepts log level %s as %s', (given, expected) => {
    expect(resolveSettings({ loglevel: given }, {}, cwd).settings.loglevel).toBe(expected);
  });

  it('takes the log level from PLEX_AUTOSCAN_LOGLEVEL', () => {
    const { settings, origins } = resolveSettings({}, { PLEX_AUTOSCAN_LOGLEVEL: 'debug' }, cwd);
    expect(settings.loglevel).toBe('DEBUG');
    expect(origins.loglevel).toBe('env');
  });

  it('refuses an unknown log level, naming where it came from, in one line', () => {
    expect(() => resolveSettings({ loglevel: 'loud' }, {}, cwd)).toThrow(ConfigError);
    expect(() => resolveSettings({ loglevel: 'loud' }, {}, cwd)).toThrow(/^invalid log level "LOUD" from --loglevel: expected ERROR, WARN, INFO, DEBUG or TRACE/);
    expect(() => resolveSettings({}, { SCANRELAY_LOGLEVEL: 'verbose' }, cwd)).toThrow(/from SCANRELAY_LOGLEVEL/);
    try {
      resolveSettings({ loglevel: 'x' }, {}, cwd);
    } catch (err) {
      expect((err as Error).message).not.toContain('\n');
    }
  });
});
