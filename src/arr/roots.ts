// An app's root folders and which media server library holds each, after SERVER_PATH_MAPPINGS: the path doctor's
// verdict on each folder (src/doctor/), or the mapping line to add. `scanrelay connect` prints it, the doctor page
// shows it.
import type { Doctor } from '../doctor/explain.js';
import type { ArrClient } from './client.js';

export interface RootVerdict {
  /** The root folder as the app names it. */
  path: string;
  /** As the media servers name it. */
  folder: string;
  /** `gives-up`: a library holds it, but scanrelay cannot see it where it checks that files exist. */
  verdict: 'scan' | 'gives-up' | 'ignored' | 'unmatched' | 'no-targets' | 'unknown';
  /** The doctor's sentence. */
  summary: string;
  /** "plex: TV Shows (section 2)", for each library holding it. */
  libraries: string[];
  /** The SERVER_PATH_MAPPINGS line that would make it reach a library, when one can be guessed. */
  mapping: string | null;
}

/**
 * The most root folders explained: an app has a handful, and each costs the doctor a look at every library; an
 * app answering 115,000 of them held the doctor page for 15 s. The rest are counted, not explained.
 */
export const MAX_ROOTS = 200;

export interface AppRoots {
  app: string;
  type: string;
  roots: RootVerdict[];
  /** Root folders past MAX_ROOTS, not explained. */
  more: number;
  /** Why the root folders could not be read. */
  error: string | null;
}

export async function appRoots(app: { name: string; type: string; client: ArrClient }, explain: Doctor): Promise<AppRoots> {
  let paths: string[];
  try {
    paths = await app.client.rootFolders();
  } catch (err) {
    return { app: app.name, type: app.type, roots: [], more: 0, error: (err as Error).message };
  }
  const roots = await Promise.all(
    paths.slice(0, MAX_ROOTS).map(async (path): Promise<RootVerdict> => {
      // A root folder is a folder: the doctor must not take a missing one for a file because of a dot in its name.
      const e = await explain(path.endsWith('/') || path.endsWith('\\') ? path : `${path}${path.includes('\\') && !path.includes('/') ? '\\' : '/'}`);
      return {
        path,
        folder: e.folder,
        verdict: e.verdict,
        summary: e.summary,
        libraries: e.wouldScan.flatMap((w) => (w.libraries.length ? w.libraries.map((l) => `${w.target}: ${l}`) : [w.target])),
        mapping: e.suggestion?.line ?? null,
      };
    }),
  );
  return { app: app.name, type: app.type, roots, more: Math.max(0, paths.length - MAX_ROOTS), error: null };
}

/** The report as lines for a terminal. */
export function rootsText(r: AppRoots): string {
  const out = [`Root folders of ${r.type} '${r.app}':`];
  if (r.error) out.push(`  could not be read: ${r.error}`);
  else if (r.roots.length === 0) out.push('  none (add one in the app: Settings > Media Management > Root Folders)');
  for (const root of r.roots) {
    const shown = root.folder === root.path.replace(/[\\/]+$/, '') ? root.path : `${root.path} -> ${root.folder}`;
    if (root.verdict === 'scan') out.push(`  ${shown}: ${root.libraries.join('; ')}`);
    else if (root.verdict === 'gives-up') out.push(`  ${shown}: ${root.libraries.join('; ')}; but scanrelay does not see this folder where it checks that files exist (set SERVER_FILE_EXIST_PATH_MAPPINGS, or SERVER_MAX_FILE_CHECKS 0)`);
    else out.push(`  ${shown}: ${root.summary}${root.mapping ? `\n    ${root.mapping}` : ''}`);
  }
  if (r.more) out.push(`  and ${r.more} more root folders, not explained (only the first ${MAX_ROOTS} are)`);
  return out.join('\n') + '\n';
}
