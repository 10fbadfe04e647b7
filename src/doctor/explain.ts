// The path doctor: follows one path through every step the relay would take and says where it goes wrong. It asks
// each target only through its capabilities (src/scan.ts: pathOf, libraries), so every kind gets the doctor.
import type { Config } from '../config/schema.js';
import type { PathState } from '../paths/disk.js';
import { mappingCandidates, priorityOf } from '../paths/mapping.js';
import { routePath, type IntakeSettings } from '../paths/route.js';
import type { Library, Target } from '../scan.js';
import { holders } from '../targets/library-list.js';
import type { Explanation, TargetVerdict } from './explanation.js';
import { closestCandidates, suggestMapping, type Candidate } from './suggest.js';

export { closestCandidates, suggestMapping, type Candidate, type Explanation, type Library, type TargetVerdict };
export { explanationText } from './text.js';

export interface DoctorDeps {
  config: Config;
  targets: Target[];
  pathState: (path: string) => Promise<PathState>;
}

/** How a caller reads a target's libraries: the doctor asks the server now, the intake's judge within bounds. */
export type LibraryReader = (target: Target, ask: { fresh?: boolean; holding?: string }) => Promise<Library[]>;

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
    const summary = `Ignored: the path contains '${ignore}' from SERVER_IGNORE_LIST, so nothing is queued.`;
    return { ...base, targets: [], wouldScan: [], verdict: 'ignored', summary, candidates: [], suggestion: null };
  }

  const targets = await Promise.all(deps.targets.map((t) => judgeTarget(t, folder, (target, ask) => target.libraries!({ ...ask, fresh: true }), true)));
  const wouldScan = targets
    .filter((t) => t.verdict === 'scan')
    .map((t) => ({ target: t.name, path: t.path, libraries: (t.matches ?? []).map((l) => l.title) }));
  const known = targets.flatMap((t) => t.known.flatMap((l) => l.locations.map((loc) => ({ loc, where: `${t.name}: ${l.title}` }))));
  const nothingHolds = wouldScan.length === 0;
  const candidates = nothingHolds || !match ? closestCandidates(path, config, known) : [];
  const suggestion = nothingHolds ? suggestMapping(path, known.map((k) => k.loc), config.SERVER_PATH_MAPPINGS) : null;

  let verdict: Explanation['verdict'];
  let summary: string;
  if (targets.length === 0) {
    verdict = 'no-targets';
    summary = `Would queue '${folder}', but no media server is configured (set PLEX_TOKEN or add TARGETS).`;
  } else if (!nothingHolds && base.fileExist.checked && state === 'missing' && !config.SERVER_SCAN_FOLDER_ON_FILE_EXISTS_EXHAUSTION) {
    verdict = 'gives-up';
    summary = givesUp(exist.path, exist.match !== undefined, config);
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
 * the same (doctor/judge.ts), reading the libraries its own way.
 */
export async function judgeTarget(target: Target, folder: string, read: LibraryReader, explainScan = false): Promise<TargetVerdict> {
  const { path, rewrite, excluded } = target.pathOf?.(folder) ?? { path: folder };
  const verdict: TargetVerdict = { name: target.name, kind: target.kind, path, rewrite: rewrite ?? null, excluded: excluded ?? null, matches: null, known: [], error: null, verdict: 'unknown' };
  if (excluded) return { ...verdict, verdict: 'excluded' };
  // A target without a library list takes whatever it is sent.
  if (!target.libraries) return { ...verdict, matches: [], verdict: 'scan' };
  try {
    const known = await read(target, { holding: path });
    const matches = holders(known, path);
    if (matches.length === 0) return { ...verdict, known, matches, verdict: 'unmatched' };
    // The doctor only (the intake's judge must stay cheap), where the target can say more than "scanned" (which item a Jellyfin folder refreshes); never fatal.
    const scan = explainScan && (await target.explainScan?.(path).catch((err: Error) => `could not tell what the scan would refresh: ${err.message}`));
    return { ...verdict, known, matches, verdict: 'scan', ...(scan ? { scan } : {}) };
  } catch (err) {
    return { ...verdict, error: `could not list libraries: ${(err as Error).message}` };
  }
}

/** The steps say the file is not where the check looks: the verdict says what the relay would then do, and the key. */
function givesUp(local: string, mapped: boolean, config: Config): string {
  const wait = Math.round((config.SERVER_MAX_FILE_CHECKS * config.SERVER_FILE_CHECK_DELAY) / 60);
  const how = mapped
    ? 'check the SERVER_FILE_EXIST_PATH_MAPPINGS entry that matched'
    : 'set SERVER_FILE_EXIST_PATH_MAPPINGS to where scanrelay sees it: { "<path here>/": ["<media server\'s path>/"] }';
  return `Would wait for '${local}' to appear (${config.SERVER_MAX_FILE_CHECKS} checks, about ${wait} min), then give up and scan nothing: it does not exist where scanrelay looks. If the file is there, ${how}. (A deletion is scanned without waiting.)`;
}
