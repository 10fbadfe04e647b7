// This scanrelay's version (`scanrelay --version`, the `version` on /health): written into the bundle when it is
// built (scripts/bundle.mjs), else read once from package.json.
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
