// Writing a config.json for a test or a benchmark, and loading one as the service would (for tests of the schema).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig } from '../../src/config/load.js';
import type { Config } from '../../src/config/schema.js';

/** Writes `values` as `dir`/config.json (JSON; the mode if given) and returns the file's path. */
export function writeConfigFile(dir: string, values: object, opts: { mode?: number } = {}): string {
  const file = join(dir, 'config.json');
  writeFileSync(file, JSON.stringify(values), opts.mode === undefined ? undefined : { mode: opts.mode });
  return file;
}

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
        if (!(err instanceof ConfigError)) throw err;
        return (err as Error).message.replace(/^config error in .*?\.json: /, '');
      }
      throw new Error(`expected a ConfigError for ${JSON.stringify(content)}`);
    },
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}
