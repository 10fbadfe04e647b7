// `scanrelay sections`: list Plex library sections with their locations (plex_autoscan's `sections+`).
import { Command } from 'commander';
import { PlexApi } from '../targets/plex/api.js';
import { globalFlags, loadContext } from './context.js';

export function sectionsCommand(): Command {
  return new Command('sections')
    .alias('sections+')
    .description("list Plex library sections and their folders (through the API; --scanner asks Plex Media Scanner's --list)")
    .option('--scanner', 'ask the scanner executable (PLEX_SCANNER --list) instead of the HTTP API')
    .option('--json', 'print JSON')
    .action(async (opts: { scanner?: boolean; json?: boolean }, cmd: Command) => {
      const { loaded } = loadContext(globalFlags(cmd), { consoleLog: false });
      const { config } = loaded;
      if (opts.scanner) {
        const { printScannerSections } = await import('./sections-scanner.js');
        process.exitCode = await printScannerSections(config);
        return;
      }
      if (!config.PLEX_TOKEN) {
        process.stderr.write('PLEX_TOKEN is empty in the config: set it to list sections through the API, or use --scanner.\n');
        process.exitCode = 1;
        return;
      }
      try {
        const sections = await new PlexApi({ url: config.PLEX_LOCAL_URL, token: config.PLEX_TOKEN }).sections();
        if (opts.json) {
          process.stdout.write(JSON.stringify(sections, null, 2) + '\n');
          return;
        }
        for (const s of sections) {
          const head = `${s.id}) ${s.title}`;
          process.stdout.write(`${head}\n${'-'.repeat(head.length)}\n`);
          for (const l of s.locations) process.stdout.write(`${l.endsWith('/') ? l : l + '/'}\n`);
          process.stdout.write('\n');
        }
      } catch (err) {
        process.stderr.write(`${(err as Error).message}\n`);
        process.exitCode = 1;
      }
    });
}
