// The intake's question, answered the path doctor's way: is a folder in no library of any target, and what
// should the sender be told then? Also how the relay's own checks read a target's libraries without waiting long.
import type { Config } from '../config/schema.js';
import type { LibraryJudge, Unmatched } from '../intake/intake.js';
import type { MappingMatch } from '../paths/mapping.js';
import type { Library, Target } from '../scan.js';
import { closestCandidates, judgeTarget, suggestMapping, type LibraryReader } from './explain.js';
import { typed } from '../version.js';

/** A server that hangs must not hold the webhook: after this the path is queued as always. */
const JUDGE_WAIT_MS = 3_000;
/** A target that could not be asked (down, refused token) is not asked again for every webhook before this. */
const FAILED_MAX_AGE_MS = 30_000;

/**
 * A target's libraries as the relay's own checks read them: from the target's list, never waiting more than
 * JUDGE_WAIT_MS on its server, and not asking again within FAILED_MAX_AGE_MS a server that just failed (the
 * failure is thrown again). The intake's judge and hash= (src/hash/scope.ts) each keep one.
 */
export function boundedLibraryReader(now: () => number): LibraryReader {
  const failed = new Map<string, { at: number; error: unknown }>();
  return async (target, ask) => {
    const last = failed.get(target.name);
    if (last && now() - last.at < FAILED_MAX_AGE_MS) throw last.error;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('no answer in time')), JUDGE_WAIT_MS);
      timer.unref();
    });
    try {
      const libraries = await Promise.race([target.libraries!(ask), late]);
      failed.delete(target.name);
      return libraries;
    } catch (error) {
      failed.set(target.name, { at: now(), error });
      throw error;
    } finally {
      clearTimeout(timer);
    }
  };
}

/**
 * The intake's question, answered by the doctor's own judgeTarget: is a folder in no library of any target? The
 * libraries come from each target's own list (read again when a folder is in none of them), so a burst of
 * webhooks costs no requests. A target that cannot be asked (down, slow, refused token) makes the answer "queue
 * it": nothing is refused on a guess.
 */
export function createLibraryJudge(deps: { config: Config; targets: Target[]; now: () => number }): LibraryJudge {
  const read = boundedLibraryReader(deps.now);
  return async (received, folder, match) => {
    const known: { target: string; libraries: Library[] }[] = [];
    for (const target of deps.targets) {
      const verdict = await judgeTarget(target, folder, read);
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
  const explain = typed(`explain '${received}'`);
  if (match) {
    return {
      summary: `'${received}' was mapped to '${folder}', which is in no library of ${servers}: not queued.`,
      advice: `The SERVER_PATH_MAPPINGS entry '${match.to}' ← '${match.from}' leads outside every library (${libraries}). Fix that entry and press Retry on the dashboard; ${explain} shows every step.`,
    };
  }
  const closest = closestCandidates(received, config, locations, 3).map((c) => `'${c.prefix}'`);
  const suggestion = suggestMapping(received, locations.map((l) => l.loc), config.SERVER_PATH_MAPPINGS);
  return {
    summary: `'${received}' is in no library of ${servers} and no SERVER_PATH_MAPPINGS entry matched it: not queued.`,
    advice:
      `${suggestion ? suggestion.line : 'Add a SERVER_PATH_MAPPINGS entry that turns it into a library path'}, then press Retry on the dashboard. ` +
      `Closest prefixes: ${closest.join(', ') || 'none'}. Libraries: ${libraries}. ${explain} shows every step.`,
  };
}
