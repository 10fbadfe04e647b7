// `scanrelay import-autoscan autoscan.yml`: writes a scanrelay config.json from an autoscan config, with a report.
import { Command } from 'commander';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { convertAutoscan } from '../config/from-autoscan.js';
import { configSchema } from '../config/schema.js';
import { parseYaml, YamlError } from '../config/yaml.js';

export function importAutoscanCommand(): Command {
  return new Command('import-autoscan')
    .description("turn an autoscan config.yml into a scanrelay config.json, and say what could not be carried over")
    .argument('<autoscan.yml>', "autoscan's config file")
    .option('-o, --output <file>', 'where to write the config.json (default: print it)')
    .option('--force', 'overwrite --output if it exists')
    .action((file: string, opts: { output?: string; force?: boolean }) => {
      let text: string;
      try {
        text = readFileSync(file, 'utf8');
      } catch (err) {
        return fail(`cannot read '${file}': ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
      }
      let parsed: unknown;
      try {
        parsed = parseYaml(text);
      } catch (err) {
        if (err instanceof YamlError) return fail(`'${file}' ${err.message}`);
        throw err;
      }
      const { config, report } = convertAutoscan(parsed);
      const checked = configSchema.safeParse(config);
      if (!checked.success) {
        const issue = checked.error.issues[0];
        return fail(`the converted config does not load (${issue.path.join('.')}: ${issue.message}); fix '${file}' and run again`);
      }
      const json = `${JSON.stringify(config, null, 2)}\n`;
      const lines = report.length ? report.map((r) => `  - ${r}`).join('\n') : '  (everything was carried over)';
      if (!opts.output) {
        process.stdout.write(json);
        process.stderr.write(`Not carried over, or carried differently:\n${lines}\n`);
        return;
      }
      if (existsSync(opts.output) && !opts.force) return fail(`'${opts.output}' exists; pass --force to overwrite it`);
      // It holds the Basic-auth password and the servers' tokens.
      writeFileSync(opts.output, json, { mode: 0o600 });
      chmodSync(opts.output, 0o600);
      process.stdout.write(`Wrote '${opts.output}'. Start it with: scanrelay --config '${opts.output}' server\nNot carried over, or carried differently:\n${lines}\n`);
    });
}

function fail(message: string): never {
  process.stderr.write(`import-autoscan: ${message}\n`);
  process.exit(1);
}
