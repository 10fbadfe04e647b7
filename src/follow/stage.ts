// The follow-up stage: deliveries a server accepted whose scan's end is watched (by the target's follower),
// resumed after a restart; then the after-command, and the outcome recorded. Nothing here holds a delivery slot.
import type { Activity } from '../activity.js';
import type { Clock } from '../clock.js';
import type { Logger } from '../log.js';
import type { DeliveryRef, PendingRow, Queue } from '../queue/store.js';
import { runScanCommand, type CommandEnv, type CommandRunner } from '../targets/commands.js';
import type { FollowItem, FollowResult, ScanOutcome, Target } from '../targets/target.js';

/** Stored with a `following` delivery: what the stage and the after-command need, and the target's own ticket. */
interface Envelope {
  file?: string;
  sections?: string[];
  source: string;
  rescans: number;
  ticket: unknown;
}

export interface FollowStageDeps {
  queue: Queue;
  targets: Target[];
  clock: Clock;
  logger: Logger;
  activity?: Activity;
  /** RUN_COMMAND_AFTER_SCAN ('' = none). */
  commandAfter: string;
  runCommand?: CommandRunner;
  /** SERVER_FILE_CHECK_DELAY in ms: a file missing after its scan is scanned once more after this. */
  rescanDelayMs: number;
  /** A delivery became due again (a rescan): the processor should look. */
  onRescan: (dueAt: number) => void;
}

export class FollowStage {
  private readonly pending = new Set<Promise<void>>();
  private readonly names: string[];
  private started = false;

  constructor(private readonly deps: FollowStageDeps) {
    this.names = deps.targets.map((t) => t.name);
  }

  /** Starts every follower and hands it the deliveries still `following` in the queue (after a restart). */
  start(): void {
    if (this.started) return;
    this.started = true;
    for (const target of this.deps.targets) {
      const follower = target.follower;
      if (!follower) continue;
      follower.start((item, result) => this.finish(target, item, result));
      const rows = this.deps.queue.following(target.name);
      for (const row of rows) {
        const envelope = JSON.parse(row.follow) as Envelope;
        follower.follow({ ref: { folderId: row.folder_id, generation: row.generation }, folder: row.folder, event: row.event, deliveredAt: row.delivered_at, ticket: envelope.ticket });
      }
      if (rows.length) this.deps.logger.info(`Resumed following ${rows.length} scan(s) on ${target.name}.`);
    }
  }

  /**
   * The server accepted a scan. Returns the state to record: `following` with its envelope when the target
   * follows it, else the delivery is final now and the after-command runs on its own.
   */
  accepted(target: Target, row: PendingRow, outcome: Extract<ScanOutcome, { status: 'scanned' }>): { follow?: string } {
    if (outcome.follow === undefined || !target.follower) {
      this.track(this.command(target, row.folder, row.event, row.file_hint ?? undefined, outcome.sections, 'scanned'));
      return {};
    }
    const envelope: Envelope = { file: row.file_hint ?? undefined, sections: outcome.sections, source: row.source, rescans: row.rescans, ticket: outcome.follow };
    return { follow: JSON.stringify(envelope) };
  }

  /** Called once the `following` state is committed. */
  follow(target: Target, row: PendingRow, follow: string, deliveredAt: number): void {
    const envelope = JSON.parse(follow) as Envelope;
    target.follower?.follow({ ref: { folderId: row.id, generation: row.generation }, folder: row.folder, event: row.event, deliveredAt, ticket: envelope.ticket });
  }

  /** Something is followed, or an outcome is being recorded. */
  get busy(): boolean {
    return this.pending.size > 0 || this.deps.targets.some((t) => (t.follower?.size ?? 0) > 0);
  }

  /** Resolves when no follower follows anything and every outcome is recorded (tests, shutdown of a drain). */
  async idle(pollMs = 5): Promise<void> {
    for (;;) {
      while (this.pending.size) await Promise.allSettled([...this.pending]);
      if (this.deps.targets.every((t) => (t.follower?.size ?? 0) === 0) && this.pending.size === 0) return;
      await new Promise((r) => setTimeout(r, pollMs));
    }
  }

  /** Stops the followers; what they still follow stays `following` in the queue and resumes at the next start. */
  async stop(): Promise<void> {
    this.started = false;
    await Promise.all(this.deps.targets.map((t) => t.follower?.stop()));
    while (this.pending.size) await Promise.allSettled([...this.pending]);
  }

  private async finish(target: Target, item: FollowItem, result: FollowResult): Promise<void> {
    const { queue, clock, logger } = this.deps;
    const ref: DeliveryRef = item.ref;
    const envelope = this.envelopeOf(target, ref);
    if (!envelope) return; // re-requested meanwhile: the new generation is scanned and followed anew
    if (result.state === 'not-found' && envelope.rescans === 0) {
      // Usually a mount that lags behind Plex's: one more scan after the file-check delay, then the verdict.
      const at = clock.now() + this.deps.rescanDelayMs;
      if (queue.rescanLater(ref, target.name, at, result.detail)) {
        logger.warn({ target: target.name, folder: item.folder }, `${result.detail} Scanning '${item.folder}' once more in ${Math.round(this.deps.rescanDelayMs / 1000)} s (a mount that lags behind Plex is the usual cause).`);
        this.deps.onRescan(at);
      }
      return;
    }
    await this.command(target, item.folder, item.event, envelope.file, envelope.sections, result.state);
    const followMs = clock.now() - item.deliveredAt;
    if (!queue.recordFollowUp(ref, target.name, result.state, result.detail, this.names) && !queue.isCurrent(ref)) return;
    const log = result.state === 'confirmed' || result.state === 'scanned' ? logger.info.bind(logger) : logger.warn.bind(logger);
    log({ target: target.name, folder: item.folder, outcome: result.state }, `Followed '${item.folder}' on ${target.name}: ${result.detail}`);
    this.deps.activity?.emit('followed', { folder: item.folder, target: target.name, outcome: result.state, detail: result.detail, followMs });
  }

  private envelopeOf(target: Target, ref: DeliveryRef): Envelope | undefined {
    const d = this.deps.queue.deliveries(ref.folderId).find((x) => x.target === target.name && x.state === 'following');
    if (!d?.follow || !this.deps.queue.isCurrent(ref)) return undefined;
    return JSON.parse(d.follow) as Envelope;
  }

  private async command(target: Target, folder: string, event: string, file: string | undefined, sections: string[] | undefined, confirmation: string): Promise<void> {
    if (!this.deps.commandAfter.trim()) return;
    const env: CommandEnv = {
      SCANRELAY_PATH: file ?? folder,
      SCANRELAY_FOLDER: folder,
      SCANRELAY_SECTION: (sections ?? []).join(','),
      SCANRELAY_EVENT: event,
      SCANRELAY_TARGET: target.name,
      SCANRELAY_CONFIRMATION: confirmation,
    };
    await runScanCommand('after', this.deps.commandAfter, env, this.deps.logger, this.deps.runCommand);
  }

  private track(p: Promise<void>): void {
    const guarded = p.catch((err: unknown) => this.deps.logger.error({ err: String(err) }, `RUN_COMMAND_AFTER_SCAN failed to start: ${String(err)}`));
    this.pending.add(guarded);
    void guarded.finally(() => this.pending.delete(guarded));
  }
}
