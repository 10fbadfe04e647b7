// What every follower does the same way, whatever the server: the follow-ups still followed (keyed by the
// delivery), one loop that looks at the server once per interval while any wait, and the outcomes in flight to
// the follow-up stage. A server plugs in an observer (its socket and its looks at the server, turned into events
// told to a follow-up) and a judge (`apply` writes an event into a follow-up, the pure `nextStep` alone says
// whether it waits, is looked at, or is judged, and `verdict` gives the words). Every event told is followed by
// the judge's step, so a follow-up is judged the moment what ends it is known, between two looks too.
import type { Clock } from '../clock.js';
import type { Logger } from '../log/logger.js';
import type { Follower, FollowItem, FollowResult, SocketStatus } from '../scan.js';
import { reportFollowUp, type RecordOutcome } from './report.js';

/** What every follow-up carries; a server's follow-up adds what it learns. */
export interface FollowUp<Ticket = unknown> {
  readonly key: string;
  readonly item: FollowItem;
  readonly ticket: Ticket;
  /** When it was followed. */
  readonly followedAt: number;
}

/** When a step is decided: `look` counts the looks at the server, so a follow-up knows what it learnt in this one. */
export interface Moment {
  now: number;
  look: number;
}

/** What a follow-up does next: waits, is judged, runs out of time, or one of the server's own looks (`L`). */
export type Step<L extends string = 'look'> = 'wait' | 'judge' | 'expire' | L;

export interface Judge<F extends FollowUp, E, M extends Moment, L extends string> {
  apply(f: F, e: E): void;
  nextStep(f: F, m: M): Step<L>;
  /** The words of a follow-up judged (or expired). */
  verdict(f: F, m: M, step: 'judge' | 'expire'): FollowResult;
}

export interface Observer<F extends FollowUp, M extends Moment, L extends string> {
  /** The follow-up of a delivery, or its outcome when it cannot be followed (a ticket this version cannot read). */
  begin(item: FollowItem, key: string, now: number): F | FollowResult;
  moment(m: Moment): M;
  /** One kind of look at the server for these follow-ups: what it learns is told to them (FollowEngine.tell). */
  look(kind: L, followUps: F[], m: M): Promise<void>;
  /** A follow-up begins (the socket opens with the first). */
  followed?(f: F): void;
  /** A follow-up was judged; `left` are still followed (the socket closes with the last). */
  ended?(f: F, left: number): void;
  socketStatus?(): SocketStatus | undefined;
  stop?(): Promise<void>;
}

export interface FollowEngineOptions<F extends FollowUp, E, M extends Moment, L extends string> {
  /** The server's name, for logs. */
  server: string;
  clock: Clock;
  logger: Logger;
  /** Between two looks at the server while follow-ups wait. */
  intervalMs: number;
  /** Built with the engine it tells what it learns. */
  observer: (engine: FollowEngine<F, E, M, L>) => Observer<F, M, L>;
  judge: Judge<F, E, M, L>;
}

export const keyOf = (item: FollowItem): string => `${item.ref.folderId}:${item.ref.generation}`;

export class FollowEngine<F extends FollowUp, E, M extends Moment, L extends string> implements Follower {
  private readonly byKey = new Map<string, F>();
  private readonly pending = new Set<Promise<void>>();
  private done?: RecordOutcome;
  private running = false;
  private loopDone?: Promise<void>;
  private wakeUp?: () => void;
  private stopping = new AbortController();
  private looks = 0;
  private lastLookAt = -Infinity;
  /** Judged, and their outcome still being recorded. */
  private finishing = 0;
  /** When start() was called: a delivery made before it was made by an earlier run. */
  startedAt = -Infinity;

  private readonly observer: Observer<F, M, L>;

  constructor(private readonly engine: FollowEngineOptions<F, E, M, L>) {
    this.observer = engine.observer(this);
  }

  /** Followed, or judged and still being recorded. */
  get size(): number {
    return this.byKey.size + this.finishing;
  }

  /** Running, with follow-ups waiting: what keeps a socket open. */
  get following(): boolean {
    return this.running && this.byKey.size > 0;
  }

  values(): F[] {
    return [...this.byKey.values()];
  }

  /** Still followed: not judged meanwhile. */
  holds(f: F): boolean {
    return this.byKey.get(f.key) === f;
  }

  socketStatus(): SocketStatus | undefined {
    return this.observer.socketStatus?.();
  }

  start(done: RecordOutcome): void {
    this.done = done;
    if (this.running) return;
    this.running = true;
    this.startedAt = this.engine.clock.now();
    this.stopping = new AbortController();
    this.loopDone = this.loop();
    for (const f of this.byKey.values()) this.observer.followed?.(f);
  }

  follow(item: FollowItem): void {
    const f = this.observer.begin(item, keyOf(item), this.engine.clock.now());
    if ('state' in f) return this.record(item, f);
    this.byKey.set(f.key, f);
    this.observer.followed?.(f);
    this.wakeUp?.();
  }

  /** What was learnt of a follow-up, then its next step at once. Nothing, once it was judged. */
  tell(f: F, e: E): void {
    if (!this.holds(f)) return;
    this.engine.judge.apply(f, e);
    this.step([f], this.moment());
  }

  async stop(): Promise<void> {
    this.running = false;
    this.stopping.abort();
    this.wakeUp?.();
    await this.observer.stop?.();
    await this.loopDone;
    while (this.pending.size) await Promise.allSettled([...this.pending]);
  }

  /** Keeps a promise until it settles (stop waits for it); a failure is logged. */
  track(p: Promise<void>): Promise<void> {
    const guarded = p.catch((err: unknown) => this.engine.logger.error({ err: String(err) }, `following a ${this.engine.server} scan failed: ${String(err)}`));
    this.pending.add(guarded);
    void guarded.finally(() => this.pending.delete(guarded));
    return guarded;
  }

  private moment(): M {
    return this.observer.moment({ now: this.engine.clock.now(), look: this.looks });
  }

  /** Judges those whose step says so; hands the others' looks to the observer, one call per kind. */
  private step(followUps: F[], m: M): Promise<void>[] {
    const looks = new Map<L, F[]>();
    for (const f of followUps) {
      const s = this.engine.judge.nextStep(f, m);
      if (s === 'judge' || s === 'expire') this.finish(f, m, s as 'judge' | 'expire');
      else if (s !== 'wait') looks.set(s as L, [...(looks.get(s as L) ?? []), f]);
    }
    return [...looks].map(([kind, fs]) => this.track(this.observer.look(kind, fs, m)));
  }

  private finish(f: F, m: M, step: 'judge' | 'expire'): void {
    if (!this.holds(f)) return;
    this.byKey.delete(f.key);
    this.observer.ended?.(f, this.byKey.size);
    this.record(f.item, this.engine.judge.verdict(f, m, step));
  }

  private record(item: FollowItem, result: FollowResult): void {
    this.finishing++;
    this.track(reportFollowUp(this.done, item, result, this.engine.logger).finally(() => this.finishing--));
  }

  /** One look per interval, counted from the start of the last; a follow-up added meanwhile wakes it. */
  private async loop(): Promise<void> {
    const { clock, intervalMs } = this.engine;
    while (this.running) {
      if (this.byKey.size === 0 || clock.now() < this.lastLookAt + intervalMs) {
        const wait = this.byKey.size === 0 ? undefined : this.lastLookAt + intervalMs - clock.now();
        // A wait of its own: a wake-up ends its sleep (and the listener the sleep holds), so waits woken early do
        // not pile listeners on one signal until their timers run out.
        const waiting = new AbortController();
        const stop = () => waiting.abort();
        this.stopping.signal.addEventListener('abort', stop, { once: true });
        await new Promise<void>((resolve) => {
          this.wakeUp = resolve;
          if (wait !== undefined) void clock.sleep(wait, waiting.signal).then(resolve);
        });
        waiting.abort();
        this.stopping.signal.removeEventListener('abort', stop);
        this.wakeUp = undefined;
        continue;
      }
      this.lastLookAt = clock.now();
      this.looks++;
      try {
        await Promise.all(this.step(this.values(), this.moment()));
      } catch (err) {
        this.engine.logger.error({ err: String(err) }, `following ${this.engine.server} scans failed (${String(err)}); trying again at the next look`);
      }
    }
  }
}
