// `scanrelay import-autoscan autoscan.yml`: writes a scanrelay config.json from an autoscan config, with a report.
import type { Command } from 'commander';
import { convertAutoscan } from '../config/from-autoscan.js';
import { importCommand } from './import-output.js';

export function importAutoscanCommand(): Command {
  return importCommand({
    name: 'import-autoscan',
    description: 'turn an autoscan config.yml into a scanrelay config.json, and say what could not be carried over',
    argument: ['<autoscan.yml>', "autoscan's config file"],
    format: () => 'yaml',
    holds: 'a mapping of port, triggers, targets …',
    convert: convertAutoscan,
  });
}
