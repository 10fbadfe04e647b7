// The project's fixtures under test/fixtures (their sources are listed in test/fixtures/README.md). Tests and
// benches read nothing outside the repository: test/support/self-contained.test.ts checks it.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const fixturesDir = join(repoRoot, 'test', 'fixtures');

export function ownFixture<T = unknown>(relative: string): T {
  return JSON.parse(readFileSync(join(fixturesDir, relative), 'utf8')) as T;
}

/** The text of a fixture, for tests that send it as a body byte for byte. */
export function ownFixtureText(relative: string): string {
  return readFileSync(join(fixturesDir, relative), 'utf8');
}

/**
 * The arr webhook payloads, one per app and event: `<app>-<event>.json` (test/fixtures/arr). Longer names
 * (`sonarr-v3-download.json`, `radarr-windows-download.json`, ...) are variants with tests of their own.
 */
export function arrEventFixtures(): string[] {
  return readdirSync(join(fixturesDir, 'arr'))
    .filter((f) => /^[a-z]+-[a-z]+\.json$/.test(f))
    .sort();
}

/**
 * A skipped test's title says why it skipped, so a run explains its skips. Empty when the condition for running
 * holds. (Used by the browser tests, which need a Chromium on the machine.)
 */
export function unlessSkipped(runs: boolean, reason: string): string {
  if (runs) return '';
  // The default reporter only counts skips: one line per reason says why in any run.
  if (!said.has(reason)) console.warn(`Some tests skip: ${reason}.`);
  said.add(reason);
  return ` [skipped: ${reason}]`;
}
const said = new Set<string>();

export { fixturesDir, repoRoot };
