// The library-root guard: a folder that is a library's own folder (a series deleted with its parent, a path cut
// short by a bad mapping, a manual scan of /tv/) would have Plex, Jellyfin or Emby scan the whole library: minutes
// of work, and on a dropped mount a library emptied. Such a folder is refused, per target, unless a person asked
// for that folder itself (the manual page's box, the API's `libraryRoot`, `scanrelay scan --library-root`).
// Jellyfin's own climb to the library item for a folder that has no item (mediabrowser/scan.ts) is not this: that
// folder is below the library's, and its burst shares one refresh.
import { sameFolder } from '../paths/folder.js';
import type { Library, ScanContext, ScanOutcome, Target } from '../scan.js';
import { typed } from '../version.js';

/** Where a whole-library scan may be asked for, as every refusal and the CLI name it. */
export const WHOLE_LIBRARY_ASKED = `from the manual page, the API or \`${typed('scan --library-root')}\``;

/** The library whose own folder `folder` is (trailing separators aside, Windows forms without regard to case). */
export function libraryAt<L extends Library>(folder: string, libraries: L[]): L | undefined {
  return libraries.find((l) => l.locations.some((location) => sameFolder(folder, location)));
}

/**
 * The refusal of a scan of `path` (in the target's form) on target `name`, or undefined when it may go: the kind
 * scans a library whole at its root, the folder is one of its libraries' own, and nobody asked for that.
 */
export async function libraryRootRefusal(
  target: Pick<Target, 'wholeLibraryAtRoot' | 'libraries'>,
  name: string,
  path: string,
  context: ScanContext,
): Promise<Extract<ScanOutcome, { status: 'refused' }> | undefined> {
  if (!target.wholeLibraryAtRoot || !target.libraries || context.libraryRoot) return undefined;
  let libraries: Library[];
  try {
    libraries = await target.libraries({ holding: path });
  } catch {
    return undefined; // the scan asks for the list again and says why it cannot be had
  }
  const library = libraryAt(path, libraries);
  if (!library) return undefined;
  return {
    status: 'refused',
    detail:
      `'${path}' is the root of library '${library.title}' on ${name}, so scanning it would scan the whole library; ` +
      `a whole-library scan is only done when asked for ${WHOLE_LIBRARY_ASKED}. Nothing was sent. ` +
      'If the request meant a folder inside it (a series deleted with its parent, a path mapping that cuts the path short), fix the sender or SERVER_PATH_MAPPINGS.',
  };
}
