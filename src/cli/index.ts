#!/usr/bin/env node
// The `scanrelay` command: global flags (plex_autoscan's) and one subcommand per job.
import { Command } from 'commander';
import { addGlobalOptions } from './context.js';
import { serverCommand } from './server.js';
import { sectionsCommand } from './sections.js';

export function buildProgram(): Command {
  const program = new Command('scanrelay')
    .description('Relay "this file changed" signals to Plex, Jellyfin and Emby as partial library scans.')
    .version('0.1.0')
    .showHelpAfterError('(run with --help for usage)')
    .enablePositionalOptions(false);
  addGlobalOptions(program);
  program.addCommand(serverCommand());
  program.addCommand(sectionsCommand());
  program
    .command('update_config')
    .alias('update-config')
    .description('write missing config keys with their defaults (plex_autoscan compatibility) and exit')
    .action(async (_o, cmd: Command) => {
      const { loadContext, globalFlags } = await import('./context.js');
      const { loaded } = loadContext(globalFlags(cmd));
      process.stdout.write(`${loaded.path}: ${loaded.added.length ? `added ${loaded.added.join(', ')}` : 'up to date'}\n`);
    });
  return program;
}

const isMain = import.meta.url === `file://${process.argv[1]}` || process.argv[1]?.endsWith('/scanrelay') || process.argv[1]?.endsWith('cli/index.js');
if (isMain) {
  const program = buildProgram();
  if (process.argv.length <= 2) {
    program.outputHelp();
  } else {
    program.parseAsync(process.argv).catch((err) => {
      process.stderr.write(`${(err as Error).message}\n`);
      process.exit(1);
    });
  }
}
