// The files a folder's requests named, kept with the folder until it is delivered: the new or changed ones and the
// deleted ones (an upgrade's replaced file, a deleted episode). A server that takes files rather than folders (the
// Targeted Scans plugin on Jellyfin and Emby) is sent these; a folder scan needs none of them. The latest request
// about a path wins (a file imported then deleted is deleted), and past FILES_KEPT paths the list says `more`, so
// the target scans the folder as a whole instead of trusting a list that misses some.
import type { FolderFiles } from '../scan.js';

/** Paths kept per folder, new and deleted together: a season pack, with room; beyond, the folder is scanned whole. */
export const FILES_KEPT = 200;

export function noFiles(): FolderFiles {
  return { live: [], gone: [] };
}

/** Adds one request's file to `files` (in place): deleted or not, the latest request about a path decides. */
export function addFile(files: FolderFiles, path: string, deleted: boolean): void {
  const [into, from] = deleted ? [files.gone, files.live] : [files.live, files.gone];
  const was = from.indexOf(path);
  if (was >= 0) from.splice(was, 1);
  if (into.includes(path)) return;
  if (files.live.length + files.gone.length >= FILES_KEPT) files.more = true;
  else into.push(path);
}

/** The column after `later`'s files were merged into a queued folder's (`column`, as the row holds them). */
export function mergedColumn(column: string | null, later: FolderFiles): string | null {
  return filesColumn(mergeFiles(filesOfColumn(column) ?? noFiles(), later));
}

/** `later`'s files added after `earlier`'s: a request merged into a queued folder. */
export function mergeFiles(earlier: FolderFiles, later: FolderFiles): FolderFiles {
  const merged: FolderFiles = { live: [...earlier.live], gone: [...earlier.gone], ...(earlier.more || later.more ? { more: true } : {}) };
  for (const path of later.gone) addFile(merged, path, true);
  for (const path of later.live) addFile(merged, path, false);
  return merged;
}

/** As the row stores it: null when no request named a file. */
export function filesColumn(files: FolderFiles): string | null {
  return files.live.length || files.gone.length || files.more ? JSON.stringify(files) : null;
}

export function filesOfColumn(column: string | null): FolderFiles | undefined {
  if (!column) return undefined;
  const parsed = JSON.parse(column) as Partial<FolderFiles>;
  return { live: Array.isArray(parsed.live) ? parsed.live : [], gone: Array.isArray(parsed.gone) ? parsed.gone : [], ...(parsed.more ? { more: true } : {}) };
}
