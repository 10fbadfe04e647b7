// Writing a config.json to a temporary folder and loading it as the service would: for tests of the schema.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/load.js';
import type { Config } from '../../src/config/schema.js';

export interface ConfigFiles {
  /** Loads `content` as a config.json (without writing back) and returns the config. */
  load(content: object): Config;
  /** The part of the ConfigError after the file name (fails the test when the content loads). */
  problem(content: object): string;
  /** Removes the temporary folder. */
  cleanup(): void;
}

export function configFiles(prefix = 'scanrelay-config-'): ConfigFiles {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  let n = 0;
  const load = (content: object): Config => {
    const file = join(dir, `c${n++}.json`);
    writeFileSync(file, JSON.stringify(content));
    return loadConfig(file, {}, { write: false }).config;
  };
  return {
    load,
    problem(content) {
      try {
        load(content);
      } catch (err) {
        expect(err).toBeInstanceOf(ConfigError);
        return (err as Error).message.replace(/^config error in .*?\.json: /, '');
      }
      throw new Error(`expected a ConfigError for ${JSON.stringify(content)}`);
    },
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}
