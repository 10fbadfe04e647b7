// What the import-* commands share once a foreign config is converted: check that it loads, then print it or
// write it (0600, never over a file without --force), with the report of what was not carried over.
import { chmodSync, existsSync, writeFileSync } from 'node:fs';
import type { Conversion } from '../config/from-autoscan.js';
import { configSchema } from '../config/schema.js';

export interface ImportOptions {
  output?: string;
  force?: boolean;
}

export function emitConversion(command: string, source: string, { config, report }: Conversion, opts: ImportOptions): void {
  const checked = configSchema.safeParse(config);
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
