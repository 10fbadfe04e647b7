#!/usr/bin/env node
// The `scanrelay` command's entry: when this file is the program being run, loads and runs the command line
// (run.ts). Loaded by import(), so that the bundle's entry stays these few lines and run.ts with what it needs is
// one chunk (scripts/bundle.mjs).
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** True when this file is the program being run (directly, through the npm bin link, or through tsx). */
function isMain(): boolean {
  try {
    return !!process.argv[1] && realpathSync(process.argv[1]) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}
if (isMain()) await (await import('./run.js')).run(process.argv);
