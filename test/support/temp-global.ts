// Vitest global setup: every temporary folder of the run (the tests', their child processes', the browsers') is made
// inside one folder of the run's own, removed when the run ends, so a run leaves nothing behind in the system's
// temporary folder. TMPDIR is set before the workers start: os.tmpdir() reads it, and every child process inherits it.
import { chmodSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export default function setup(): () => void {
  const dir = mkdtempSync(join(tmpdir(), 'scanrelay-test-'));
  // As open as the system's own (sticky, anyone may write): some tests run the relay as another user.
  chmodSync(dir, 0o1777);
  const before = process.env.TMPDIR;
  process.env.TMPDIR = dir;
  return () => {
    if (before === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = before;
    // Tried again while anything is left: a process the run started may still be ending, its files going while the
    // removal walks the folder (once, on Node 24, part of a run's folder stayed and no error was raised).
    let why = 'part of it stayed';
    for (let attempt = 0; attempt < 5 && existsSync(dir); attempt++) {
      try {
        rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
      } catch (err) {
        why = (err as Error).message;
      }
    }
    if (existsSync(dir)) process.stderr.write(`note: this run's temporary folder ${dir} could not be removed (${why}); remove it by hand\n`);
  };
}
