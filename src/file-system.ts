// The file-system calls the running relay makes (existence checks, the watcher's walks, the scanner's checks,
// hash='s reads), as promises over node:fs's callbacks. node:fs/promises makes the same calls, but stays loaded
// for the life of the process once imported, where node:fs is loaded by every Node program.
import { promisify } from 'node:util';
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

export const access = promisify(accessCallback);
export const lstat = promisify(lstatCallback);
export const readdir = promisify(readdirCallback);
export const readFile = promisify(readFileCallback);
export const stat = promisify(statCallback);
export const realpath = promisify(realpathCallback);
export const open = promisify(openCallback);
export const fstat = promisify(fstatCallback);
