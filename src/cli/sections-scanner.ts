// `scanrelay sections --scanner`: Plex's sections as the scanner's own --list reports them.
import type { Config } from '../config/schema.js';
import { listSections, type RunOptions, type ScannerSettings } from '../targets/plex/scanner.js';
import { scannerSettingsFrom } from '../targets/plex/scanner-target.js';

export interface SectionsOutput {
  out?: (line: string) => void;
  err?: (line: string) => void;
}

/**
 * Prints "Plex Sections:" and one "  <id>: <title>" line per section, or the scanner's raw output when no
 * line parses (its format is unverified). Resolves with the exit code: 1, with the cause printed, when the
 * scanner fails.
 */
export async function printScannerSections(
  source: Config | ScannerSettings,
  io: SectionsOutput = {},
  opts: RunOptions = {},
): Promise<number> {
  const out = io.out ?? ((line: string) => process.stdout.write(line + '\n'));
  const err = io.err ?? ((line: string) => process.stderr.write(line + '\n'));
  const settings = 'PLEX_SCANNER' in source ? scannerSettingsFrom(source) : source;
  let listed: Awaited<ReturnType<typeof listSections>>;
  try {
    listed = await listSections(settings, opts);
  } catch (e) {
    err(`error: cannot list sections with the scanner: ${(e as Error).message}`);
    return 1;
  }
  out('Plex Sections:');
  if (listed.sections.length === 0) {
    for (const line of listed.output.split(/\r?\n/)) if (line.trim()) out(line);
    if (!listed.output.trim()) out('  (the scanner listed no sections)');
    return 0;
  }
  for (const s of listed.sections) out(`  ${s.id}: ${s.title}`);
  return 0;
}
