// The secrets a config holds: hidden in dumps, handed to the logger for scrubbing.
import { describe, expect, it } from 'vitest';
import { redactedConfig, secretsOf } from '../../src/config/load.js';
import { configSchema } from '../../src/config/schema.js';

const config = configSchema.parse({
  SERVER_PASS: 'pass with space',
  PLEX_TOKEN: 'plex-token-1',
  SERVER_METRICS_TOKEN: 'metrics-token-1',
  GOOGLE: { CLIENT_ID: 'client-id', CLIENT_SECRET: 'client-secret-1' },
  TARGETS: [
    { NAME: 'jf', TYPE: 'jellyfin', URL: 'http://jf:8096', TOKEN: 'jf-token-1' },
    { NAME: 'local', TYPE: 'plex-scanner' },
  ],
});

describe('redactedConfig', () => {
  it('hides every secret that is set and leaves the rest, without touching the original', () => {
    const shown = redactedConfig(config) as typeof config;
    expect(shown.SERVER_PASS).toBe('***');
    expect(shown.PLEX_TOKEN).toBe('***');
    expect(shown.SERVER_METRICS_TOKEN).toBe('***');
    expect(shown.GOOGLE.CLIENT_SECRET).toBe('***');
    expect(shown.TARGETS[0].TOKEN).toBe('***');
    expect(shown.TARGETS[1].TOKEN).toBeUndefined();
    expect(shown.GOOGLE.CLIENT_ID).toBe('client-id');
    expect(shown.TARGETS[0].URL).toBe('http://jf:8096');
    expect(config.PLEX_TOKEN).toBe('plex-token-1');
    expect(JSON.stringify(shown)).not.toMatch(/token-1|secret-1|pass with space/);
  });

  it('shows an unset secret as empty, so a dump tells set from unset', () => {
    const shown = redactedConfig(configSchema.parse({ SERVER_PASS: 'p' })) as typeof config;
    expect(shown.PLEX_TOKEN).toBe('');
    expect(shown.SERVER_PASS).toBe('***');
  });
});

describe('secretsOf', () => {
  it('lists every secret value that is set, SERVER_PASS also as it appears in a URL', () => {
    expect(secretsOf(config).sort()).toEqual(
      ['pass with space', 'pass%20with%20space', 'plex-token-1', 'metrics-token-1', 'client-secret-1', 'jf-token-1'].sort(),
    );
  });

  it('leaves out unset ones', () => {
    expect(secretsOf(configSchema.parse({ SERVER_PASS: 'abcdef' }))).toEqual(['abcdef']);
  });
});
