// The follow-up stage: deliveries a server accepted whose scan's end is watched (by the target's follower),
// resumed after a restart; then the after-command, and the outcome recorded. Nothing here holds a delivery slot.
import type { Activity } from '../activity.js';
import type { Clock } from '../clock.js';
import type { Logger } from '../log/logger.js';
import type { DeliveryRef, Queue } from '../queue/store.js';
import { runScanCommand, type CommandEnv, type CommandRunner } from '../scan-commands.js';
import type { DueDelivery, FollowItem, FollowResult, ScanOutcome, Target } from '../scan.js';

/** Stored with a `following` delivery: what the stage and the after-command need, and the target's own ticket. */
interface Envelope {
  file?: string;
  sections?: string[];
  refresh?: 'item' | 'item-if-enabled';
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
  commandAfter: string;
  runCommand?: CommandRunner;
  /** SERVER_FILE_CHECK_DELAY in ms: a file missing after its scan is scanned once more after this. */
  rescanDelayMs: number;
  /** The processor should look: a rescan due at `dueAt`, a follow-up ended (superseded ones too: its folder may go again), a scan's end seen (its slot is free). */
  wake: (dueAt?: number) => void;
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
      follower.start(
        (item, result) => this.finish(target, item, result),
        () => this.deps.wake(),
      );
      const rows = this.deps.queue.following(target.name);
      for (const row of rows) {
        const envelope = JSON.parse(row.follow) as Envelope;
        follower.follow({ ref: row.ref, folder: row.folder, event: row.event, deliveredAt: row.deliveredAt, ticket: envelope.ticket });
      }
      if (rows.length) this.deps.logger.info(`Resumed following ${rows.length} scan(s) on ${target.name}.`);
    }
  }

  /**
   * The server accepted a scan: the processor's one hand-over. A follower is handed it once its `following` state,
   * with the envelope (serialised here, once), is committed (superseded if asked again meanwhile); otherwise the
   * delivery is final now, and item refresh and the after-command run on their own.
   */
  async handOver(target: Target, row: DueDelivery, outcome: Extract<ScanOutcome, { status: 'scanned' }>, deliveredAt: number): Promise<void> {
    const { queue } = this.deps;
    const follower = target.follower;
    if (outcome.follow === undefined || !follower) {
      const file = row.fileHint;
      this.track(
        (async () => {
          await this.refreshItem(target, row.folder, file, row.refresh);
          await this.command(target, row.folder, row.event, file, outcome.sections, 'scanned');
        })(),
      );
      await queue.grouped(() => queue.recordDelivery(row, target.name, { state: 'scanned', detail: outcome.detail }, this.names));
      return;
    }
    const envelope: Envelope = { file: row.fileHint, sections: outcome.sections, ...(row.refresh ? { refresh: row.refresh } : {}), source: row.source, rescans: row.rescans, ticket: outcome.follow };
    await queue.grouped(() => queue.recordDelivery(row, target.name, { state: 'following', detail: outcome.detail, follow: JSON.stringify(envelope) }, this.names));
    const ref = { folderId: row.id, generation: row.generation };
    if (!queue.isCurrent(ref)) return follower.superseded?.(outcome.follow);
    follower.follow({ ref, folder: row.folder, event: row.event, deliveredAt, ticket: outcome.follow });
  }

  /** Something is followed, or an outcome is being recorded. */
  get busy(): boolean {
    return this.pending.size > 0 || this.deps.targets.some((t) => (t.follower?.size ?? 0) > 0);
  }

  /** Resolves when no follower follows anything and every outcome is recorded (tests, shutdown of a drain). */
  async idle(pollMs = 5): Promise<void> {
    while (this.busy) {
      while (this.pending.size) await Promise.allSettled([...this.pending]);
      if (this.busy) await new Promise((r) => setTimeout(r, pollMs));
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
    this.deps.wake();
    const ref: DeliveryRef = item.ref;
    const d = queue.deliveries(ref.folderId).find((x) => x.target === target.name && x.state === 'following');
    if (!d?.follow || !queue.isCurrent(ref)) return; // re-requested meanwhile: the new generation is scanned and followed anew
    const envelope = JSON.parse(d.follow) as Envelope;
    if ((result.state === 'not-found' || result.askAgain) && envelope.rescans === 0) return this.scanAgain(target, item, result);
    const refreshed = result.state === 'confirmed' ? await this.refreshItem(target, item.folder, envelope.file, envelope.refresh) : undefined;
    await this.command(target, item.folder, item.event, envelope.file, envelope.sections, result.state);
    const followMs = clock.now() - item.deliveredAt;
    const detail = refreshed ? `${result.detail} ${refreshed}` : result.detail;
    if (!(await queue.grouped(() => queue.recordFollowUp(ref, target.name, result.state, detail, this.names))) && !queue.isCurrent(ref)) return;
    const log = result.state === 'confirmed' || result.state === 'scanned' ? logger.info.bind(logger) : logger.warn.bind(logger);
    log({ target: target.name, folder: item.folder, outcome: result.state }, `Followed '${item.folder}' on ${target.name}: ${result.detail}`);
    this.deps.activity?.emit('followed', { folder: item.folder, target: target.name, outcome: result.state, detail: result.detail, followMs });
  }

  /**
   * The one more scan of a folder whose file its scan did not bring: after the file-check delay for a file the
   * library lacks (a mount that lags behind the server's is the usual cause), at once for one of which nothing was
   * seen (the server may have taken the scan and never run it). The next follow-up's outcome is recorded as it is.
   */
  private scanAgain(target: Target, item: FollowItem, result: FollowResult): void {
    const { queue, clock, logger } = this.deps;
    const missing = result.state === 'not-found';
    const at = clock.now() + (missing ? this.deps.rescanDelayMs : 0);
    if (!queue.rescanLater(item.ref, target.name, at, result.detail)) return;
    const fields = { target: target.name, folder: item.folder };
    if (missing) logger.warn(fields, `${result.detail} Scanning '${item.folder}' once more in ${Math.round(this.deps.rescanDelayMs / 1000)} s (a mount that lags behind Plex is the usual cause).`);
    else logger.info(fields, `${result.detail} Asking ${target.name} once more for '${item.folder}' (a scan taken and never run leaves no sign either).`);
    this.deps.wake(at);
  }

  /**
   * Item refresh, once the file is in the library (a followed Plex scan) or the server took the scan: the items
   * holding the file re-read their metadata (a new subtitle, a file replaced in place). Returns a note for history.
   */
  private async refreshItem(target: Target, folder: string, file: string | undefined, flag: 'item' | 'item-if-enabled' | undefined): Promise<string | undefined> {
    // Asked for by the sender: always; implied by the event (Rename, Upgrade): where the target's REFRESH_ITEMS says so.
    const wanted = flag === 'item' || (flag === 'item-if-enabled' && target.refreshOnChange === true);
    if (!wanted || !file || !target.refreshItem) return undefined;
    const { logger } = this.deps;
    let why: string;
    try {
      const r = await target.refreshItem(file);
      if (r.status === 'refreshed') {
        logger.info({ target: target.name, file, items: r.items }, `Refreshed the metadata of '${file}' on ${target.name} (item ${r.items.join(', ')}).`);
        return `Item ${r.items.join(', ')} refreshed.`;
      }
      why = r.status === 'not-found' ? r.detail : r.error;
    } catch (err) {
      why = String(err);
    }
    logger.warn({ target: target.name, file, folder }, `Could not refresh the item holding '${file}' on ${target.name}: ${why}`);
    return `Item not refreshed: ${why}`;
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
