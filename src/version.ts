// What the program calls itself: its version (`scanrelay --version`, the `version` on /health), written into the
// bundle when it is built (scripts/bundle.mjs), else read once from package.json; and how its commands are typed.
import { readFileSync } from 'node:fs';

/** Defined by the bundler; absent when src/ runs (through tsx). */
declare const SCANRELAY_VERSION: string | undefined;

/** From src/, package.json is one folder up. */
function readVersion(): string {
  if (typeof SCANRELAY_VERSION === 'string') return SCANRELAY_VERSION;
  try {
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version?: unknown };
    return typeof pkg.version === 'string' ? pkg.version : 'unknown';
  } catch {
    return 'unknown';
  }
}

export const version = readVersion();

/** How the relay's advice writes a command: as typed in a checkout (package.json's bin, the built
 * dist/scanrelay.mjs). README says once how the image runs the same command. */
export const typed = (command: string): string => `npx scanrelay ${command}`;
