// Locates the shared fixture payloads (kept outside the repository, beside the checkout) and the
// project's own fixtures under test/fixtures.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** Folder of the shared fixtures: $SCANRELAY_SHARED_FIXTURES, else ../shared/fixtures beside the checkout. */
export function sharedFixturesDir(): string | undefined {
  const candidates = [process.env.SCANRELAY_SHARED_FIXTURES, join(repoRoot, '..', 'shared', 'fixtures')];
  return candidates.find((c): c is string => !!c && existsSync(c));
}

export function sharedFixture<T = unknown>(relative: string): T {
  const dir = sharedFixturesDir();
  if (!dir) throw new Error(`shared fixtures not found (set SCANRELAY_SHARED_FIXTURES): ${relative}`);
  return JSON.parse(readFileSync(join(dir, relative), 'utf8')) as T;
}

export function ownFixture<T = unknown>(relative: string): T {
  return JSON.parse(readFileSync(join(repoRoot, 'test', 'fixtures', relative), 'utf8')) as T;
}

export const hasSharedFixtures = (): boolean => sharedFixturesDir() !== undefined;

/**
 * A skipped test's title says why it skipped, so a run from a fresh clone explains its skips. Empty when the
 * condition for running holds.
 */
export function unlessSkipped(runs: boolean, reason: string): string {
  if (runs) return '';
  // The default reporter only counts skips: one line per reason says why in any run.
  if (!said.has(reason)) console.warn(`Some tests skip: ${reason}.`);
  said.add(reason);
  return ` [skipped: ${reason}]`;
}
const said = new Set<string>();

export const NO_SHARED_FIXTURES =
  'the shared arr payloads are not beside the checkout (../shared/fixtures); set SCANRELAY_SHARED_FIXTURES to their folder';
export { repoRoot };
