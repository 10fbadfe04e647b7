// Where hash= may read: only a file inside a library folder of some media server. The path as sent passes the path
// gate and the mappings, the targets say which library folder holds it (their cached lists, a server asked for at
// most 3 s), and the file on this machine, symbolic links resolved, must still lie inside that folder resolved
// the same way. Anything else is refused before a byte is read: hash= once read whatever the relay could
// (/dev/zero kept a core busy for good; /etc/hostname's SHA-256 went into history).
import { judgeTarget, type LibraryReader } from '../doctor/explain.js';
import { isInside } from '../paths/folder.js';
import { describeRefusal, gatePath } from '../paths/gate.js';
import { routeKnown, type IntakeSettings } from '../paths/route.js';
import type { Target } from '../scan.js';
import { realpath } from '../file-system.js';
import { typed } from '../version.js';

/** Why a path is not read: each has its own advice, and a throttled log line per kind. */
export type ScopeRule = 'path-gate' | 'no-library-list' | 'libraries-unknown' | 'outside-libraries' | 'leaves-library' | 'unresolvable';

export type Placement =
  /** `file`: where this machine reads it (mappings applied, links resolved); absent while nothing is there yet. */
  | { ok: true; mapped: string; local: string; file?: string }
  | { ok: false; rule: ScopeRule; reason: string };

export interface HashScopeDeps {
  settings: Pick<IntakeSettings, 'pathMappings' | 'fileExistMappings' | 'ignoreList' | 'priorities'>;
  targets: Target[];
  /** A target's libraries, bounded in time (doctor/judge.ts boundedLibraryReader). */
  read: LibraryReader;
}

const SEPARATORS = /[\\/]+/;
const segments = (path: string) => path.split(SEPARATORS).filter((s) => s !== '');

/** Where `received` (the path as the trigger hands it on) may be read for its hash, or why it may not. */
export async function placeForHash(received: string, deps: HashScopeDeps): Promise<Placement> {
  const nfc = received.normalize('NFC');
  const gate = gatePath(nfc, deps.settings.pathMappings, { file: true });
  if (!gate.ok) return refuse('path-gate', describeRefusal(received, gate));
  const { mapped, local } = routeKnown(gate.path, 'file', deps.settings);
  const roots = await libraryRoots(mapped, local.path, deps);
  if (!Array.isArray(roots)) return roots;
  let file: string;
  try {
    file = await realpath(local.path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'an error';
    // Not there yet (a copy not started): nothing to read, and nothing to resolve.
    if (code === 'ENOENT' || code === 'ENOTDIR') return { ok: true, mapped, local: local.path };
    return refuse('unresolvable', `'${local.path}' cannot be resolved on this machine (${code}): check that scanrelay may read the library folder`);
  }
  for (const root of roots) {
    const resolvedRoot = await realpath(root).catch(() => undefined);
    if (resolvedRoot !== undefined && file !== resolvedRoot && isInside(file, resolvedRoot)) return { ok: true, mapped, local: local.path, file };
  }
  return refuse(
    'leaves-library',
    `'${local.path}' leads (through a symbolic link) to a place outside its library folder ('${roots[0]}'): hash= reads only files inside a library. Send the path of the file itself`,
  );
}

/**
 * The library folders that hold `mapped`, each as this machine names it: the local path less the segments the
 * file has below that library folder on the server. When those segments differ (a regex mapping, a target
 * rewrite below the library's folder), the library's place here is unknown and that library does not count.
 */
async function libraryRoots(mapped: string, local: string, deps: HashScopeDeps): Promise<string[] | Placement> {
  const roots: string[] = [];
  const unknown: string[] = [];
  let listed = 0;
  for (const target of deps.targets) {
    if (!target.libraries) continue;
    const verdict = await judgeTarget(target, mapped, deps.read);
    if (verdict.error) unknown.push(`${target.name}: ${verdict.error}`);
    if (verdict.verdict === 'excluded' || verdict.error) continue;
    listed++;
    for (const location of (verdict.matches ?? []).flatMap((l) => l.locations)) {
      const root = localRoot(verdict.path, location, local);
      if (root !== undefined) roots.push(root);
    }
  }
  if (roots.length > 0) return roots;
  if (listed === 0 && unknown.length > 0) {
    return refuse('libraries-unknown', `no media server could be asked for its library folders (${unknown.join('; ')}), so it is not known whether '${mapped}' is in one: try again later`);
  }
  if (listed === 0) {
    return refuse('no-library-list', 'no media server here lists its library folders (Plex, Jellyfin, Emby and Audiobookshelf do), so hash= has no folder it may read: leave hash= out, and the file check waits for the file instead');
  }
  return refuse('outside-libraries', `'${mapped}' is in no library folder of any media server, and hash= reads only files inside one: send the path of a file in a library (${typed(`explain '${mapped}'`)} shows where a path goes)`);
}

/** `location`'s place on this machine, when `local` ends with the same segments `onServer` has below it. */
function localRoot(onServer: string, location: string, local: string): string | undefined {
  if (!isInside(onServer, location)) return undefined;
  const below = segments(onServer).slice(segments(location).length);
  const localSegments = segments(local);
  if (below.length === 0 || below.length >= localSegments.length) return undefined;
  const tail = localSegments.slice(-below.length);
  if (tail.some((s, i) => s.normalize('NFC') !== below[i].normalize('NFC'))) return undefined;
  // Cut the local path before its `below.length`-th segment from the end.
  let cut = local.length;
  for (let n = 0; n < below.length; n++) {
    cut = local.slice(0, cut).replace(/[\\/]+$/, '').search(/[^\\/]*$/);
  }
  return local.slice(0, cut).replace(/(.)[\\/]+$/, '$1');
}

function refuse(rule: ScopeRule, reason: string): Placement {
  return { ok: false, rule, reason };
}
