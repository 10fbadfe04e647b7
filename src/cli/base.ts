// What every `scanrelay` program starts from: its name, version, help and global flags.
import { Command } from 'commander';
import { version } from '../version.js';
import { addGlobalOptions } from './context.js';

export function baseProgram(): Command {
  const program = new Command('scanrelay')
    .description('Relay "this file changed" signals to Plex, Jellyfin and Emby as partial library scans.')
    .version(version, '-V, --version', 'print the version of scanrelay')
    .showHelpAfterError('(run with --help for usage)')
    .enablePositionalOptions(false);
  return addGlobalOptions(program);
}

/**
 * The command a command line runs: its first word that is neither a global flag nor a flag's value.
 * `scanrelay --config c.json server` is `server`.
 */
export function commandOf(args: readonly string[]): string | undefined {
  const flags = addGlobalOptions(new Command()).options;
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === '--') return args[i + 1];
    if (!a.startsWith('-')) return a;
    if (a.includes('=')) continue;
    const flag = flags.find((o) => o.long === a || o.short === a);
    if (flag?.required) i++;
  }
  return undefined;
}
