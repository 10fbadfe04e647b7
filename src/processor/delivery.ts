// One delivery: one folder to one target. RUN_COMMAND_BEFORE_SCAN, the scan in the server's spelling, and its
// outcome recorded: scanned (handed to the follow-up stage when the target follows it), unmatched, refused (a
// library's own folder), or a retry backed off for this folder alone, with the server marked down only when it was
// silent, and held as a whole only when it asked for that (Retry-After).
import type { Activity } from '../activity.js';
import type { Clock } from '../clock.js';
import type { FollowStage } from '../follow/stage.js';
import type { Logger } from '../log/logger.js';
import type { Queue } from '../queue/store.js';
import type { DueDelivery, ScanOutcome, Target } from '../scan.js';
import { runScanCommand, type CommandEnv, type CommandRunner } from '../scan-commands.js';
import { holders } from '../targets/library-list.js';
import type { Availability, TargetState } from './availability.js';
import { backoffDelay } from './backoff.js';
import { askedHold, holdServer } from './server-hold.js';
import type { ProcessorSettings } from './settings.js';
import { typed } from '../version.js';

export interface DeliveryDeps {
  queue: Queue;
  clock: Clock;
  logger: Logger;
  settings: ProcessorSettings;
  random: () => number;
  activity?: Activity;
  runCommand?: CommandRunner;
  followUps: FollowStage;
  availability: Availability;
  /** Scans each server holds unfinished, by folder. */
  /** Every target's name: a folder is finished when each has a final delivery. */
  targetNames: string[];
  /** The folder as the server should be asked (the row is keyed in NFC). */
  spelling: (row: DueDelivery) => string;
  /** The row is all deletes whose paths are still on disk (FileChecks.kept): sent as a change, not a delete. */
  kept?: (row: DueDelivery) => boolean;
  /** Shutdown stopped waiting: a late answer is not recorded. */
  abandoned: () => boolean;
}

export async function deliver(state: TargetState, row: DueDelivery, deps: DeliveryDeps): Promise<void> {
  const { queue, clock, logger, settings } = deps;
  const started = clock.now();
  await runBeforeScan(settings.commandBefore ?? '', state.target, row, logger, deps.runCommand);
  let outcome: ScanOutcome;
  try {
    // The row is keyed in NFC; the server is asked in the spelling its disk (or the sender) uses.
    const folder = deps.spelling(row);
    const spelt = (path: string) => (folder === row.folder ? path : path.normalize('NFD'));
    outcome = await state.target.scan(folder, {
      event: row.event,
      source: row.source,
      file: row.fileHint === undefined ? undefined : spelt(row.fileHint),
      deleted: row.anyDeleted && !deps.kept?.(row),
      ...(row.files ? { files: { ...row.files, live: row.files.live.map(spelt), gone: row.files.gone.map(spelt) } } : {}),
      ...(row.ids ? { ids: row.ids } : {}),
      ...(row.libraryRoot ? { libraryRoot: true } : {}),
    });
  } catch (err) {
    outcome = { status: 'retry', error: `unexpected error: ${String(err)}`, targetDown: false };
  }
  if (deps.abandoned()) return; // the queue is closing: the delivery stays pending for the next start
  const now = clock.now();
  const name = state.target.name;
  const latencyMs = now - row.firstAt;
  if (outcome.status !== 'retry' || !outcome.targetDown) state.lastHeardAt = now;
  if (outcome.status === 'scanned') {
    state.scanned++;
    const again = row.rescans > 0 ? ' once more' : '';
    logger.info({ target: name, folder: row.folder, detail: outcome.detail }, `Scanned '${row.folder}'${again} on ${name}${outcome.detail ? ` (${outcome.detail})` : ''}.`);
    await deps.followUps.handOver(state.target, row, outcome, now);
  } else if (outcome.status === 'unmatched') {
    const detail = `'${row.folder}' is in no library of ${name}, so nothing was scanned there.\n${outcome.detail} ${explainHint(row)}`;
    logger.warn({ target: name, folder: row.folder }, `'${row.folder}' is in no library of ${name}: ${outcome.detail} ${explainHint(row)}`);
    await queue.grouped(() => queue.recordDelivery(row, name, { state: 'unmatched', detail }, deps.targetNames));
  } else if (outcome.status === 'refused') {
    const detail = `${outcome.detail} ${explainHint(row)}`;
    logger.warn({ target: name, folder: row.folder }, `Refused to scan '${row.folder}' on ${name}: ${detail}`);
    await queue.grouped(() => queue.recordDelivery(row, name, { state: 'refused', detail }, deps.targetNames));
  } else {
    state.failed++;
    const attempts = row.attempts + 1;
    // A server that said when to come back is left alone until then, all its folders; any other failure backs off
    // its own folder, and only silence takes the whole server down (one line per change).
    const hold = askedHold(outcome, now, settings.retryMaxDelayMs);
    const nextAt = hold?.until ?? now + backoffDelay(attempts, { baseMs: 5_000, capMs: settings.retryMaxDelayMs, random: deps.random });
    await queue.grouped(() => queue.recordDelivery(row, name, { state: 'retry', error: outcome.error, nextAt }, deps.targetNames));
    if (hold) holdServer(state, hold, now, outcome.error, logger);
    else {
      logger.warn(
        { target: name, folder: row.folder, attempts },
        `Scan of '${row.folder}' on ${name} failed (attempt ${attempts}): ${outcome.error}. Retrying in ${Math.round((nextAt - now) / 1000)} s; the folder stays queued.`,
      );
    }
    if (outcome.targetDown) deps.availability.noAnswer(state, outcome.error);
    else if (outcome.tokenRefused) deps.availability.probeSoon(state);
  }
  deps.activity?.emit('delivery', {
    folder: row.folder,
    target: name,
    outcome: outcome.status,
    detail: outcome.status === 'retry' ? outcome.error : outcome.detail,
    latencyMs,
    deliveryMs: now - started,
  });
  state.lastFinishedAt = clock.now();
}

/** The path as received is what to explain: mappings do not chain, so explaining the mapped one misleads. */
function explainHint(row: DueDelivery): string {
  return `Try: ${typed(`explain '${row.received ?? row.fileHint ?? row.folder}'`)}.`;
}

/**
 * RUN_COMMAND_BEFORE_SCAN: part of the delivery (plex_autoscan ran it before every scan), for every target kind;
 * its failure is only logged.
 */
export async function runBeforeScan(
  command: string,
  target: Pick<Target, 'name' | 'pathOf' | 'libraries'>,
  row: { folder: string; fileHint?: string; event: string },
  logger: Logger,
  runCommand?: CommandRunner,
): Promise<void> {
  if (!command.trim()) return;
  const sections = await sectionsOf(target, row.folder);
  const env: CommandEnv = {
    SCANRELAY_PATH: row.fileHint ?? row.folder,
    SCANRELAY_FOLDER: row.folder,
    SCANRELAY_SECTION: sections.join(','),
    SCANRELAY_EVENT: row.event,
    SCANRELAY_TARGET: target.name,
  };
  await runScanCommand('before', command, env, logger, runCommand);
}

/** The ids of the target's libraries holding a folder, where its list tells them; none when it cannot. */
async function sectionsOf(target: Pick<Target, 'pathOf' | 'libraries'>, folder: string): Promise<string[]> {
  if (!target.libraries) return [];
  const path = target.pathOf?.(folder).path ?? folder;
  const libraries = await target.libraries({ holding: path }).catch(() => []);
  return holders(libraries, path).map((l) => l.id);
}
