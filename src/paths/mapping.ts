// SERVER_PATH_MAPPINGS and its kin: rewrite a path from the form one machine uses to the form another uses.
import { sameForm, separatorOf } from './folder.js';

/** `{ targetPrefix: [alternative prefixes] }`, the shape of SERVER_PATH_MAPPINGS and friends. */
export type PathMappings = Record<string, string[]>;

export interface MappingMatch {
  /** The mapping key (the prefix written in place of the form). */
  to: string;
  /** The alternative form that matched. */
  from: string;
}

export interface Mapped {
  path: string;
  match?: MappingMatch;
}

const endsWithSeparator = (s: string) => s.endsWith('/') || s.endsWith('\\');

/**
 * True when `path` starts with `prefix` and the prefix ends at a path boundary. A Windows prefix (one that
 * uses backslashes) compares case-insensitively, as Windows does.
 */
export function startsAtBoundary(path: string, prefix: string): boolean {
  if (prefix.length === 0) return false;
  // The folder a form names, written without its trailing separator, is that folder too.
  if (path.length === prefix.length - 1 && endsWithSeparator(prefix)) return startsAtBoundary(path + prefix.slice(-1), prefix);
  if (path.length < prefix.length) return false;
  const head = path.slice(0, prefix.length);
  if (!sameForm(head, prefix, prefix)) return false;
  if (path.length === prefix.length || endsWithSeparator(prefix)) return true;
  const next = path[prefix.length];
  return next === '/' || next === '\\';
}

// Config objects live as long as the service: each one's sorted pairs are worked out once, not per request.
const sorted = new WeakMap<PathMappings, MappingMatch[]>();

/** Every (form, key) pair, longest form first so the most specific mapping wins. */
export function mappingCandidates(mappings: PathMappings): MappingMatch[] {
  if (!mappings) return [];
  const known = sorted.get(mappings);
  if (known) return known;
  const pairs = candidatesOf(mappings);
  sorted.set(mappings, pairs);
  return pairs;
}

function candidatesOf(mappings: PathMappings): MappingMatch[] {
  const pairs: MappingMatch[] = [];
  for (const [to, forms] of Object.entries(mappings ?? {})) {
    // Compared in NFC, as every path is at intake: a form typed on a Mac (NFD) still matches.
    for (const from of forms ?? []) if (typeof from === 'string' && from.length > 0) pairs.push({ to: to.normalize('NFC'), from: from.normalize('NFC') });
  }
  return pairs.sort((a, b) => b.from.length - a.from.length);
}

/**
 * Rewrites `path` through `mappings`: the longest alternative that starts the path at a boundary is
 * replaced by its key. Only the prefix is replaced (plex_autoscan replaced every occurrence). When the
 * key and the form use different separators (a Windows form mapped to a Linux server), the rest of the
 * path takes the key's separator. An unmatched path is returned unchanged.
 */
export function mapPath(path: string, mappings: PathMappings): Mapped {
  for (const candidate of mappingCandidates(mappings)) {
    if (!startsAtBoundary(path, candidate.from)) continue;
    return { path: applyMatch(path, candidate), match: candidate };
  }
  return { path };
}

function applyMatch(path: string, { from, to }: MappingMatch): string {
  let rest = path.slice(from.length);
  const toSep = separatorOf(to.length > 0 ? to : from);
  const fromSep = separatorOf(from);
  if (toSep !== fromSep) rest = toSep === '/' ? rest.replace(/\\/g, '/') : rest.replace(/\//g, '\\');
  if (rest.length === 0) return to;
  const restHasSep = rest.startsWith('/') || rest.startsWith('\\');
  if (endsWithSeparator(to)) return to + (restHasSep ? rest.slice(1) : rest);
  return to + (restHasSep ? rest : toSep + rest);
}

/** The first SERVER_IGNORE_LIST entry found in any of `paths` (case-insensitive substring), if any. */
export function ignoredBy(paths: string[], ignoreList: string[]): string | undefined {
  for (const entry of ignoreList ?? []) {
    if (!entry) continue;
    const needle = entry.toLowerCase();
    if (paths.some((p) => p.toLowerCase().includes(needle))) return entry;
  }
  return undefined;
}

/**
 * SERVER_SCAN_PRIORITIES: `{"0": ["/Movies/"], "1": ["/TV/"]}`. The lowest-numbered entry with a substring
 * found in the path (case-insensitive) gives the priority (JSON objects keep integer keys in ascending
 * order, so "first entry" is "lowest number"); lower numbers are scanned first; a path that matches
 * nothing gets 0, as in plex_autoscan.
 */
export function priorityOf(path: string, priorities: Record<string, string[]>): number {
  const lower = path.toLowerCase();
  for (const [priority, needles] of Object.entries(priorities ?? {})) {
    if ((needles ?? []).some((n) => n && lower.includes(n.toLowerCase()))) return Number(priority) || 0;
  }
  return 0;
}
