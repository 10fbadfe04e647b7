// ARR: the apps whose history scanrelay reads. A bad entry stops the start with its key named, as every config error
// does; the API key is a secret (scrubbed from every log line, never printed in an error); the block may come from
// the environment like any key.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig, secretsOf } from '../../src/config/load.js';
import { isSecretKey } from '../../src/config/secrets.js';
import { runCli } from '../support/child.js';
import { configFiles, writeConfigFile } from '../support/config-file.js';

const files = configFiles('scanrelay-arr-config-');
afterAll(() => files.cleanup());

const sonarr = { NAME: 'sonarr', TYPE: 'sonarr', URL: 'http://sonarr:8989', API_KEY: 'arr-key-sonarr-5f0c1e9a7b2d' };

describe('ARR entries', () => {
  it('are read with CATCH_UP_INTERVAL 300 s and RECONCILE_INTERVAL 24 h by default and TYPE in any case; an empty ARR is the default', () => {
    expect(files.load({}).ARR).toEqual([]);
    expect(files.load({ ARR: [{ ...sonarr, TYPE: 'Sonarr' }, { NAME: 'books', TYPE: 'readarr', URL: 'https://readarr.example/readarr', API_KEY: 'k2', CATCH_UP_INTERVAL: 60, RECONCILE_INTERVAL: 0 }] }).ARR).toEqual([
      { ...sonarr, CATCH_UP_INTERVAL: 300, RECONCILE_INTERVAL: 24 },
      { NAME: 'books', TYPE: 'readarr', URL: 'https://readarr.example/readarr', API_KEY: 'k2', CATCH_UP_INTERVAL: 60, RECONCILE_INTERVAL: 0 },
    ]);
  });

  it.each([
    [{ ...sonarr, TYPE: 'sickrage' }, 'ARR[0].TYPE: expected one of "sonarr", "radarr", "lidarr", "readarr", "whisparr", got "sickrage"'],
    [{ ...sonarr, URL: undefined }, 'ARR[0].URL: expected an http:// or https:// URL, got nothing'],
    [{ ...sonarr, URL: 'ftp://sonarr:21' }, 'ARR[0].URL: expected an http:// or https:// URL, got "ftp://sonarr:21"'],
    [{ ...sonarr, URL: 'sonarr:8989' }, 'ARR[0].URL: expected an http:// or https:// URL, got "sonarr:8989"'],
    [{ ...sonarr, API_KEY: '' }, 'ARR[0].API_KEY: expected the app\'s API key (Settings > General > Security > API Key), got ""'],
    [{ ...sonarr, NAME: 'my sonarr' }, 'ARR[0].NAME: expected a name made of letters, digits, "_", "." or "-", got "my sonarr"'],
    [{ ...sonarr, CATCH_UP_INTERVAL: 0 }, 'ARR[0].CATCH_UP_INTERVAL: expected a number of seconds greater than 0, got 0'],
    [{ ...sonarr, RECONCILE_INTERVAL: -1 }, 'ARR[0].RECONCILE_INTERVAL: expected a number of hours, 0 (never) or more, got -1'],
  ])('%j stops the start: %s', (entry, message) => {
    expect(files.problem({ ARR: [entry] })).toBe(message);
  });

  it('two entries of one name are refused, and an API key of the wrong type is not printed', () => {
    expect(files.problem({ ARR: [sonarr, { ...sonarr, NAME: 'Sonarr' }] })).toBe('ARR[1].NAME: expected a name not already used by ARR[0], got "Sonarr"');
    expect(isSecretKey(['ARR', 0, 'API_KEY'])).toBe(true);
    expect(files.problem({ ARR: [{ ...sonarr, API_KEY: ['arr-key-sonarr-5f0c1e9a7b2d'] }] })).not.toContain('arr-key-sonarr');
  });

  it('the API keys are secrets the logger scrubs', () => {
    const config = files.load({ SERVER_PASS: 'p4ss', ARR: [sonarr, { ...sonarr, NAME: 'radarr', TYPE: 'radarr', API_KEY: 'arr-key-radarr-91d3c07e4a6b' }] });
    expect(secretsOf(config)).toEqual(expect.arrayContaining(['arr-key-sonarr-5f0c1e9a7b2d', 'arr-key-radarr-91d3c07e4a6b']));
  });

  it('ARR from the environment, as JSON, replaces the file\'s; a bad one names the variable', () => {
    const dir = mkdtempSync(join(tmpdir(), 'scanrelay-arr-env-'));
    const file = writeConfigFile(dir, { SERVER_PASS: 'p4ss', ARR: [] });
    const loaded = loadConfig(file, { ARR: JSON.stringify([sonarr]) }, { write: false });
    expect(loaded.config.ARR).toEqual([{ ...sonarr, CATCH_UP_INTERVAL: 300, RECONCILE_INTERVAL: 24 }]);
    expect(loaded.envOverrides).toEqual(['ARR']);
    expect(() => loadConfig(file, { ARR: JSON.stringify([{ ...sonarr, TYPE: 'plex' }]) }, { write: false })).toThrow(
      'config error in environment variable ARR: ARR[0].TYPE: expected one of "sonarr", "radarr", "lidarr", "readarr", "whisparr", got "plex"',
    );
  });

  it('a server with a bad entry does not start, and says which key', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'scanrelay-arr-start-'));
    writeConfigFile(dir, { SERVER_PASS: 'p4ss', ARR: [{ ...sonarr, URL: 'sonarr:8989' }] });
    const child = runCli(['server', '--config', join(dir, 'config.json'), '--queuefile', join(dir, 'q.db'), '--logfile', '-'], { cwd: dir });
    expect(await child.exited).toBe(1);
    expect(child.output()).toContain('ARR[0].URL: expected an http:// or https:// URL, got "sonarr:8989"');
    expect(child.output()).not.toContain(sonarr.API_KEY);
  });
});
