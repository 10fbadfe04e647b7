// The comparison of one app with one media server, pure: which of the app's files the server has no item for
// (missing), and which of the server's items under the app's root folders the app does not list (unknown). Paths
// are compared by their spelling (spelling()): a file the server names in another Unicode form (a Mac's NFD) or
// another case (a case-insensitive mount) is the same file, not a missing one.
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

export interface Comparison {
  /** The app's files as the app names them, that no item of the server holds. */
  missing: string[];
  /** The server's files (its own form) under one of the app's root folders that the app does not list. */
  unknown: string[];
}

/**
 * `items`: the server's files by spelling. `roots`: the app's root folders in the server's form; without any, no
 * item is called unknown (nothing says which are the app's).
 */
export function compare(expected: readonly Expected[], items: ReadonlyMap<string, string>, roots: readonly string[]): Comparison {
  const listed = new Set<string>();
  const missing: string[] = [];
  for (const e of expected) {
    const key = spelling(e.path);
    listed.add(key);
    if (!items.has(key)) missing.push(e.received);
  }
  const spelledRoots = roots.map(spelling);
  const unknown: string[] = [];
  for (const [key, path] of items) if (!listed.has(key) && spelledRoots.some((r) => spelledInside(key, r))) unknown.push(path);
  return { missing, unknown };
}
