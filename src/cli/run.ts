// Runs a `scanrelay` command line. `server` is built here with the server's modules only; any other command line
// loads the whole program (program.ts) first, so a running relay never loads the rclone wizard, the importers,
// backup, check and the rest (docs/performance.md).
import type { Command } from 'commander';
import { addGlobalOptions } from './context.js';
import { baseProgram, commandOf } from './base.js';
import { serverCommand } from './server.js';

/** The program for a command line: just the server for `server`, else every command. */
export async function programFor(args: readonly string[]): Promise<Command> {
  if (commandOf(args) === 'server') {
    const program = baseProgram();
    program.addCommand(addGlobalOptions(serverCommand()));
    return program;
  }
  return (await import('./program.js')).buildProgram();
}

/** Parses and runs `argv` (process.argv's shape); help when no command is given. */
export async function run(argv: readonly string[]): Promise<void> {
  const program = await programFor(argv.slice(2));
  if (argv.length <= 2) {
    program.outputHelp();
    return;
  }
  program.parseAsync([...argv]).catch((err) => {
    process.stderr.write(`${(err as Error).message}\n`);
    process.exit(1);
  });
}
