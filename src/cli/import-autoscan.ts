// `scanrelay import-autoscan autoscan.yml`: writes a scanrelay config.json from an autoscan config, with a report.
import type { Command } from 'commander';
import { convertAutoscan } from '../config/from-autoscan.js';
import { parseYaml, YamlError } from '../config/yaml.js';
import { importCommand, importFailed } from './import-output.js';

const NAME = 'import-autoscan';

export function importAutoscanCommand(): Command {
  return importCommand({
    name: NAME,
    description: 'turn an autoscan config.yml into a scanrelay config.json, and say what could not be carried over',
    argument: ['<autoscan.yml>', "autoscan's config file"],
    parse: (file, text) => {
      try {
        return parseYaml(text);
      } catch (err) {
        if (err instanceof YamlError) return importFailed(NAME, `'${file}' ${err.message}`);
        throw err;
      }
    },
    convert: convertAutoscan,
  });
}
