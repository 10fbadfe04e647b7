// The intake's question, answered the path doctor's way: is a folder in no library of any target, and what
// should the sender be told then?
import type { Config, TargetConfig } from '../config/schema.js';
import type { LibraryJudge, Unmatched } from '../intake.js';
import type { MappingMatch } from '../paths/mapping.js';
import type { Target } from '../scan.js';
import { closestCandidates, judgeTarget, librarySource, suggestMapping, type DoctorDeps, type Library } from './explain.js';

/** Library lists are asked again after this, or after half of it when a folder was in none of them. */
const LIBRARIES_MAX_AGE_MS = 60_000;
const JUDGE_WAIT_MS = 3_000;
/** A target that could not be asked (down, refused token) is asked again after this. */
const FAILED_MAX_AGE_MS = 30_000;

/**
 * The intake's question, answered by the doctor's own judgeTarget: is a folder in no library of any target?
 * Each target's library list is kept for a minute (asked again sooner on a miss), so a burst of webhooks costs
 * no requests. A target that cannot be asked (down, no token) makes the answer "queue it": nothing is refused
 * on a guess.
 */
export function createLibraryJudge(deps: Omit<DoctorDeps, 'pathState'> & { now: () => number }): LibraryJudge {
  const cache = new Map<string, { at: number; libraries?: Library[]; error?: unknown }>();
  /** One question per target at a time: a burst of webhooks during a refresh waits for the same answer. */
  const asking = new Map<string, Promise<Library[]>>();
  /** The target's libraries from the cache, asked again when older than a minute (half that after a miss). */
  const cached = (target: Target, missed: boolean) => (entry: TargetConfig | undefined) => {
    const source = librarySource(target, entry, deps, true);
    if (!source) return undefined;
    return async (): Promise<Library[]> => {
      const hit = cache.get(target.name);
      const age = hit ? deps.now() - hit.at : Infinity;
      // A server that could not be asked is not asked again for every webhook: its failure is kept as long.
      if (hit?.error !== undefined && age < FAILED_MAX_AGE_MS) throw hit.error;
      if (hit?.libraries && age < (missed ? LIBRARIES_MAX_AGE_MS / 2 : LIBRARIES_MAX_AGE_MS)) return hit.libraries;
      const pending = asking.get(target.name);
      if (pending) return pending;
      // A server that hangs must not hold the webhook: after a few seconds the path is queued as always.
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error('no answer in time')), JUDGE_WAIT_MS);
        timer.unref();
      });
      const question = Promise.race([source(), late])
        .then((libraries) => {
          cache.set(target.name, { at: deps.now(), libraries });
          return libraries;
        })
        .catch((error: unknown) => {
          cache.set(target.name, { at: deps.now(), error });
          throw error;
        })
        .finally(() => {
          clearTimeout(timer);
          asking.delete(target.name);
        });
      asking.set(target.name, question);
      return question;
    };
  };
  return async (received, folder, match) => {
    const known: { target: string; libraries: Library[] }[] = [];
    for (const target of deps.targets) {
      let verdict = await judgeTarget(target, folder, deps, cached(target, false));
      // A library may have been added since the list was asked: ask again before calling it unmatched.
      if (verdict.verdict === 'unmatched') verdict = await judgeTarget(target, folder, deps, cached(target, true));
      if (verdict.verdict === 'excluded') continue;
      if (verdict.verdict !== 'unmatched') return null; // it scans there, or the server cannot be asked
      known.push({ target: target.name, libraries: verdict.known });
    }
    if (known.length === 0) return null;
    return unmatchedAdvice(received, folder, match, known, deps.config);
  };
}

/** What to tell the sender and the log about a path that reaches no library. */
function unmatchedAdvice(received: string, folder: string, match: MappingMatch | undefined, known: { target: string; libraries: Library[] }[], config: Config): Unmatched {
  const servers = known.map((k) => k.target).join(', ');
  const locations = known.flatMap((k) => k.libraries.flatMap((l) => l.locations.map((loc) => ({ loc, where: `${k.target}: ${l.title}` }))));
  const libraries = locations.map((l) => `${l.where} (${l.loc})`).join('; ') || 'none';
  const explain = `scanrelay explain '${received}'`;
  if (match) {
    return {
      summary: `'${received}' was mapped to '${folder}', which is in no library of ${servers}: not queued.`,
      advice: `The SERVER_PATH_MAPPINGS entry '${match.to}' ← '${match.from}' leads outside every library (${libraries}). Fix that entry and press Retry on the dashboard; ${explain} shows every step.`,
    };
  }
  const closest = closestCandidates(received, config, locations, 3).map((c) => `'${c.prefix}'`);
  const suggestion = suggestMapping(received, locations.map((l) => l.loc));
  return {
    summary: `'${received}' is in no library of ${servers} and no SERVER_PATH_MAPPINGS entry matched it: not queued.`,
    advice:
      `Add a SERVER_PATH_MAPPINGS entry that turns it into a library path${suggestion ? `, for example ${suggestion.line}` : ''}, then press Retry on the dashboard. ` +
      `Closest prefixes: ${closest.join(', ') || 'none'}. Libraries: ${libraries}. ${explain} shows every step.`,
  };
}
