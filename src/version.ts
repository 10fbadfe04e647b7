// This scanrelay's version, read once from its package.json (`scanrelay --version`, the `version` on /health).
import { readFileSync } from 'node:fs';

/** From src/ (tsx) and dist/ alike, package.json is one folder up; the Docker image copies it too. */
function readVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version?: unknown };
    return typeof pkg.version === 'string' ? pkg.version : 'unknown';
  } catch {
    return 'unknown';
  }
}

export const version = readVersion();
