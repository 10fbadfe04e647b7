// `scanrelay import-autopulse config.toml`: writes a scanrelay config.json from an autopulse config, with a report.
import type { Command } from 'commander';
import { extname } from 'node:path';
import type { ForeignFormat } from '../config/foreign-limits.js';
import { convertAutopulse } from '../config/from-autopulse.js';
import { importCommand, importFailed } from './import-output.js';

const NAME = 'import-autopulse';

export function importAutopulseCommand(): Command {
  return importCommand({
    name: NAME,
    description: 'turn an autopulse config (config.toml, .yaml, .yml or .json) into a scanrelay config.json, and say what could not be carried over',
    argument: ['<config>', "autopulse's config file; its format is taken from the extension, as autopulse does"],
    format: autopulseFormat,
    holds: 'a table/mapping of app, auth, triggers, targets …',
    convert: convertAutopulse,
  });
}

/** By extension, as autopulse's Settings::get_settings does. */
function autopulseFormat(file: string): ForeignFormat {
  const ext = extname(file).toLowerCase();
  if (ext === '.toml') return 'toml';
  if (ext === '.yaml' || ext === '.yml') return 'yaml';
  if (ext === '.json') return 'json';
  return importFailed(NAME, `'${file}': autopulse reads .toml, .yaml, .yml and .json files; name the file after its format`);
}
