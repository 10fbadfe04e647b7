// docs/configuration.md's "New keys" row (under "Differences from plex_autoscan") names every key a config that
// plex_autoscan wrote does not have: the list is compared with what loading such a config adds.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { ownFixtureText, repoRoot } from '../support/fixtures.js';

describe('docs/configuration.md: New keys', () => {
  it('lists every key that loading plex_autoscan\'s generated config adds', () => {
    const dir = mkdtempSync(join(tmpdir(), 'scanrelay-newkeys-'));
    const file = join(dir, 'config.json');
    writeFileSync(file, ownFixtureText('config/plex_autoscan-generated.json'));
    const { added } = loadConfig(file, {}, { write: false });
    const doc = readFileSync(join(repoRoot, 'docs', 'configuration.md'), 'utf8');
    const row = doc.split('\n').find((l) => l.startsWith('| New keys |'));
    expect(row, 'a "| New keys |" row').toBeDefined();
    const named = new Set([...row!.matchAll(/`([A-Z0-9_]+)`/g)].map((m) => m[1]));
    // A block's own keys are named without the block ("under `GOOGLE`: `TOKEN_FILE`").
    const missing = added.filter((key) => !named.has(key.split('.').at(-1)!));
    expect(missing).toEqual([]);
    expect(added.length).toBeGreaterThan(10);
  });
});
