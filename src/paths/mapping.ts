// SERVER_PATH_MAPPINGS and its kin: rewrite a path from the form one machine uses to the form another uses.
import { sameForm, separatorOf } from './folder.js';

/**
 * A rule of autoscan's `rewrite` form: `"<name>": {"FROM": "<regex>", "TO": "<replacement with $1>"}` inside a
 * mapping. Kept beside the prefix entries under a symbol (see REGEX_RULES), compiled once when the config loads.
 */
export interface RegexRule {
  /** The entry's key in the config: shown by the path doctor as the rule that matched. */
  name: string;
  from: string;
  to: string;
  pattern: RegExp;
}

/**
 * Where a mapping keeps its regex rules. A symbol, not a key, so every reader of the prefix entries
 * (`Object.entries`, the gate's forms, the doctor's suggestions) sees the same `{ path: [prefixes] }` it always
 * did, and JSON.stringify leaves the rules out; only mapPath reads them.
 */
export const REGEX_RULES: unique symbol = Symbol('regex rules');

/** `{ targetPrefix: [alternative prefixes] }`, the shape of SERVER_PATH_MAPPINGS and friends, plus its regex rules. */
export type PathMappings = Record<string, string[]> & { [REGEX_RULES]?: RegexRule[] };

export interface MappingMatch {
  /** The mapping key (the prefix written in place of the form), or a regex rule's replacement. */
  to: string;
  /** The alternative form that matched, or a regex rule's pattern. */
  from: string;
  /** A regex rule matched: its name (the entry's key). */
  rule?: string;
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
  // Prefixes first (the most specific), then the regex rules in the order written; as in autoscan, only the
  // first rule that matches is applied, to every place it matches.
  for (const rule of mappings?.[REGEX_RULES] ?? []) {
    if (!rule.pattern.test(path)) continue;
    return { path: path.replace(new RegExp(rule.pattern.source, `${rule.pattern.flags}g`), (...m) => expand(rule.to, m)), match: { to: rule.to, from: rule.from, rule: rule.name } };
  }
  return { path };
}

/**
 * A Go-style replacement (`$1`, `${1}`, `${name}`, `$name`, `$$`), as autoscan's and autopulse's rules are
 * written, with the groups of one match. `m` is what String.replace hands a replacer function.
 */
function expand(template: string, m: unknown[]): string {
  const groups = (typeof m[m.length - 1] === 'object' ? m[m.length - 1] : undefined) as Record<string, string | undefined> | undefined;
  const numbered = m.slice(0, groups ? -3 : -2) as (string | undefined)[];
  return template.replace(/\$(\$|\{(\w+)\}|(\d+)|([A-Za-z_]\w*))/g, (all, _t, braced?: string, digits?: string, name?: string) => {
    if (all === '$$') return '$';
    const ref = braced ?? digits ?? name!;
    const value = /^\d+$/.test(ref) ? numbered[Number(ref)] : groups?.[ref];
    return value ?? '';
  });
}

/** Compiles one regex rule; throws SyntaxError (with the engine's reason) for a pattern that does not compile. */
export function regexRule(name: string, from: string, to: string): RegexRule {
  return { name, from, to, pattern: new RegExp(from.normalize('NFC'), 'u') };
}

/** A mapping with regex rules beside its prefix entries. */
export function withRegexRules(prefixes: Record<string, string[]>, rules: RegexRule[]): PathMappings {
  const out: PathMappings = prefixes;
  if (rules.length) out[REGEX_RULES] = rules;
  return out;
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
