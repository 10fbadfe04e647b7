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
export { repoRoot };
