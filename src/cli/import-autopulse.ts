// `scanrelay import-autopulse config.toml`: writes a scanrelay config.json from an autopulse config, with a report.
import type { Command } from 'commander';
import { extname } from 'node:path';
import { ConfigError } from '../config/error.js';
import { convertAutopulse } from '../config/from-autopulse.js';
import { parseJson } from '../config/json-file.js';
import { parseToml, TomlError } from '../config/toml.js';
import { parseYaml, YamlError } from '../config/yaml.js';
import { importCommand, importFailed } from './import-output.js';

const NAME = 'import-autopulse';

export function importAutopulseCommand(): Command {
  return importCommand({
    name: NAME,
    description: 'turn an autopulse config (config.toml, .yaml, .yml or .json) into a scanrelay config.json, and say what could not be carried over',
    argument: ['<config>', "autopulse's config file; its format is taken from the extension, as autopulse does"],
    parse: (file, text) => {
      const parsed = readAutopulse(file, text);
      if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return importFailed(NAME, `'${file}' holds no settings (expected a table/mapping of app, auth, triggers, targets …)`);
      return parsed;
    },
    convert: convertAutopulse,
  });
}

/** Parses by extension, as autopulse's Settings::get_settings does; a syntax error is one line naming the line. */
function readAutopulse(file: string, text: string): unknown {
  const ext = extname(file).toLowerCase();
  try {
    if (ext === '.toml') return parseToml(text);
    if (ext === '.yaml' || ext === '.yml') return parseYaml(text);
    if (ext === '.json') return parseJson(text, `'${file}'`);
  } catch (err) {
    if (err instanceof TomlError || err instanceof YamlError) return importFailed(NAME, `'${file}' ${err.message}`);
    if (err instanceof ConfigError) return importFailed(NAME, err.message);
    throw err;
  }
  return importFailed(NAME, `'${file}': autopulse reads .toml, .yaml, .yml and .json files; name the file after its format`);
}
