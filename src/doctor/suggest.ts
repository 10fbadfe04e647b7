// What the doctor offers when a path reaches no library: the known prefixes closest to it, and a
// SERVER_PATH_MAPPINGS entry that would make it reach one.
import type { Config } from '../config/schema.js';
import { separatorOf, trimTrailingSeparator } from '../paths/folder.js';
import { editDistance } from '../edit-distance.js';

export interface Candidate {
  /** A mapping form, mapping key or library location that looks like the path. */
  prefix: string;
  where: string;
  distance: number;
}

/** A SERVER_PATH_MAPPINGS entry that would make the path reach a library. */
export interface MappingSuggestion {
  key: string;
  form: string;
  line: string;
}

const segments = (p: string) => p.split(/[\\/]+/).filter(Boolean);

/**
 * Mapping forms, mapping keys and library locations ranked by how close they are to the start of the path:
 * each is compared with the path cut to the same number of folders, so "/mnt/unionfs/Media/" is close to
 * "/mnt/unionfs/media/TV/x.mkv" and a typo shows up as a distance of one or two.
 */
export function closestCandidates(path: string, config: Config, known: { loc: string; where: string }[], limit = 5): Candidate[] {
  const pool: { prefix: string; where: string }[] = [];
  for (const [key, forms] of Object.entries(config.SERVER_PATH_MAPPINGS)) {
    for (const form of forms ?? []) if (form) pool.push({ prefix: form, where: `SERVER_PATH_MAPPINGS form of '${key}'` });
    pool.push({ prefix: key, where: 'SERVER_PATH_MAPPINGS key' });
  }
  for (const k of known) pool.push({ prefix: k.loc, where: `library location (${k.where})` });
  const pathSegs = segments(path);
  const scored = pool.map(({ prefix, where }) => {
    const n = segments(prefix).length;
    const head = pathSegs.slice(0, n).join('/');
    return { prefix, where, distance: editDistance(segments(prefix).join('/'), head) };
  });
  const seen = new Set<string>();
  return scored
    .sort((a, b) => a.distance - b.distance || b.prefix.length - a.prefix.length)
    .filter((c) => (seen.has(c.prefix) ? false : (seen.add(c.prefix), true)))
    .slice(0, limit);
}

/**
 * Guesses a SERVER_PATH_MAPPINGS entry: a library location whose last folder name also appears in the
 * path (case aside) means the path's part up to that folder is the sender's name for the location.
 */
export function suggestMapping(path: string, locations: string[]): MappingSuggestion | null {
  const pathSegs = segments(path);
  let best: { key: string; form: string; score: number } | null = null;
  for (const loc of locations) {
    const locSegs = segments(loc);
    const last = locSegs[locSegs.length - 1]?.toLowerCase();
    if (!last) continue;
    // The deepest occurrence keeps the show/movie folder out of the form.
    for (let i = pathSegs.length - 1; i >= 0; i--) {
      if (pathSegs[i].toLowerCase() !== last) continue;
      // How many trailing folders of the location agree with the path there (more = more certain).
      let score = 0;
      while (score < locSegs.length && i - score >= 0 && locSegs[locSegs.length - 1 - score].toLowerCase() === pathSegs[i - score].toLowerCase()) score++;
      const sep = separatorOf(path);
      const lead = path.startsWith(sep) ? sep : '';
      const form = lead + pathSegs.slice(0, i + 1).join(sep) + sep;
      const key = trimTrailingSeparator(loc) + separatorOf(loc);
      if (form !== key && (!best || score > best.score)) best = { key, form, score };
      break;
    }
  }
  best ??= nearlyNamed(path, locations);
  if (!best) return null;
  return { key: best.key, form: best.form, line: `"SERVER_PATH_MAPPINGS": { ${JSON.stringify(best.key)}: [${JSON.stringify(best.form)}] }` };
}

/** Folder names compared without case or punctuation ("TV Shows" and "tvshows" are one name). */
const bare = (name: string) => name.toLowerCase().replace(/[^a-z0-9]/g, '');

/**
 * The app and the server name one library folder differently (`/tvshows/` for `/tv/`, `/movie/` for `/data/movies/`):
 * one of the path's first folders is a near spelling of a location's last one (one starts the other, or one
 * edit apart). The app's prefix up to that folder is then its name for the location.
 */
function nearlyNamed(path: string, locations: string[]): { key: string; form: string; score: number } | null {
  const pathSegs = segments(path);
  for (let i = 0; i < Math.min(3, pathSegs.length - 1); i++) {
    const seg = bare(pathSegs[i]);
    if (seg.length < 2) continue;
    for (const loc of locations) {
      const locSegs = segments(loc);
      const last = bare(locSegs[locSegs.length - 1] ?? '');
      if (last.length < 2 || !(seg.startsWith(last) || last.startsWith(seg) || (Math.min(seg.length, last.length) >= 4 && editDistance(seg, last) <= 1))) continue;
      const sep = separatorOf(path);
      const form = (path.startsWith(sep) ? sep : '') + pathSegs.slice(0, i + 1).join(sep) + sep;
      const key = trimTrailingSeparator(loc) + separatorOf(loc);
      if (form !== key) return { key, form, score: 0 };
    }
  }
  return null;
}
