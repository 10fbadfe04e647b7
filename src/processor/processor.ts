// The loop that turns due queue rows into deliveries: existence checks, anchors, per-target dispatch and retries.
// A delivery ends when the server accepted the scan; following it to its end is the follow-up stage's job.
import { stat } from 'node:fs/promises';
import type { Activity } from '../activity.js';
import type { Clock } from '../clock.js';
import { FollowStage } from '../follow/stage.js';
import type { Logger } from '../log.js';
import { mapPath, type PathMappings } from '../paths/mapping.js';
import type { FolderRow, PendingRow, Queue } from '../queue/store.js';
import { runScanCommand, type CommandRunner } from '../targets/commands.js';
import type { ExternalIds } from '../request.js';
import type { ItemRefresher } from '../targets/refresh-items.js';
import type { ScanOutcome, Target } from '../targets/target.js';
import { backoffDelay } from './backoff.js';

export interface ProcessorSettings {
  /** SERVER_FILE_EXIST_PATH_MAPPINGS: media-server path -> path where this service can stat the file. */
  fileExistMappings: PathMappings;
  /** SERVER_MAX_FILE_CHECKS (0 = no check). */
  maxFileChecks: number;
  /** SERVER_FILE_CHECK_DELAY in ms. */
  fileCheckDelayMs: number;
  /** SERVER_SCAN_FOLDER_ON_FILE_EXISTS_EXHAUSTION. */
  folderOnExhaustion: boolean;
  /** SERVER_ANCHOR_FILES (+ PLEX_EMPTY_TRASH_CONTROL_FILES where configured): all must exist before any scan. */
  anchors: string[];
  /** Cap of a folder's retry backoff (SERVER_SCAN_RETRY_MAX_DELAY in ms). */
  retryMaxDelayMs: number;
  /** RUN_COMMAND_BEFORE_SCAN / RUN_COMMAND_AFTER_SCAN ('' = none), for every target kind. */
  commandBefore?: string;
  commandAfter?: string;
  /** How often an idle target that is up is asked whether it still answers (a wrong token shows at once). */
  idleProbeMs?: number;
}

/** Deliveries in flight per target when the target sets no concurrency and no pause. */
export const DEFAULT_CONCURRENCY = 8;

export type PathState = 'file' | 'folder' | 'missing';

export interface ProcessorDeps {
  queue: Queue;
  targets: Target[];
  clock: Clock;
  logger: Logger;
  settings: ProcessorSettings;
  activity?: Activity;
  /** Looks at the disk; injectable so tests can fake a slow or flaky mount. */
  pathState?: (path: string) => Promise<PathState>;
  random?: () => number;
  runCommand?: CommandRunner;
  /** Item refresh by target name (see src/targets/refresh-items.ts). */
  refreshers?: Map<string, ItemRefresher>;
  /** RCLONE.RC_CACHE_REFRESH: told of each missing file before its next check (src/rclone/remote-control.ts). */
  refreshCache?: (localPath: string) => Promise<void>;
}

export interface TargetHealth {
  name: string;
  kind: string;
  up: boolean;
  lastError?: string;
  downSince?: number;
  nextProbeAt?: number;
  inFlight: number;
  scanned: number;
  failed: number;
}

interface TargetState {
  target: Target;
  up: boolean;
  lastError?: string;
  downSince?: number;
  probeDelayMs: number;
  nextProbeAt: number;
  probing: boolean;
  /** When the target last showed it answers (a probe or a scan); idle targets are probed a minute after. */
  lastHeardAt: number;
  inFlight: Set<number>;
  lastFinishedAt: number;
  scanned: number;
  failed: number;
}

const PROBE_MAX_MS = 30_000; // a target that comes back is used again within this
const IDLE_PROBE_MS = 60_000;
const CHECK_BATCH = 256;

export async function diskPathState(path: string): Promise<PathState> {
  try {
    const s = await stat(path);
    return s.isDirectory() ? 'folder' : 'file';
  } catch {
    return 'missing';
  }
}

export class Processor {
  private readonly deps: Required<Omit<ProcessorDeps, 'activity' | 'runCommand' | 'refreshers' | 'refreshCache'>> &
    Pick<ProcessorDeps, 'activity' | 'runCommand' | 'refreshers' | 'refreshCache'>;
  /** The follow-up stage of the targets that follow their scans (Plex). */
  readonly followUps: FollowStage;
  private readonly states: TargetState[];
  private readonly inFlight = new Set<Promise<void>>();
  private running = false;
  private wakeUp?: () => void;
  /** When the sleeping loop will pass next on its own (undefined while a pass runs). */
  private sleepingUntil?: number;
  /** A wake-up arrived during a pass: pass again at once instead of sleeping. */
  private again = false;
  private wakeQueued = false;
  private loopDone?: Promise<void>;
  private anchorProblem?: string;
  private checking = new Set<number>();

  constructor(deps: ProcessorDeps) {
    this.deps = { pathState: diskPathState, random: Math.random, ...deps };
    this.states = deps.targets.map((target) => ({
      target,
      up: true,
      probeDelayMs: 0,
      nextProbeAt: 0,
      probing: false,
      lastHeardAt: -Infinity,
      inFlight: new Set(),
      lastFinishedAt: 0,
      scanned: 0,
      failed: 0,
    }));
    this.followUps = new FollowStage({
      queue: deps.queue,
      targets: deps.targets,
      clock: deps.clock,
      logger: deps.logger,
      activity: deps.activity,
      commandAfter: deps.settings.commandAfter ?? '',
      runCommand: deps.runCommand,
      rescanDelayMs: deps.settings.fileCheckDelayMs,
      onRescan: (at) => this.wake(at),
      refreshers: deps.refreshers,
    });
  }

  get targetNames(): string[] {
    return this.states.map((s) => s.target.name);
  }

  /** Why scans are held, when an anchor file is missing. */
  get held(): string | undefined {
    return this.anchorProblem;
  }

  health(): TargetHealth[] {
    return this.states.map((s) => ({
      name: s.target.name,
      kind: s.target.kind,
      up: s.up,
      lastError: s.lastError,
      downSince: s.downSince,
      nextProbeAt: s.up ? undefined : s.nextProbeAt,
      inFlight: s.inFlight.size,
      scanned: s.scanned,
      failed: s.failed,
    }));
  }

  /** One pass: run due existence checks and start every scan that may start now. Does not wait for scans. */
  async tick(): Promise<void> {
    if (!(await this.anchorsPresent())) return;
    await this.runChecks();
    for (const state of this.states) this.dispatch(state);
  }

  /** Waits until no scan or probe is in flight (tests; shutdown). */
  async idle(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  /** Ticks and waits until nothing more is due now and every follow-up has ended (tests). */
  async drain(maxRounds = 10_000): Promise<void> {
    this.followUps.start();
    for (let i = 0; i < maxRounds; i++) {
      await this.tick();
      if (this.inFlight.size === 0 && !this.followUps.busy) return;
      await this.idle();
      await this.followUps.idle();
    }
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    // The loop's first pass asks each target, so a wrong token or a stopped server shows before a scan is due.
    this.followUps.start();
    this.loopDone = this.loop();
  }

  /** Stops taking new work, waits for deliveries in flight; follow-ups left stay recorded and resume at start. */
  async stop(): Promise<void> {
    this.running = false;
    this.wake();
    await this.loopDone;
    await this.idle();
    await this.followUps.stop();
  }

  /**
   * Something changed (a scan finished, a person acted): run a pass soon. With `dueAt` (a request was
   * queued, due then), nothing happens unless that is earlier than the loop's next pass anyway, so a burst of
   * webhooks under SERVER_SCAN_DELAY costs no passes. Wake-ups within one turn of the event loop share a pass.
   */
  wake(dueAt?: number): void {
    if (this.sleepingUntil === undefined) {
      // A pass is running; it reads the queue's next due time when it ends, so only other news must re-run it.
      if (dueAt === undefined) this.again = true;
      return;
    }
    if (dueAt !== undefined && dueAt >= this.sleepingUntil) return;
    if (this.wakeQueued) return;
    this.wakeQueued = true;
    setImmediate(() => {
      this.wakeQueued = false;
      this.wakeUp?.();
    });
  }

  private async loop(): Promise<void> {
    while (this.running) {
      try {
        this.probeIdle();
        await this.tick();
      } catch (err) {
        this.deps.logger.error({ err: String(err) }, 'processor pass failed; trying again in a second');
      }
      if (!this.running) break;
      if (this.again) {
        this.again = false;
        await new Promise<void>((resolve) => setImmediate(resolve));
        continue;
      }
      const now = this.deps.clock.now();
      const next = this.deps.queue.nextDue(this.targetNames) ?? now + 1000;
      const probes = this.states.filter((s) => !s.up).map((s) => s.nextProbeAt);
      const wait = Math.max(5, Math.min(1000, Math.min(next, ...probes) - now));
      this.sleepingUntil = now + wait;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, wait);
        this.wakeUp = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wakeUp = undefined;
      this.sleepingUntil = undefined;
    }
  }

  private async anchorsPresent(): Promise<boolean> {
    const { anchors } = this.deps.settings;
    if (!anchors.length) return true;
    for (const anchor of anchors) {
      if ((await this.deps.pathState(anchor)) === 'missing') {
        if (this.anchorProblem === undefined) {
          this.deps.logger.warn(
            { anchor },
            `anchor file '${anchor}' is missing: scans wait until it is back (is the mount up?)`,
          );
        }
        this.anchorProblem = `anchor file '${anchor}' is missing`;
        return false;
      }
    }
    if (this.anchorProblem !== undefined) this.deps.logger.info('anchor files are back: scans resume');
    this.anchorProblem = undefined;
    return true;
  }

  private async runChecks(): Promise<void> {
    const rows = this.deps.queue.dueWaiting(CHECK_BATCH).filter((r) => !this.checking.has(r.id));
    await Promise.all(rows.map((row) => this.check(row)));
  }

  /** The existence check of plex_autoscan: wait for the file to appear before scanning its folder. */
  private async check(row: FolderRow): Promise<void> {
    const { queue, settings, logger, clock } = this.deps;
    this.checking.add(row.id);
    try {
      if (row.all_deleted || settings.maxFileChecks <= 0) {
        this.begin(row);
        return;
      }
      const subject = row.file_hint ?? row.folder;
      const local = mapPath(subject, settings.fileExistMappings).path;
      const checks = row.checks + 1;
      if ((await this.deps.pathState(local)) !== 'missing') {
        logger.debug({ path: local, check: checks }, `File '${local}' exists on check ${checks} of ${settings.maxFileChecks}.`);
        this.begin(row);
        return;
      }
      if (row.any_deleted) {
        // A merged request said something in this folder is gone: the folder must be scanned regardless.
        this.begin(row);
        return;
      }
      await this.deps.refreshCache?.(local);
      if (checks < settings.maxFileChecks) {
        const msg = `File '${local}' did not exist on check ${checks} of ${settings.maxFileChecks}. Checking again in ${Math.round(settings.fileCheckDelayMs / 1000)} seconds...`;
        logger.info({ path: local, folder: row.folder }, msg);
        queue.deferCheck(row, checks, clock.now() + settings.fileCheckDelayMs, msg);
        return;
      }
      if (settings.folderOnExhaustion && row.file_hint) {
        const folderLocal = mapPath(row.folder, settings.fileExistMappings).path;
        if ((await this.deps.pathState(folderLocal)) === 'folder') {
          logger.warn(
            { path: local, folder: row.folder },
            `File '${local}' exhausted all available checks; scanning its folder '${row.folder}' instead (SERVER_SCAN_FOLDER_ON_FILE_EXISTS_EXHAUSTION).`,
          );
          this.begin(row);
          return;
        }
      }
      // One sentence for people, then the technical part (the dashboard shows it behind "details").
      const detail =
        `The file never appeared where scanrelay looks for it, so nothing was scanned.\n` +
        `File '${local}' exhausted all available checks (${settings.maxFileChecks}). If the file is there, check SERVER_FILE_EXIST_PATH_MAPPINGS (try: scanrelay explain '${row.received ?? row.file_hint ?? row.folder}').`;
      logger.warn({ path: local, folder: row.folder }, detail.replace('\n', ' '));
      queue.finish(row, 'exhausted', detail);
      this.deps.activity?.emit('finished', { folder: row.folder, outcome: 'exhausted', detail });
    } catch (err) {
      logger.error({ folder: row.folder, err: String(err) }, `existence check of '${row.folder}' failed; will retry`);
    } finally {
      this.checking.delete(row.id);
    }
  }

  private begin(row: FolderRow): void {
    if (this.deps.queue.startDispatch(row, this.targetNames)) {
      for (const state of this.states) this.dispatch(state);
    }
  }

  private dispatch(state: TargetState): void {
    const { clock } = this.deps;
    const now = clock.now();
    if (!state.up) {
      if (!state.probing && now >= state.nextProbeAt) this.probe(state);
      return;
    }
    const pause = state.target.pauseMs;
    const limit = pause > 0 ? 1 : Math.max(1, state.target.concurrency ?? DEFAULT_CONCURRENCY);
    let free = limit - state.inFlight.size;
    if (free <= 0) return;
    if (pause > 0 && now < state.lastFinishedAt + pause) return;
    const rows = this.deps.queue.pendingFor(state.target.name, free + state.inFlight.size);
    for (const row of rows) {
      if (free <= 0) break;
      if (state.inFlight.has(row.id)) continue;
      free--;
      this.launch(state, row);
    }
  }

  private track(p: Promise<void>): void {
    // A scan's result that cannot be recorded (queue read-only, disk full) must not become an unhandled
    // rejection (which ends the process): the delivery stays pending in the queue and is scanned again.
    const guarded = p.catch((err: unknown) => {
      this.deps.logger.error(
        { err: String(err) },
        `could not record a scan result in the queue (${(err as { code?: string }).code ?? String(err)}); the folder stays queued and is scanned again`,
      );
    });
    this.inFlight.add(guarded);
    void guarded.finally(() => {
      this.inFlight.delete(guarded);
      this.wake();
    });
  }

  private launch(state: TargetState, row: PendingRow): void {
    const { queue, clock, logger, settings } = this.deps;
    state.inFlight.add(row.id);
    const run = async () => {
      const started = clock.now();
      await this.commandBefore(state.target, row);
      let outcome: ScanOutcome;
      try {
        outcome = await state.target.scan(row.folder, {
          event: row.event,
          source: row.source,
          file: row.file_hint ?? undefined,
          deleted: row.any_deleted === 1,
          ...(row.ids ? { ids: JSON.parse(row.ids) as ExternalIds } : {}),
        });
      } catch (err) {
        outcome = { status: 'retry', error: `unexpected error: ${String(err)}`, targetDown: false };
      }
      const now = clock.now();
      const name = state.target.name;
      const latencyMs = now - row.first_at;
      if (outcome.status !== 'retry' || !outcome.targetDown) state.lastHeardAt = now;
      if (outcome.status === 'scanned') {
        state.scanned++;
        const { follow } = this.followUps.accepted(state.target, row, outcome);
        const again = row.rescans > 0 ? ' once more' : '';
        logger.info({ target: name, folder: row.folder, detail: outcome.detail }, `Scanned '${row.folder}'${again} on ${name}${outcome.detail ? ` (${outcome.detail})` : ''}.`);
        if (follow === undefined) {
          queue.recordDelivery(row, name, { state: 'scanned', detail: outcome.detail }, this.targetNames);
        } else {
          queue.recordDelivery(row, name, { state: 'following', detail: outcome.detail, follow }, this.targetNames);
          if (queue.isCurrent({ folderId: row.id, generation: row.generation })) this.followUps.follow(state.target, row, follow, now);
        }
      } else if (outcome.status === 'unmatched') {
        // The path as received is what to explain: mappings do not chain, so explaining the mapped one misleads.
        const hint = `Try: scanrelay explain '${row.received ?? row.file_hint ?? row.folder}'.`;
        const detail = `'${row.folder}' is in no library of ${name}, so nothing was scanned there.\n${outcome.detail} ${hint}`;
        logger.warn({ target: name, folder: row.folder }, `'${row.folder}' is in no library of ${name}: ${outcome.detail} ${hint}`);
        queue.recordDelivery(row, name, { state: 'unmatched', detail }, this.targetNames);
      } else {
        state.failed++;
        const attempts = row.attempts + 1;
        const delay = backoffDelay(attempts, { baseMs: 5_000, capMs: settings.retryMaxDelayMs, random: this.deps.random });
        queue.recordDelivery(row, name, { state: 'retry', error: outcome.error, nextAt: now + delay }, this.targetNames);
        if (outcome.targetDown) this.markDown(state, outcome.error);
        else
          logger.warn(
            { target: name, folder: row.folder, attempts },
            `Scan of '${row.folder}' on ${name} failed (attempt ${attempts}): ${outcome.error}. Retrying in ${Math.round(delay / 1000)} s; the folder stays queued.`,
          );
      }
      this.deps.activity?.emit('delivery', {
        folder: row.folder,
        target: name,
        outcome: outcome.status,
        detail: outcome.status === 'retry' ? outcome.error : outcome.detail,
        latencyMs,
        deliveryMs: now - started,
      });
      state.lastFinishedAt = clock.now();
    };
    this.track(run().finally(() => state.inFlight.delete(row.id)));
  }

  /** RUN_COMMAND_BEFORE_SCAN: part of the delivery (plex_autoscan ran it before every scan); its failure is only logged. */
  private async commandBefore(target: Target, row: PendingRow): Promise<void> {
    const command = this.deps.settings.commandBefore ?? '';
    if (!command.trim()) return;
    const sections = target.sectionsOf ? await target.sectionsOf(row.folder).catch(() => []) : [];
    await runScanCommand(
      'before',
      command,
      {
        SCANRELAY_PATH: row.file_hint ?? row.folder,
        SCANRELAY_FOLDER: row.folder,
        SCANRELAY_SECTION: sections.join(','),
        SCANRELAY_EVENT: row.event,
        SCANRELAY_TARGET: target.name,
      },
      this.deps.logger,
      this.deps.runCommand,
    );
  }

  /** Probes every target that is up, idle and not heard from for a minute (all of them at start). */
  private probeIdle(): void {
    const now = this.deps.clock.now();
    const every = this.deps.settings.idleProbeMs ?? IDLE_PROBE_MS;
    for (const state of this.states) {
      if (state.up && !state.probing && state.inFlight.size === 0 && now - state.lastHeardAt >= every) this.probe(state);
    }
  }

  private markDown(state: TargetState, error: string): void {
    const now = this.deps.clock.now();
    state.probeDelayMs = Math.min(PROBE_MAX_MS, Math.max(1_000, state.probeDelayMs * 2));
    state.nextProbeAt = now + Math.round(state.probeDelayMs * (0.8 + 0.2 * this.deps.random()));
    state.lastError = error;
    if (state.up) {
      state.up = false;
      state.downSince = now;
      this.deps.logger.error(
        { target: state.target.name },
        `Target ${state.target.name} is unavailable: ${sentence(error)} Its folders stay queued and are retried when it answers again.`,
      );
      this.deps.activity?.emit('target', { target: state.target.name, up: false, error });
    }
  }

  private probe(state: TargetState): void {
    state.probing = true;
    const run = async () => {
      let result: { ok: true } | { ok: false; error: string };
      try {
        result = await state.target.available();
      } catch (err) {
        result = { ok: false, error: String(err) };
      }
      state.probing = false;
      state.lastHeardAt = this.deps.clock.now();
      if (!result.ok) {
        this.markDown(state, result.error);
        return;
      }
      if (state.up) return; // an idle check that found nothing wrong
      state.up = true;
      state.probeDelayMs = 0;
      state.downSince = undefined;
      state.lastError = undefined;
      const woken = this.deps.queue.wakeTarget(state.target.name);
      this.deps.logger.info({ target: state.target.name }, `Target ${state.target.name} is available again; ${woken} folder(s) resume.`);
      this.deps.activity?.emit('target', { target: state.target.name, up: true });
    };
    this.track(run());
  }
}

/** An error as a sentence: its own ending kept ("…?"), a full stop added otherwise. */
function sentence(text: string): string {
  return /[.!?]$/.test(text.trim()) ? text.trim() : `${text.trim()}.`;
}
