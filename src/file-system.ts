// The file-system calls the running relay makes (existence checks, the watcher's walks, the scanner's checks), as
// promises over node:fs's callbacks. node:fs/promises makes the same calls, but loading it holds 1.1 MB of RSS
// on Node 24 and 0.6 MB on Node 20 for the life of the process, where node:fs is loaded by every Node program
// (measured in a one-line http server, docs/performance.md "Idle memory").
import { access as accessCallback, lstat as lstatCallback, readdir as readdirCallback, readFile as readFileCallback, stat as statCallback } from 'node:fs';
import { promisify } from 'node:util';

export const access = promisify(accessCallback);
export const lstat = promisify(lstatCallback);
export const readdir = promisify(readdirCallback);
export const readFile = promisify(readFileCallback);
export const stat = promisify(statCallback);
