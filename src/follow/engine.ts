// What every follower does the same way: the book of what the server still holds (follow-ups keyed by the delivery,
// and those judged whose outcome is not recorded yet), one loop that looks at the server once per interval while
// any wait, and the outcomes in flight to the follow-up stage. A server's follower extends it with its observer
// (the abstract methods: what its socket and looks say, told to follow-ups as events) and plugs in a judge: `apply`
// writes an event into a follow-up, the pure `nextStep` alone says whether it waits, is looked at, or is judged, and
// `verdict` gives the words. Each event told is followed by the judge's step, between looks too.
import { wakeableSleep, type Clock } from '../clock.js';
import type { Logger } from '../log/logger.js';
import type { Follower, FollowItem, FollowResult } from '../scan.js';

export type RecordOutcome = (item: FollowItem, result: FollowResult) => Promise<void>;

export interface FollowUp<Ticket = unknown> {
  readonly key: string;
  readonly item: FollowItem;
  readonly ticket: Ticket;
  readonly followedAt: number;
}

/** When a step is decided; `look` counts the looks at the server, so a follow-up can tell what it learnt in this one. */
export interface Moment {
  now: number;
  look: number;
}

/** What a follow-up does next: wait, be judged, run out of time, or one of the server's own looks (`L`). */
export type Step<L extends string = 'look'> = 'wait' | 'judge' | 'expire' | L;

/** A follow-up judged in one step, with its words: one step's verdicts are finished together (`finish`). */
export interface Verdict<F> {
  f: F;
  step: 'judge' | 'expire';
  result: FollowResult;
}

export interface Judge<F, E, M, L extends string> {
  apply(f: F, e: E): void;
  nextStep(f: F, m: M): Step<L>;
  verdict(f: F, m: M, step: 'judge' | 'expire'): FollowResult;
}

export interface FollowEngineOptions<F, E, M, L extends string> {
  server: string;
  clock: Clock;
  logger: Logger;
  /** Between two looks at the server while follow-ups wait. */
  intervalMs: number;
  judge: Judge<F, E, M, L>;
}

export const keyOf = (item: FollowItem): string => `${item.ref.folderId}:${item.ref.generation}`;

export abstract class FollowEngine<F extends FollowUp, E, M extends Moment, L extends string> implements Follower {
  private readonly byKey = new Map<string, F>();
  /** Judged, their outcome not handed to the stage yet: the server's folder is still held. */
  private readonly handing = new Map<string, FollowItem>();
  private readonly pending = new Set<Promise<void>>();
  private done?: RecordOutcome;
  /** Told each time a scan's end is seen before it is judged, by a follower counting what its server holds. */
  protected freed?: () => void;
  protected running = false;
  private loopDone?: Promise<void>;
  private wakeUp?: () => void;
  private stopping = new AbortController();
  private looks = 0;
  private lastLookAt = -Infinity;
  /** Judged, their outcome still being recorded. */
  private finishing = 0;
  /** When start() was called: a delivery made before it was made by an earlier run. */
  protected startedAt = -Infinity;

  constructor(private readonly engine: FollowEngineOptions<F, E, M, L>) {}

  /** The follow-up of a delivery, or its outcome when it cannot be followed (a ticket this version cannot read). */
  protected abstract begin(item: FollowItem, key: string, m: Moment): F | FollowResult;
  protected abstract moment(m: Moment): M;
  /** One kind of look at the server for these follow-ups; what it learns is told to them. */
  protected abstract look(kind: L, followUps: F[], m: M): Promise<void>;
  protected followed?(f: F): void;
  /** Judged, or replaced by a follow-up of the same delivery; `left` are still followed. */
  protected ended?(f: F, left: number): void;
  /** Starts and stops what the observer listens to (its socket). */
  protected open?(): void;
  protected close?(): Promise<void>;

  /** Followed, or judged and still being recorded. */
  get size(): number {
    return this.byKey.size + this.finishing;
  }

  /** Running with follow-ups waiting: what keeps a socket open. */
  protected get following(): boolean {
    return this.running && this.byKey.size > 0;
  }

  /** In the order they were followed: a server runs a section's scans in the order it took them. */
  values(): F[] {
    return [...this.byKey.values()];
  }

  /** The folders the server still holds a scan of ours for, followed or judged and not yet recorded. */
  heldFolders(): number[] {
    return [...new Set([...this.byKey.values()].map((f) => f.item.ref.folderId).concat([...this.handing.values()].map((i) => i.ref.folderId)))];
  }

  start(done: RecordOutcome, freed?: () => void): void {
    this.done = done;
    this.freed = freed;
    if (this.running) return;
    this.running = true;
    this.startedAt = this.engine.clock.now();
    this.stopping = new AbortController();
    this.open?.();
    this.loopDone = this.loop();
  }

  follow(item: FollowItem): void {
    const f = this.begin(item, keyOf(item), { now: this.engine.clock.now(), look: this.looks });
    if ('state' in f) return void this.track(this.report(item, f, false));
    const before = this.byKey.get(f.key);
    this.byKey.set(f.key, f);
    if (before) this.ended?.(before, this.byKey.size);
    this.followed?.(f);
    this.wakeUp?.();
  }

  /** What was learnt of follow-ups (those still followed), then their next step at once, together; resolves when the looks it began end. */
  protected tell(told: F | F[], e: E): Promise<void> {
    const fs = (Array.isArray(told) ? told : [told]).filter((f) => this.byKey.get(f.key) === f);
    for (const f of fs) this.engine.judge.apply(f, e);
    return fs.length ? Promise.all(this.step(fs, this.moment({ now: this.engine.clock.now(), look: this.looks }))).then(() => undefined) : Promise.resolve();
  }

  /** One step's verdicts, finished together; a server with steps after a verdict (Plex's trash, analyze) overrides it. */
  protected async finish(verdicts: Verdict<F>[], _m: M): Promise<void> {
    await Promise.all(verdicts.map((v) => this.report(v.f.item, v.result)));
  }

  /** The outcome handed to the follow-up stage: the folder is no longer held from then on. */
  protected async report(item: FollowItem, result: FollowResult, judged = true): Promise<void> {
    if (judged) this.handing.delete(keyOf(item));
    else this.finishing++;
    try {
      await this.done?.(item, result);
    } catch (err) {
      // The queue file busy or full: the delivery stays `following` there, so the next start follows it again.
      this.engine.logger.error({ folder: item.folder, err: String(err) }, `could not record the follow-up of '${item.folder}'; it is followed again after a restart`);
    } finally {
      this.finishing--;
    }
  }

  async stop(): Promise<void> {
    this.running = false;
    this.stopping.abort();
    this.wakeUp?.();
    await this.close?.();
    await this.loopDone;
    while (this.pending.size) await Promise.allSettled([...this.pending]);
  }

  /** Kept until it settles (stop waits for it). */
  protected track(p: Promise<void>): Promise<void> {
    const guarded = p.catch((err: unknown) => this.engine.logger.error({ err: String(err) }, `following a ${this.engine.server} scan failed: ${String(err)}`));
    this.pending.add(guarded);
    void guarded.finally(() => this.pending.delete(guarded));
    return guarded;
  }

  /** Judges those whose step says so, together, and hands the others' looks to the observer, one call per kind. */
  private step(followUps: F[], m: M): Promise<void>[] {
    const looks = new Map<L, F[]>();
    const verdicts: Verdict<F>[] = [];
    for (const f of followUps) {
      const s = this.engine.judge.nextStep(f, m);
      if (s === 'judge' || s === 'expire') verdicts.push(this.take(f, m, s as 'judge' | 'expire'));
      else if (s !== 'wait') looks.set(s as L, [...(looks.get(s as L) ?? []), f]);
    }
    if (verdicts.length) this.track(this.finish(verdicts, m));
    return [...looks].map(([kind, fs]) => this.track(this.look(kind, fs, m)));
  }

  private take(f: F, m: M, step: 'judge' | 'expire'): Verdict<F> {
    this.byKey.delete(f.key);
    this.handing.set(f.key, f.item);
    this.finishing++;
    this.ended?.(f, this.byKey.size);
    return { f, step, result: this.engine.judge.verdict(f, m, step) };
  }

  /** The next look now, not at the end of the interval: something the follow-ups wait for may have changed unseen. */
  protected lookNow(): void {
    if (!this.byKey.size) return;
    this.lastLookAt = -Infinity;
    this.wakeUp?.();
  }

  /** Between two looks: the server's interval, unless its follower knows a reason to look sooner. */
  protected interval(): number {
    return this.engine.intervalMs;
  }

  /** One look per interval, counted from the start of the last, while follow-ups wait. */
  private async loop(): Promise<void> {
    const { clock } = this.engine;
    while (this.running) {
      const wait = this.byKey.size ? this.lastLookAt + this.interval() - clock.now() : Infinity;
      if (wait > 0) {
        const { done, wake } = wakeableSleep(clock, wait, this.stopping.signal);
        this.wakeUp = wake;
        await done;
        this.wakeUp = undefined;
        continue;
      }
      this.lastLookAt = clock.now();
      try {
        await Promise.all(this.step(this.values(), this.moment({ now: this.lastLookAt, look: ++this.looks })));
      } catch (err) {
        this.engine.logger.error({ err: String(err) }, `following ${this.engine.server} scans failed (${String(err)}); trying again at the next look`);
      }
    }
  }
}
