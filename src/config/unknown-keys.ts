// Keys in config.json that scanrelay does not use: the legacy ones it accepts, and the others with the known key
// each one most likely meant (a typo).
import { editDistance } from '../edit-distance.js';
import { knownSiblings } from './schema-walk.js';

/** Keys of older plex_autoscan and Cloudbox files: accepted for compatibility, with an INFO line saying so. */
export const LEGACY_KEYS: ReadonlySet<string> = new Set(['PLEX_SECTION_PATH_MAPPINGS', 'PLEX_SECTION_PATH_MAPPINGS_WITH_API', 'GDRIVE', 'RCLONE_RC_CACHE_EXPIRE']);

export interface UnknownKey {
  /** As KEY, PARENT.KEY or TARGETS[0].KEY. */
  key: string;
  /** Its line in the file (first occurrence of the quoted name), when found. */
  line?: number;
  /** The closest key scanrelay knows at that level, when close enough to be a typo. */
  suggestion?: string;
  /** The suggestion is missing from the file (so its default would otherwise be written). */
  missing: boolean;
}

/** Ignored keys that are not legacy ones, each with its line and the known key it most likely meant. */
export function unknownKeys(ignored: string[], text: string, added: string[]): UnknownKey[] {
  const lines = text.split('\n');
  return ignored
    .filter((k) => !LEGACY_KEYS.has(k))
    .map((dotted) => {
      const parts = /^(.*?)([^.[\]]+|\["[^"]*"\])$/.exec(dotted);
      const parentPath = parts?.[1].replace(/\.$/, '') ?? '';
      const name = (parts?.[2] ?? dotted).replace(/^\["|"\]$/g, '');
      const siblings = knownSiblings(parentPath);
      let suggestion: string | undefined;
      let best = Infinity;
      for (const s of siblings) {
        const d = editDistance(name.toUpperCase(), s);
        if (d < best) [best, suggestion] = [d, s];
      }
      // A typo is a couple of letters off; anything further is another key altogether.
      if (best > Math.max(2, Math.floor(name.length / 6))) suggestion = undefined;
      const index = lines.findIndex((l) => l.includes(JSON.stringify(name)));
      const full = suggestion ? (parentPath ? `${parentPath}.${suggestion}` : suggestion) : undefined;
      return { key: dotted, line: index >= 0 ? index + 1 : undefined, suggestion: full, missing: full !== undefined && added.includes(full) };
    });
}
