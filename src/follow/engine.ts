// What every follower does the same way, whatever the server: the follow-ups still followed, keyed by the
// delivery; one loop that looks at the server once per interval while any wait; the outcomes in flight to the
// follow-up stage. A server's follower extends it with its observer (the abstract methods: what its socket and its
// looks at the server say, turned into events told to a follow-up) and plugs in a judge: `apply` writes an event
// into a follow-up, the pure `nextStep` alone says whether it waits, is looked at, or is judged, and `verdict`
// gives the words. Each event told is followed by the judge's step, so a follow-up is judged as soon as what ends
// it is known, between two looks too.
import type { Clock } from '../clock.js';
import type { Logger } from '../log/logger.js';
import type { Follower, FollowItem, FollowResult } from '../scan.js';
import { reportFollowUp, type RecordOutcome } from './report.js';

/** What every follow-up carries; a server's follow-up adds what it learns. */
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

export interface Judge<F, E, M, L extends string> {
  apply(f: F, e: E): void;
  nextStep(f: F, m: M): Step<L>;
  verdict(f: F, m: M, step: 'judge' | 'expire'): FollowResult;
}

export interface FollowEngineOptions<F, E, M, L extends string> {
  /** The server's name, for logs. */
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
  private readonly pending = new Set<Promise<void>>();
  private done?: RecordOutcome;
  private running = false;
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
  /** Judged; `left` are still followed. */
  protected ended?(f: F, left: number): void;
  /** Stops what the observer runs (its socket). */
  protected close?(): Promise<void>;

  /** Followed, or judged and still being recorded. */
  get size(): number {
    return this.byKey.size + this.finishing;
  }

  /** Running with follow-ups waiting: what keeps a socket open. */
  protected get following(): boolean {
    return this.running && this.byKey.size > 0;
  }

  values(): F[] {
    return [...this.byKey.values()];
  }

  start(done: RecordOutcome): void {
    this.done = done;
    if (this.running) return;
    this.running = true;
    this.startedAt = this.engine.clock.now();
    this.stopping = new AbortController();
    this.loopDone = this.loop();
    for (const f of this.byKey.values()) this.followed?.(f);
  }

  follow(item: FollowItem): void {
    const f = this.begin(item, keyOf(item), { now: this.engine.clock.now(), look: this.looks });
    if ('state' in f) return this.record(item, f);
    this.byKey.set(f.key, f);
    this.followed?.(f);
    this.wakeUp?.();
  }

  /** What was learnt of follow-ups (those still followed), then their next step at once, together. */
  protected tell(told: F | F[], e: E): void {
    const fs = (Array.isArray(told) ? told : [told]).filter((f) => this.byKey.get(f.key) === f);
    for (const f of fs) this.engine.judge.apply(f, e);
    if (fs.length) this.step(fs, this.moment({ now: this.engine.clock.now(), look: this.looks }));
  }

  async stop(): Promise<void> {
    this.running = false;
    this.stopping.abort();
    this.wakeUp?.();
    await this.close?.();
    await this.loopDone;
    while (this.pending.size) await Promise.allSettled([...this.pending]);
  }

  /** Kept until it settles (stop waits for it); a failure is logged. */
  protected track(p: Promise<void>): Promise<void> {
    const guarded = p.catch((err: unknown) => this.engine.logger.error({ err: String(err) }, `following a ${this.engine.server} scan failed: ${String(err)}`));
    this.pending.add(guarded);
    void guarded.finally(() => this.pending.delete(guarded));
    return guarded;
  }

  /** Judges those whose step says so, and hands the others' looks to the observer, one call per kind. */
  private step(followUps: F[], m: M): Promise<void>[] {
    const looks = new Map<L, F[]>();
    for (const f of followUps) {
      const s = this.engine.judge.nextStep(f, m);
      if (s === 'judge' || s === 'expire') this.finish(f, m, s as 'judge' | 'expire');
      else if (s !== 'wait') looks.set(s as L, [...(looks.get(s as L) ?? []), f]);
    }
    return [...looks].map(([kind, fs]) => this.track(this.look(kind, fs, m)));
  }

  private finish(f: F, m: M, step: 'judge' | 'expire'): void {
    this.byKey.delete(f.key);
    this.ended?.(f, this.byKey.size);
    this.record(f.item, this.engine.judge.verdict(f, m, step));
  }

  private record(item: FollowItem, result: FollowResult): void {
    this.finishing++;
    this.track(reportFollowUp(this.done, item, result, this.engine.logger).finally(() => this.finishing--));
  }

  /** One look per interval, counted from the start of the last, while follow-ups wait. */
  private async loop(): Promise<void> {
    const { clock, intervalMs } = this.engine;
    while (this.running) {
      const wait = this.byKey.size ? this.lastLookAt + intervalMs - clock.now() : Infinity;
      if (wait > 0) {
        await this.pause(wait);
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

  /**
   * Until `ms` have passed, a follow-up wakes the loop, or stop(). A wait of its own: its sleep (and the listener
   * the sleep holds) ends with it, so waits woken early do not pile listeners on one signal.
   */
  private async pause(ms: number): Promise<void> {
    const waiting = new AbortController();
    const stop = () => waiting.abort();
    this.stopping.signal.addEventListener('abort', stop, { once: true });
    await new Promise<void>((resolve) => {
      this.wakeUp = resolve;
      if (ms !== Infinity) void this.engine.clock.sleep(ms, waiting.signal).then(resolve);
    });
    waiting.abort();
    this.stopping.signal.removeEventListener('abort', stop);
    this.wakeUp = undefined;
  }
}
