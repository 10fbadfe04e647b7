// The loop that turns due queue rows into deliveries: existence checks, anchors, per-target dispatch and retries.
// A delivery ends when the server accepted the scan; following it to its end is the follow-up stage's job.
import type { Activity } from '../activity.js';
import type { Clock } from '../clock.js';
import { FollowStage } from '../follow/stage.js';
import type { Logger } from '../log/logger.js';
import { diskPathState, type PathState } from '../paths/disk.js';
import type { Queue } from '../queue/store.js';
import type { CommandRunner } from '../scan-commands.js';
import type { DueDelivery, Folder, Target } from '../scan.js';
import { Availability, healthOf, IDLE_PROBE_MS, newTargetState, socketShown, type TargetHealth, type TargetState } from './availability.js';
import { FileChecks } from './checks.js';
import { deliver } from './delivery.js';
import { pressure } from './server-backlog.js';
import { holdEnds, holdShown, isHeld } from './server-hold.js';
import type { ProcessorSettings } from './settings.js';
import { checkRoom, fillSlots } from './slots.js';

export type { TargetHealth };
export type { ProcessorSettings };

/** How long a shutdown waits for scans in flight (systemd's default stop timeout is 90 s, docker's 10 s). */
const STOP_GRACE_MS = 5_000;

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
  /** RCLONE.RC_CACHE_REFRESH: told of each missing file before its next check (src/rclone/remote-control.ts). */
  refreshCache?: (localPath: string) => Promise<void>;
}

export class Processor {
  private readonly deps: Required<Omit<ProcessorDeps, 'activity' | 'runCommand' | 'refreshCache'>> &
    Pick<ProcessorDeps, 'activity' | 'runCommand' | 'refreshCache'>;
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
  /** Shutdown stopped waiting for the scans still in flight: their late answers are not recorded. */
  private abandoned = false;
  private readonly checks: FileChecks;
  private readonly availability: Availability;

  constructor(deps: ProcessorDeps) {
    this.deps = { pathState: diskPathState, random: Math.random, ...deps };
    this.states = deps.targets.map(newTargetState);
    this.checks = new FileChecks({ ...this.deps, begin: (rows) => this.begin(rows) });
    this.availability = new Availability({ ...this.deps, track: (p) => this.track(p) });
    this.followUps = new FollowStage({
      queue: deps.queue,
      targets: deps.targets,
      clock: deps.clock,
      logger: deps.logger,
      activity: deps.activity,
      commandAfter: deps.settings.commandAfter ?? '',
      runCommand: deps.runCommand,
      rescanDelayMs: deps.settings.fileCheckDelayMs,
      // A rescan due, a follow-up ended (its folder may go again), or a scan's end seen (its target has room under the cap now).
      wake: (at) => this.wake(at),
    });
  }

  get targetNames(): string[] {
    return this.states.map((s) => s.target.name);
  }

  /** Why scans are held, when an anchor file is missing. */
  get held(): string | undefined {
    return this.checks.held;
  }

  /** Each target's state, with the scans its server holds unfinished, how long our next due folder has waited, its hold and its socket. */
  health(): TargetHealth[] {
    const now = this.deps.clock.now();
    return this.states.map((s) => ({ ...healthOf(s), ...pressure(s, this.deps.queue, now), ...holdShown(s, now), ...socketShown(s.target, now) }));
  }

  /** One pass: run due existence checks and start every scan that may start now. Does not wait for scans. */
  async tick(): Promise<void> {
    if (!(await this.checks.anchorsPresent())) return;
    await this.checks.run(checkRoom(this.states, this.deps.queue));
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

  /**
   * The loop's first pass asks each target, so a wrong token or a stopped server shows before a scan is due;
   * `probedElsewhere`: the caller asks them itself and hands the answers to `probed` (the readiness check).
   */
  start(opts: { probedElsewhere?: boolean } = {}): void {
    if (this.running) return;
    this.running = true;
    if (opts.probedElsewhere) for (const state of this.states) state.lastHeardAt = this.deps.clock.now();
    this.followUps.start();
    this.loopDone = this.loop();
  }

  /** A probe of target `name` asked by someone else (the first probe at start): its answer counts as ours. */
  probed(name: string, result: { ok: true } | { ok: false; error: string }): void {
    const state = this.states.find((s) => s.target.name === name);
    if (state) this.availability.probed(state, result);
  }

  /**
   * Stops taking new work and waits for deliveries in flight, but no longer than STOP_GRACE_MS: a hung server must
   * not hold a shutdown past the stop timeout of systemd or docker. A scan not answered by then stays pending in
   * the queue and is sent again at the next start; follow-ups left stay recorded and resume at start.
   */
  async stop(graceMs = this.deps.settings.stopGraceMs ?? STOP_GRACE_MS): Promise<void> {
    this.running = false;
    this.wake();
    await this.loopDone;
    const finished = (async () => {
      await this.idle();
      await this.followUps.stop();
      return true;
    })();
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), graceMs)));
    const inTime = await Promise.race([finished, late]);
    clearTimeout(timer);
    if (inTime) return;
    this.abandoned = true;
    const waiting = this.states.reduce((n, s) => n + s.inFlight.size, 0);
    this.deps.logger.warn(
      `Stopping without the answer of ${waiting} scan(s) after ${Math.round(graceMs / 1000)} s: they stay queued and are sent again at the next start.`,
    );
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
        this.availability.probeIdle(this.states, this.deps.settings.idleProbeMs ?? IDLE_PROBE_MS);
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
      this.sleepingUntil = this.nextPassAt(now);
      const wait = this.sleepingUntil - now;
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

  /**
   * When the loop passes again, unless woken: when the next folder is due for a target that can take it, a target
   * that is down is probed or a hold ends; within 5 ms to a second. A target that is down is asked again at its
   * probe time, so its due deliveries must not wake the loop. Neither does one waiting for its server to end scans
   * (the end of a followed scan wakes the loop); a held server's due folders wait for the end of its hold.
   */
  nextPassAt(now = this.deps.clock.now()): number {
    const awake = this.states.filter((s) => s.up && !s.waitingOnServer && !isHeld(s, now));
    const next = this.deps.queue.nextDue(awake.map((s) => s.target.name)) ?? now + 1000;
    const probes = this.states.filter((s) => !s.up).map((s) => s.nextProbeAt);
    return now + Math.max(5, Math.min(1000, Math.min(next, ...probes, ...holdEnds(this.states, now)) - now));
  }

  private begin(rows: Folder[]): void {
    if (this.deps.queue.startDispatchMany(rows, this.targetNames) > 0) {
      for (const state of this.states) this.dispatch(state);
    }
  }

  /**
   * A target that is down is probed when due; one whose server asked to be left alone gets nothing until then; one
   * that is up is sent what its slots and its server have room for.
   */
  private dispatch(state: TargetState): void {
    const now = this.deps.clock.now();
    if (!state.up) {
      if (!state.probing && now >= state.nextProbeAt) this.availability.probe(state);
      return;
    }
    if (isHeld(state, now)) return;
    fillSlots(state, now, this.deps.queue, (row) => this.launch(state, row));
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

  private launch(state: TargetState, row: DueDelivery): void {
    state.inFlight.add(row.id);
    const run = deliver(state, row, {
      ...this.deps,
      followUps: this.followUps,
      availability: this.availability,
      targetNames: this.targetNames,
      spelling: (r) => this.checks.spelling(r),
      kept: (r) => this.checks.kept(r),
      abandoned: () => this.abandoned,
    });
    this.track(run.finally(() => state.inFlight.delete(row.id)));
  }
}
