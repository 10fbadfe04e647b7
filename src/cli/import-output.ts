// What the import-* commands share: the command itself (read the file, parse, convert), then check that the result
// loads, and print it or write it (0600, never over a file without --force), with the report of what was not
// carried over.
import { Command } from 'commander';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import type { Conversion } from '../config/from-autoscan.js';
import { configSchema } from '../config/schema.js';

export interface ImportOptions {
  output?: string;
  force?: boolean;
}

export function emitConversion(command: string, source: string, { config, report }: Conversion, opts: ImportOptions): void {
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
    process.stderr.write(`Not carried over, or carried differently:\n${lines}\n`);
    return;
  }
  if (existsSync(opts.output) && !opts.force) return importFailed(command, `'${opts.output}' exists; pass --force to overwrite it`);
  // It holds the Basic-auth password and the servers' tokens.
  writeFileSync(opts.output, json, { mode: 0o600 });
  chmodSync(opts.output, 0o600);
  process.stdout.write(`Wrote '${opts.output}'. Start it with: scanrelay --config '${opts.output}' server\nNot carried over, or carried differently:\n${lines}\n`);
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
  /** The file's text as the foreign tool reads it (importFailed on a syntax error). */
  parse: (file: string, text: string) => unknown;
  convert: (parsed: unknown) => Conversion;
}

export function importCommand(c: ImportCommand): Command {
  return new Command(c.name)
    .description(c.description)
    .argument(...c.argument)
    .option('-o, --output <file>', 'where to write the config.json (default: print it)')
    .option('--force', 'overwrite --output if it exists')
    .action((file: string, opts: ImportOptions) => {
      let text: string;
      try {
        text = readFileSync(file, 'utf8');
      } catch (err) {
        return importFailed(c.name, `cannot read '${file}': ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
      }
      emitConversion(c.name, file, c.convert(c.parse(file, text)), opts);
    });
}
