// What a media server has: the files of its items in the libraries that concern one app (those overlapping one of
// its root folders, and those holding one of its files: src/reconcile/audit.ts), read a page at a time through the target's own client
// (Target.files: src/plex/section-files.ts, src/targets/mediabrowser/library-files.ts) and handed on page by page:
// no server's list is ever held whole.
import type { Library, Target } from '../scan.js';
import { spelledInside, spelling } from './compare.js';

/** The libraries of `all` whose folders overlap one of `roots` (the app's root folders in the server's form). */
export function librariesConcerned(all: readonly Library[], roots: readonly string[]): Library[] {
  const spelledRoots = roots.map(spelling);
  return all.filter((lib) => lib.locations.map(spelling).some((l) => spelledRoots.some((r) => spelledInside(l, r) || spelledInside(r, l))));
}

/** Hands every page of files of `libraries` to `page`, one library after the other. */
export async function readItems(target: Target, libraries: readonly Library[], page: (paths: string[]) => void): Promise<void> {
  if (!target.files) return;
  for (const library of libraries) for await (const paths of target.files(library)) page(paths);
}
