// The file-system calls the running relay makes (existence checks, the watcher's walks, the scanner's checks,
// hash='s reads), as promises over node:fs's callbacks. node:fs/promises makes the same calls, but loading it
// holds 1.1 MB of RSS on Node 24 and 0.6 MB on Node 20 for the life of the process, where node:fs is loaded by
// every Node program (measured in a one-line http server, docs/performance.md "Idle memory").
import {
  access as accessCallback,
  fstat as fstatCallback,
  lstat as lstatCallback,
  open as openCallback,
  readdir as readdirCallback,
  readFile as readFileCallback,
  realpath as realpathCallback,
  stat as statCallback,
} from 'node:fs';

// promisify taken from Node, not imported: an ES import of node:util reads each of its exports, which loads its
// argument parser and text diff (and on Node 24 its colours): +0.9 MB of RSS on Node 24, +0.2 MB on Node 20, in a
// one-line http server.
const { promisify } = process.getBuiltinModule('node:util');

export const access = promisify(accessCallback);
export const lstat = promisify(lstatCallback);
export const readdir = promisify(readdirCallback);
export const readFile = promisify(readFileCallback);
export const stat = promisify(statCallback);
export const realpath = promisify(realpathCallback);
export const open = promisify(openCallback);
export const fstat = promisify(fstatCallback);
