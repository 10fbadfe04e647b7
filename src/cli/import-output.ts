// What the import-* commands share: the command itself (read the file under the import's limits, convert), then
// check that the result loads, and print it or write it (0600, never over a file without --force), with the report
// of what was not carried over. Nothing is written unless every step passed.
import { Command } from 'commander';
import { chmodSync, existsSync, writeFileSync } from 'node:fs';
import { ForeignConfigError, type ForeignFormat } from '../config/foreign-limits.js';
import type { Conversion, Obj } from '../config/from-autoscan.js';
import { isObject } from '../config/json-file.js';
import { configSchema } from '../config/schema.js';

export interface ImportOptions {
  output?: string;
  force?: boolean;
}

export function emitConversion(command: string, source: string, { config, report, generated = [] }: Conversion, opts: ImportOptions): void {
  const checked = configSchema().safeParse(config);
  if (!checked.success) {
    const issue = checked.error.issues[0];
    return importFailed(command, `the converted config does not load (${issue.path.join('.')}: ${issue.message}); fix '${source}' and run again`);
  }
  const json = `${JSON.stringify(config, null, 2)}\n`;
  const lines = report.length ? report.map((r) => `  - ${r}`).join('\n') : '  (everything was carried over)';
  if (!opts.output) {
    // The config alone on stdout, so it can be redirected; the report beside it on stderr.
    process.stdout.write(json);
    process.stderr.write(`Not carried over, or carried differently:\n${lines}\n${madeUp(generated, 'in the config printed on stdout')}`);
    return;
  }
  if (existsSync(opts.output) && !opts.force) return importFailed(command, `'${opts.output}' exists; pass --force to overwrite it`);
  // It holds the Basic-auth password and the servers' tokens.
  writeFileSync(opts.output, json, { mode: 0o600 });
  chmodSync(opts.output, 0o600);
  process.stdout.write(`Wrote '${opts.output}'. Start it with: scanrelay --config '${opts.output}' server\nNot carried over, or carried differently:\n${lines}\n${madeUp(generated, `in '${opts.output}'`)}`);
}

/** Where the values the import made up (random passwords) are: the senders need them. */
function madeUp(keys: string[], where: string): string {
  return keys.map((key) => `New random ${key}: ${where}, under ${key}; give it to each sender.\n`).join('');
}

export function importFailed(command: string, message: string): never {
  process.stderr.write(`${command}: ${message}\n`);
  process.exit(1);
}

export interface ImportCommand {
  name: string;
  description: string;
  /** The argument's name and what it is, for --help. */
  argument: [string, string];
  /** The file's format, as the foreign tool tells it (importFailed when it cannot). */
  format: (file: string) => ForeignFormat;
  /** What the file's top level holds, for the error when it is not a mapping. */
  holds: string;
  convert: (settings: Obj) => Conversion;
}

export function importCommand(c: ImportCommand): Command {
  return new Command(c.name)
    .description(c.description)
    .argument(...c.argument)
    .option('-o, --output <file>', 'where to write the config.json (default: print it)')
    .option('--force', 'overwrite --output if it exists')
    .action(async (file: string, opts: ImportOptions) => {
      const format = c.format(file);
      // The parsers are in this module's chunk of the bundle, which only the import commands load.
      const { readForeignConfig, withinStack } = await import('../config/foreign-config.js');
      let conversion: Conversion;
      try {
        const settings = readForeignConfig(file, format);
        if (!isObject(settings)) return importFailed(c.name, `'${file}' holds no settings (expected ${c.holds})`);
        conversion = withinStack(() => c.convert(settings));
      } catch (err) {
        if (!(err instanceof ForeignConfigError)) throw err;
        return importFailed(c.name, `'${file}'${err.line === undefined ? ':' : ` line ${err.line}:`} ${err.reason}`);
      }
      emitConversion(c.name, file, conversion, opts);
    });
}
