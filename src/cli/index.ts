#!/usr/bin/env node
// The `scanrelay` command's entry: holds V8's optimizing compilers before anything else is loaded (the server
// releases them the first time it is busy, any other command at once: src/cli/optimizers.ts), then loads and
// runs the command line (run.ts). The rest comes by import() so that, in the bundle too, none of it is evaluated
// before the hold.
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { holdOptimizers } from './optimizers.js';

/** True when this file is the program being run (directly, through the npm bin link, or through tsx). */
function isMain(): boolean {
  try {
    return !!process.argv[1] && realpathSync(process.argv[1]) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}
if (isMain()) {
  holdOptimizers();
  await (await import('./run.js')).run(process.argv);
}
