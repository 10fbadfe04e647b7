// `scanrelay import-autoscan autoscan.yml`: writes a scanrelay config.json from an autoscan config, with a report.
import { Command } from 'commander';
import { readFileSync } from 'node:fs';
import { convertAutoscan } from '../config/from-autoscan.js';
import { parseYaml, YamlError } from '../config/yaml.js';
import { emitConversion, importFailed, type ImportOptions } from './import-output.js';

const NAME = 'import-autoscan';

export function importAutoscanCommand(): Command {
  return new Command(NAME)
    .description("turn an autoscan config.yml into a scanrelay config.json, and say what could not be carried over")
    .argument('<autoscan.yml>', "autoscan's config file")
    .option('-o, --output <file>', 'where to write the config.json (default: print it)')
    .option('--force', 'overwrite --output if it exists')
    .action((file: string, opts: ImportOptions) => {
      let text: string;
      try {
        text = readFileSync(file, 'utf8');
      } catch (err) {
        return importFailed(NAME, `cannot read '${file}': ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
      }
      let parsed: unknown;
      try {
        parsed = parseYaml(text);
      } catch (err) {
        if (err instanceof YamlError) return importFailed(NAME, `'${file}' ${err.message}`);
        throw err;
      }
      emitConversion(NAME, file, convertAutoscan(parsed), opts);
    });
}
