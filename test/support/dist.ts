// dist/scanrelay.mjs, the program users start (npm start, the scanrelay command, the image), as the tests run it:
// `npm run build` makes it (`npm ci` runs it as `prepare`); when it is missing or older than the sources, that
// build runs once before the suite (test/support/dist-global.ts), and says so. The CLI's child
// processes run it (test/support/child.ts): what users run, and a start that does not compile TypeScript first.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from './fixtures.js';

export const DIST = join(repoRoot, 'dist', 'scanrelay.mjs');

/** The newest change to what the bundle is made of: the sources, the bundle script, the dependencies. */
function newestSource(): { file: string; ms: number } {
  let newest = { file: '', ms: 0 };
  const see = (file: string) => {
    const ms = statSync(file).mtimeMs;
    if (ms > newest.ms) newest = { file, ms };
  };
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.isDirectory()) walk(join(dir, entry.name));
      else see(join(dir, entry.name));
    }
  };
  walk(join(repoRoot, 'src'));
  for (const file of ['scripts/bundle.mjs', 'package.json', 'package-lock.json']) see(join(repoRoot, file));
  return newest;
}

/** Why dist/scanrelay.mjs cannot be run as it is ('is missing', 'is older than …'), or undefined. */
export function distStale(): string | undefined {
  const newest = newestSource();
  return !existsSync(DIST) ? 'is missing' : statSync(DIST).mtimeMs < newest.ms ? `is older than ${newest.file.slice(repoRoot.length + 1)}` : undefined;
}

/** dist/scanrelay.mjs as `npm run build` leaves it: built here when missing or stale, with a line saying why. */
export function ensureDist(): void {
  const why = distStale();
  if (!why) return;
  console.warn(`dist/scanrelay.mjs ${why}: building it with node scripts/bundle.mjs (what npm run build runs).`);
  try {
    execFileSync(process.execPath, [join(repoRoot, 'scripts', 'bundle.mjs')], { cwd: repoRoot, stdio: 'pipe' });
  } catch (err) {
    throw new Error(`dist/scanrelay.mjs ${why} and could not be built (run npm run build): ${(err as { stderr?: Buffer }).stderr?.toString() ?? err}`);
  }
}
