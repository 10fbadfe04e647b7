// Walks a folder tree one folder at a time (depth first, no recursion), yielding each folder's entries.
import type { Dirent } from 'node:fs';
import { join } from 'node:path';
import { readdir } from '../file-system.js';

export interface FolderEntries {
  folder: string;
  entries: Dirent[];
}

/**
 * Folders that cannot be read (gone since their parent was read, no permission) are reported to `onError` and
 * skipped. Symbolic links are not followed: a link back up the tree would never end.
 */
export async function* walkFolders(root: string, recursive: boolean, onError?: (folder: string, err: NodeJS.ErrnoException) => void): AsyncGenerator<FolderEntries> {
  const stack = [root];
  while (stack.length > 0) {
    const folder = stack.pop()!;
    let entries: Dirent[];
    try {
      entries = await readdir(folder, { withFileTypes: true });
    } catch (err) {
      onError?.(folder, err as NodeJS.ErrnoException);
      continue;
    }
    if (recursive) for (const e of entries) if (e.isDirectory()) stack.push(join(folder, e.name));
    yield { folder, entries };
  }
}
