// What a media server has: the files of its items in the libraries that concern one app (those holding one of the
// app's files or overlapping one of its root folders), read a page at a time through the target's own client
// (Target.files: src/plex/section-files.ts, src/targets/mediabrowser/library-files.ts), kept by spelling.
import type { Library, Target } from '../scan.js';
import { spelledInside, spelling } from './compare.js';

/** The libraries of `all` that hold one of `files` or overlap one of `roots` (all in the server's form). */
export function librariesConcerned(all: readonly Library[], files: readonly string[], roots: readonly string[]): Library[] {
  const spelledRoots = roots.map(spelling);
  return all.filter((lib) => {
    const locations = lib.locations.map(spelling);
    if (locations.some((l) => spelledRoots.some((r) => spelledInside(l, r) || spelledInside(r, l)))) return true;
    return files.some((f) => locations.some((l) => spelledInside(spelling(f), l)));
  });
}

/** The files of every item of `libraries`, by spelling; `onPage` is told the count read so far. */
export async function serverItems(target: Target, libraries: readonly Library[], onPage?: (read: number) => void): Promise<Map<string, string>> {
  const items = new Map<string, string>();
  if (!target.files) return items;
  for (const library of libraries) {
    for await (const page of target.files(library)) {
      for (const path of page) items.set(spelling(path), path);
      onPage?.(items.size);
    }
  }
  return items;
}
