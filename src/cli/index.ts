#!/usr/bin/env node
// The `scanrelay` command: global flags (plex_autoscan's) and one subcommand per job. `server` is built here
// with the server's modules only; any other command line loads the whole program (program.ts) first, so a
// running relay never loads the rclone wizard, the importers, backup, check and the rest (docs/performance.md).
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
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

/** True when this file is the program being run (directly, through the npm bin link, or through tsx). */
function isMain(): boolean {
  try {
    return !!process.argv[1] && realpathSync(process.argv[1]) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}
if (isMain()) {
  const program = await programFor(process.argv.slice(2));
  if (process.argv.length <= 2) {
    program.outputHelp();
  } else {
    program.parseAsync(process.argv).catch((err) => {
      process.stderr.write(`${(err as Error).message}\n`);
      process.exit(1);
    });
  }
}
