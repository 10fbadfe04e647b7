// `scanrelay scan`: run Plex's scanner on one folder right now, without the service (docs/targets.md).
import { Command, InvalidArgumentError } from 'commander';
import { isInside, sameFolder } from '../paths/folder.js';
import { describeRefusal, gatePath } from '../paths/gate.js';
import { scanSection, ScannerError, type ScannerSettings } from '../targets/plex/scanner.js';

export interface SectionLocation {
  id: number | string;
  title: string;
  location: string;
}

export interface ScanCommandDeps {
  /** Scanner settings from the loaded config; called when the command runs, after global options are parsed. */
  settings: () => ScannerSettings | Promise<ScannerSettings>;
  /** Sections whose folders may hold `path` (from the Plex database or API), used when --section is absent. */
  findSections: (path: string) => Promise<SectionLocation[]>;
  /** Where progress and the scanner's own output go; defaults to stdout. */
  out?: (line: string) => void;
  /** Kill a scanner run after this long (0 = never). */
  timeoutMs?: number;
}

function sectionId(value: string): string {
  if (!/^\d+$/.test(value.trim())) throw new InvalidArgumentError('a section id is a whole number, e.g. 1');
  return value.trim();
}

export function scanCommand(deps: ScanCommandDeps): Command {
  const out = deps.out ?? ((line: string) => process.stdout.write(line + '\n'));
  const command: Command = new Command('scan')
    .description("Scan one folder now with Plex's own scanner (Plex Media Scanner), without the service")
    .requiredOption('-d, --directory <path>', 'the folder exactly as Plex sees it (movie, show or season folder)')
    .option('-s, --section <id>', 'library section id (default: every section whose folder holds the path)', sectionId)
    .option('--library-root', "scan the path even when it is a section's own folder, which scans the whole section")
    .addHelpText(
      'after',
      `
Runs <PLEX_SCANNER> --scan --refresh --section <id> --directory <path> with LD_LIBRARY_PATH and
PLEX_MEDIA_SERVER_APPLICATION_SUPPORT_DIR from the config, as PLEX_USER through sudo (USE_SUDO) or
inside the container with docker exec (USE_DOCKER, DOCKER_NAME). The path is passed as one argument,
never through a shell, so spaces, quotes and $(...) in it are safe.

Examples:
  scanrelay scan --section 1 --directory '/data/media/movies/Dune Part Two (2024)'
  scanrelay scan --directory '/data/media/tv/The Expanse (2015)/Season 01'

A section's own folder (say /data/media/tv) is refused: the scanner would rescan the whole section.
Pass --library-root when that is what you want.

Exits non-zero, naming the cause, when the scanner exits non-zero, crashes or reports "permission denied".
List section ids with: scanrelay sections --scanner`,
    )
    .action(async (options: { directory: string; section?: string; libraryRoot?: boolean }) => {
      if (!options.directory.trim()) command.error('error: --directory is empty', { exitCode: 2, code: 'scanrelay.scan.usage' });
      // The same path gate as every other source (src/paths/gate.ts); "." and ".." come back resolved.
      const gate = gatePath(options.directory, {});
      if (!gate.ok) command.error(`error: ${describeRefusal(options.directory, gate)}`, { exitCode: 2, code: 'scanrelay.scan.path' });
      const directory = gate.ok ? gate.path : options.directory;
      const settings = await deps.settings();

      let targets: { id: number | string; label: string }[];
      let found: SectionLocation[] | undefined;
      if (options.section !== undefined) {
        targets = [{ id: options.section, label: `section ${options.section}` }];
        // Only to tell a section's own folder: when the sections cannot be read, the section named decides.
        if (!options.libraryRoot) found = await deps.findSections(directory).catch(() => undefined);
      } else {
        let all: SectionLocation[];
        try {
          all = await deps.findSections(directory);
        } catch (err) {
          command.error(
            `error: cannot look up the section for '${directory}': ${(err as Error).message}; pass --section <id> (see: scanrelay sections --scanner)`,
            { exitCode: 1, code: 'scanrelay.scan.sections' },
          );
        }
        found = all;
        const holding = all.filter((s) => isInside(directory, s.location));
        const seen = new Set<string>();
        targets = holding
          .filter((s) => !seen.has(String(s.id)) && seen.add(String(s.id)))
          .map((s) => ({ id: s.id, label: `section ${s.id} (${s.title})` }));
        if (targets.length === 0) {
          const known = all.map((s) => s.location);
          command.error(
            `error: no Plex section holds '${directory}'${known.length ? ` (section folders: ${known.join(', ')})` : ''}; pass --section <id> (see: scanrelay sections --scanner)`,
            { exitCode: 1, code: 'scanrelay.scan.unmatched' },
          );
        }
      }

      // The service's library-root guard (src/targets/library-root.ts), here because this command asks the scanner itself.
      const root = options.libraryRoot ? undefined : found?.find((s) => targets.some((t) => String(t.id) === String(s.id)) && sameFolder(directory, s.location));
      if (root) {
        command.error(
          `error: '${directory}' is the root of section ${root.id} (${root.title}), so scanning it would scan the whole section: pass --library-root to do that, or name a folder inside it`,
          { exitCode: 1, code: 'scanrelay.scan.library-root' },
        );
      }

      for (const target of targets) {
        out(`Scanning '${directory}' in ${target.label}...`);
        try {
          await scanSection(settings, target.id, directory, { timeoutMs: deps.timeoutMs, onLine: out });
        } catch (err) {
          const message = err instanceof ScannerError ? err.message : (err as Error).message;
          command.error(`error: scan of '${directory}' in ${target.label} failed: ${message}`, {
            exitCode: 1,
            code: 'scanrelay.scan.failed',
          });
        }
        out(`Scanned '${directory}' in ${target.label}.`);
      }
    });
  return command;
}
