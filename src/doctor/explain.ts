// The path doctor: follows one path through every step the relay would take and says where it goes wrong.
import type { Config, TargetConfig } from '../config/schema.js';
import { editDistance } from './distance.js';
import { routePath, type IntakeSettings } from '../paths/route.js';
import { trimTrailingSeparator, isInside, separatorOf } from '../paths/folder.js';
import { mappingCandidates, priorityOf, type MappingMatch } from '../paths/mapping.js';
import { PlexApi } from '../plex/api.js';
import type { PathState } from '../paths/disk.js';
import { emby } from '../targets/emby.js';
import { jellyfin } from '../targets/jellyfin.js';
import type { MediaBrowserFlavour } from '../targets/mediabrowser.js';
import { PlexTarget } from '../targets/plex.js';
import { exclusionOf, rewritePath } from '../targets/rewrite.js';
import type { Target } from '../scan.js';
import { httpFetch } from '../http-fetch.js';

export interface Library {
  title: string;
  locations: string[];
}

export interface TargetVerdict {
  name: string;
  kind: string;
  /** The folder as this server names it (after its TARGETS[].PATH_MAPPINGS). */
  path: string;
  rewrite: MappingMatch | null;
  excluded: string | null;
  /** Libraries holding the folder; null when the server could not be asked. */
  matches: Library[] | null;
  /** Every library the server reported (shown when none holds the folder). */
  known: Library[];
  error: string | null;
  verdict: 'scan' | 'unmatched' | 'excluded' | 'unknown';
}

export interface Candidate {
  /** A mapping form, mapping key or library location that looks like the path. */
  prefix: string;
  where: string;
  distance: number;
}

export interface Explanation {
  input: string;
  mapping: { match: MappingMatch | null; result: string; configured: number };
  ignore: { list: string[]; matchedBy: string | null };
  kind: 'file' | 'folder';
  folder: string;
  fileExist: { match: MappingMatch | null; path: string; state: PathState; checked: boolean };
  priority: number;
  targets: TargetVerdict[];
  /** What would be scanned: one entry per target that would take the folder. */
  wouldScan: { target: string; path: string; libraries: string[] }[];
  verdict: 'scan' | 'ignored' | 'unmatched' | 'no-targets' | 'unknown';
  summary: string;
  candidates: Candidate[];
  /** A SERVER_PATH_MAPPINGS entry that would make the path reach a library, when one can be guessed. */
  suggestion: { key: string; form: string; line: string } | null;
}

export interface DoctorDeps {
  config: Config;
  targets: Target[];
  pathState: (path: string) => Promise<PathState>;
  fetch?: typeof fetch;
}

export { editDistance };

/** The intake's settings, from the config. */
export function intakeSettings(config: Config): IntakeSettings {
  return {
    pathMappings: config.SERVER_PATH_MAPPINGS,
    fileExistMappings: config.SERVER_FILE_EXIST_PATH_MAPPINGS,
    ignoreList: config.SERVER_IGNORE_LIST,
    priorities: config.SERVER_SCAN_PRIORITIES,
  };
}

export type Doctor = (path: string) => Promise<Explanation>;

/** Builds the doctor for a service or the CLI; library lists are asked from the servers on each call. */
export function createDoctor(deps: DoctorDeps): Doctor {
  return (path) => explainPath(path, deps);
}

export async function explainPath(input: string, deps: DoctorDeps): Promise<Explanation> {
  const { config } = deps;
  const path = input.trim();
  // The same steps the intake takes (paths/route.ts routePath): the doctor can never predict something else.
  const route = await routePath(path, 'auto', intakeSettings(config), deps.pathState);
  const { mapped, match, kind, folder } = route;
  const ignore = route.ignoredBy;
  const exist = route.local;
  const state = exist.state ?? 'missing';
  const base = {
    input: path,
    mapping: { match: match ?? null, result: mapped, configured: mappingCandidates(config.SERVER_PATH_MAPPINGS).length },
    ignore: { list: config.SERVER_IGNORE_LIST, matchedBy: ignore ?? null },
    kind,
    folder,
    fileExist: { match: exist.match ?? null, path: exist.path, state, checked: config.SERVER_MAX_FILE_CHECKS > 0 },
    priority: priorityOf(mapped, config.SERVER_SCAN_PRIORITIES),
  } as const;

  if (ignore !== undefined) {
    return {
      ...base,
      targets: [],
      wouldScan: [],
      verdict: 'ignored',
      summary: `Ignored: the path contains '${ignore}' from SERVER_IGNORE_LIST, so nothing is queued.`,
      candidates: [],
      suggestion: null,
    };
  }

  const targets = await Promise.all(deps.targets.map((t) => judgeTarget(t, folder, deps)));
  const wouldScan = targets
    .filter((t) => t.verdict === 'scan')
    .map((t) => ({ target: t.name, path: t.path, libraries: (t.matches ?? []).map((l) => l.title) }));
  const known = targets.flatMap((t) => t.known.flatMap((l) => l.locations.map((loc) => ({ loc, where: `${t.name}: ${l.title}` }))));
  const nothingHolds = wouldScan.length === 0;
  const candidates = nothingHolds || !match ? closestCandidates(path, config, known) : [];
  const suggestion = nothingHolds ? suggestMapping(path, known.map((k) => k.loc)) : null;

  let verdict: Explanation['verdict'];
  let summary: string;
  if (targets.length === 0) {
    verdict = 'no-targets';
    summary = `Would queue '${folder}', but no media server is configured (set PLEX_TOKEN or add TARGETS).`;
  } else if (!nothingHolds) {
    verdict = 'scan';
    summary = `Would scan ${wouldScan.map((w) => `'${w.path}' on ${w.target}${w.libraries.length ? ` (${w.libraries.join(', ')})` : ''}`).join('; ')}.`;
  } else if (targets.every((t) => t.verdict === 'unknown')) {
    verdict = 'unknown';
    summary = `Would queue '${folder}', but no server could be asked which library holds it.`;
  } else {
    verdict = 'unmatched';
    summary = `No library holds '${folder}'${match ? '' : ' and no SERVER_PATH_MAPPINGS entry matched the path'}: it would be recorded as unmatched at once, not queued.`;
  }
  return { ...base, targets, wouldScan, verdict, summary, candidates, suggestion };
}

/**
 * Where one target would take a folder: its path form, exclusion, and the libraries holding it. The intake asks
 * the same (doctor/judge.ts), with `libraries` answering from its cache instead of asking the server each time.
 */
export async function judgeTarget(
  target: Target,
  folder: string,
  deps: Omit<DoctorDeps, 'pathState'>,
  libraries?: (entry: TargetConfig | undefined) => (() => Promise<Library[]>) | undefined,
): Promise<TargetVerdict> {
  const entry = deps.config.TARGETS.find((t) => t.NAME.toLowerCase() === target.name.toLowerCase());
  const rewrite = entry ? rewriteMatch(folder, entry.PATH_MAPPINGS ?? {}) : null;
  const path = entry ? rewritePath(folder, entry.PATH_MAPPINGS ?? {}) : folder;
  const excluded = entry ? (exclusionOf([folder, path], entry.INCLUDE, entry.EXCLUDE) ?? null) : null;
  const verdict: TargetVerdict = { name: target.name, kind: target.kind, path, rewrite, excluded, matches: null, known: [], error: null, verdict: 'unknown' };
  if (excluded) return { ...verdict, verdict: 'excluded' };
  const source = libraries ? libraries(entry) : librarySource(target, entry, deps);
  if (!source) return { ...verdict, error: 'this server cannot be asked for its library folders (no URL/token); the scan would be tried as is' };
  try {
    const known = await source();
    const matches = known.filter((l) => l.locations.some((loc) => isInside(path, loc)));
    return { ...verdict, known, matches, verdict: matches.length ? 'scan' : 'unmatched' };
  } catch (err) {
    return { ...verdict, error: `could not list libraries: ${(err as Error).message}` };
  }
}

/** The TARGETS[].PATH_MAPPINGS pair rewritePath used, for display. */
function rewriteMatch(folder: string, mappings: Record<string, string[]>): MappingMatch | null {
  let best: MappingMatch | null = null;
  for (const [to, forms] of Object.entries(mappings)) {
    for (const from of forms ?? []) {
      if (from && isInside(folder, from) && (!best || trimTrailingSeparator(from).length > trimTrailingSeparator(best.from).length)) best = { to, from };
    }
  }
  return best;
}

export function librarySource(target: Target, entry: TargetConfig | undefined, deps: Omit<DoctorDeps, 'pathState'>, fresh = false): (() => Promise<Library[]>) | undefined {
  if (target instanceof PlexTarget) {
    // Fresh: straight from Plex, leaving the target's own section cache to its scans.
    return async () => (await (fresh ? target.api.sections() : target.sections.all())).map((s) => ({ title: `${s.title} (section ${s.id})`, locations: s.locations }));
  }
  const plexAt = (url: string, token: string) => async () =>
    (await new PlexApi({ url, token, fetch: deps.fetch }).sections()).map((s) => ({ title: `${s.title} (section ${s.id})`, locations: s.locations }));
  if (!entry) {
    // The first Plex on the scanner route: its sections are known through the API when a token is set.
    return target.kind === 'plex-scanner' && deps.config.PLEX_TOKEN ? plexAt(deps.config.PLEX_LOCAL_URL, deps.config.PLEX_TOKEN) : undefined;
  }
  if (!entry.URL || !entry.TOKEN) return undefined;
  if (entry.TYPE === 'plex' || entry.TYPE === 'plex-scanner') return plexAt(entry.URL, entry.TOKEN);
  if (entry.TYPE !== 'jellyfin' && entry.TYPE !== 'emby') return undefined;
  const flavour = entry.TYPE === 'jellyfin' ? jellyfin : emby;
  return () => mediaBrowserLibraries(flavour, entry.URL!, entry.TOKEN!, deps.fetch ?? httpFetch);
}

async function mediaBrowserLibraries(flavour: MediaBrowserFlavour, url: string, token: string, send: typeof fetch): Promise<Library[]> {
  const res = await send(url.replace(/\/+$/, '') + flavour.librariesPath, {
    headers: { Accept: 'application/json', ...flavour.authHeaders(token) },
    signal: AbortSignal.timeout(15_000),
  });
  if (!res.ok) throw new Error(`HTTP ${res.status} on GET ${flavour.librariesPath}`);
  return flavour.parseLibraries(await res.json()).map((l) => ({ title: l.name, locations: l.locations }));
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
export function suggestMapping(path: string, locations: string[]): Explanation['suggestion'] {
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
  if (!best) return null;
  return { key: best.key, form: best.form, line: `"SERVER_PATH_MAPPINGS": { ${JSON.stringify(best.key)}: [${JSON.stringify(best.form)}] }` };
}

/** The explanation as numbered steps for a terminal or a <pre>. */
export function explanationText(e: Explanation): string {
  const out: string[] = [];
  const m = e.mapping.match;
  out.push(`Path: ${e.input}`);
  out.push('');
  out.push(`1. SERVER_PATH_MAPPINGS (${e.mapping.configured} form(s) configured)`);
  out.push(m ? `   matched ${m.rule !== undefined ? `rule '${m.rule}' ` : ''}'${m.from}' -> '${m.to}'\n   result: ${e.mapping.result}` : `   no mapping matched; the path is used as is: ${e.mapping.result}`);
  out.push(`2. SERVER_IGNORE_LIST [${e.ignore.list.map((s) => `'${s}'`).join(', ')}]`);
  out.push(e.ignore.matchedBy !== null ? `   IGNORED: the path contains '${e.ignore.matchedBy}'` : '   not ignored');
  if (e.verdict !== 'ignored') {
    const f = e.fileExist;
    out.push(`3. File check (SERVER_FILE_EXIST_PATH_MAPPINGS${f.match ? ` '${f.match.from}' -> '${f.match.to}'` : ': none matched'})`);
    out.push(`   ${f.path}: ${f.state === 'missing' ? 'does not exist here' : `exists (${f.state})`}${f.checked ? '' : ' (SERVER_MAX_FILE_CHECKS is 0: not waited for)'}`);
    out.push(`4. Folder to scan: ${e.folder} (the path is a ${e.kind}); priority ${e.priority}`);
    out.push(`5. Targets`);
    if (e.targets.length === 0) out.push('   none configured');
    for (const t of e.targets) {
      out.push(`   ${t.name} (${t.kind}): ${t.path}${t.rewrite ? ` (rewritten '${t.rewrite.from}' -> '${t.rewrite.to}')` : ''}`);
      if (t.excluded) out.push(`     ${t.excluded}`);
      if (t.error) out.push(`     ${t.error}`);
      if (t.matches?.length) for (const l of t.matches) out.push(`     in library ${l.title}: ${l.locations.join(', ')}`);
      else if (t.matches) out.push(`     no library holds it; libraries: ${t.known.map((l) => `${l.title}: ${l.locations.join(', ')}`).join('; ') || 'none'}`);
    }
  }
  out.push('');
  out.push(`Result: ${e.summary}`);
  if (e.candidates.length) {
    out.push('Closest known prefixes:');
    for (const c of e.candidates) out.push(`  ${c.prefix}  (${c.where}, ${c.distance} edit(s) away)`);
  }
  if (e.suggestion) out.push(`Suggested mapping: ${e.suggestion.line}`);
  return out.join('\n') + '\n';
}
