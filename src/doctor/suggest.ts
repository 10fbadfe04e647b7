// What the doctor offers when a path reaches no library: the known prefixes closest to it, and a
// SERVER_PATH_MAPPINGS entry that would make it reach one, shown merged into the key the config already has.
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
  /** The entry as it should read in the existing key: the key's forms already configured, then the new one. */
  entry: string;
  /**
   * The whole key as it would read with the entry merged in, every configured entry kept, one entry a line. Pasting
   * a key of its own beside the one in config.json would replace it (JSON keeps the last): config loading refuses that.
   */
  merged: string;
  /** What to do, on one line: the entry to add, then the merged key on one line (for a log line or a 202 answer). */
  line: string;
}

type Mappings = Record<string, string[] | undefined>;

/** The suggestion for adding `form` to `key` in the configured mappings; null when the key already has it. */
export function mappingSuggestion(key: string, form: string, mappings: Mappings): MappingSuggestion | null {
  const forms = mappings[key] ?? [];
  if (forms.includes(form)) return null;
  const merged: [string, string[]][] = Object.entries(mappings).map(([k, f]) => [k, k === key ? [...(f ?? []), form] : (f ?? [])]);
  if (!(key in mappings)) merged.push([key, [form]]);
  const entryOf = ([k, f]: [string, string[]]) => `${JSON.stringify(k)}: [${f.map((x) => JSON.stringify(x)).join(', ')}]`;
  const entry = entryOf([key, [...forms, form]]);
  return {
    key,
    form,
    entry,
    merged: `"SERVER_PATH_MAPPINGS": {\n${merged.map((e) => `  ${entryOf(e)}`).join(',\n')}\n}`,
    line: `${key in mappings ? `Add ${JSON.stringify(form)} to the SERVER_PATH_MAPPINGS entry ${JSON.stringify(key)}` : `Add ${entry} to SERVER_PATH_MAPPINGS`} in config.json, keeping every entry there (a second SERVER_PATH_MAPPINGS key would replace the first), so that it reads "SERVER_PATH_MAPPINGS": { ${merged.map(entryOf).join(', ')} }`,
  };
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
export function suggestMapping(path: string, locations: string[], mappings: Mappings): MappingSuggestion | null {
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
  return best && mappingSuggestion(best.key, best.form, mappings);
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
