// The comparison of one app with one media server, fed the server's files a page at a time so that only the app's
// files are held: which of the app's files the server has no item for (missing), and which of the server's items
// under the app's root folders the app does not list (unknown). Paths are compared by their spelling (spelling()):
// a file the server names in another Unicode form (a Mac's NFD) or another case (a case-insensitive mount) is the
// same file, not a missing one.
import { trimTrailingSeparator } from '../paths/folder.js';

/** One path as compared: NFC, lower case, without a trailing separator. */
export function spelling(path: string): string {
  return trimTrailingSeparator(path.normalize('NFC')).toLowerCase();
}

/** Is `path` (spelled) at or below `folder` (spelled), at a path boundary. */
export function spelledInside(path: string, folder: string): boolean {
  if (path === folder) return true;
  if (!path.startsWith(folder)) return false;
  const next = path[folder.length];
  return next === '/' || next === '\\' || folder.endsWith('/') || folder.endsWith('\\');
}

/** A file of the app that the server's libraries should hold: as the app names it, and in the server's form. */
export interface Expected {
  received: string;
  path: string;
}

export class Comparison {
  /** The app's files by spelling; `found` once a page of the server named it. */
  private readonly wanted = new Map<string, { received: string; found: boolean }>();
  private readonly roots: string[];
  /** The server's files read so far. */
  items = 0;
  /** The server's files (its own form) under one of the app's root folders that the app does not list. */
  readonly unknown: string[] = [];

  /** `roots`: the app's root folders in the server's form; without any, no item is called unknown. */
  constructor(roots: readonly string[]) {
    this.roots = roots.map(spelling);
  }

  /** One of the app's files the server should hold: as the app names it, and in the server's form. */
  expect(received: string, path: string): void {
    this.wanted.set(spelling(path), { received, found: false });
  }

  /** One page of the server's files. */
  page(paths: readonly string[]): void {
    for (const path of paths) {
      this.items++;
      const key = spelling(path);
      const app = this.wanted.get(key);
      if (app) app.found = true;
      else if (this.roots.some((r) => spelledInside(key, r))) this.unknown.push(path);
    }
  }

  /** The app's files as the app names them, that no page named. */
  missing(): string[] {
    return [...this.wanted.values()].filter((w) => !w.found).map((w) => w.received);
  }

  /** The app's files compared (each spelling once). */
  get files(): number {
    return this.wanted.size;
  }
}

/** The whole comparison at once (the server's files in one list). */
export function compare(expected: readonly Expected[], items: readonly string[], roots: readonly string[]): { missing: string[]; unknown: string[] } {
  const c = new Comparison(roots);
  for (const e of expected) c.expect(e.received, e.path);
  c.page(items);
  return { missing: c.missing(), unknown: c.unknown };
}
