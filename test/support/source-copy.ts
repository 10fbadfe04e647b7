// A copy of this checkout's src/ to follow a recipe of docs/architecture.md in (a new target kind, a new trigger:
// test/targets/recipe.test.ts, test/triggers/recipe.test.ts), and the copy's type check.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from './fixtures.js';

/** A new folder holding a copy of src/, package.json and tsconfig.json, with this checkout's node_modules linked. */
export function copySources(prefix: string): string {
  const copy = mkdtempSync(join(tmpdir(), prefix));
  cpSync(join(repoRoot, 'src'), join(copy, 'src'), { recursive: true });
  for (const f of ['package.json', 'tsconfig.json']) cpSync(join(repoRoot, f), join(copy, f));
  symlinkSync(join(repoRoot, 'node_modules'), join(copy, 'node_modules'), 'dir');
  return copy;
}

/** The copy type-checked as `npm run typecheck` checks the checkout (the copy has src/ alone); throws with tsc's messages. */
export function typecheckCopy(copy: string): void {
  const tsc = join(repoRoot, 'node_modules/typescript/bin/tsc');
  try {
    // On one thread: the suite keeps every core busy already, and tsc's checkers on several threads do the same
    // check for more CPU in all.
    execFileSync(process.execPath, [tsc, '-p', join(copy, 'tsconfig.json'), '--noEmit', '--singleThreaded'], { cwd: copy, encoding: 'utf8' });
  } catch (err) {
    throw new Error(`the copy does not typecheck:\n${(err as { stdout?: string }).stdout ?? err}`);
  }
}
