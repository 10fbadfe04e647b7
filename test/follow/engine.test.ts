// The follow-up engine every follower runs on (src/follow/engine.ts), with a judge and an observer of the test's
// own: one look per interval while follow-ups wait and none while none do, a new follow-up waking the loop, a
// stop that ends a wait at once, waits woken early that leave nothing behind, an event judged at once between
// looks, and the outcomes in flight counted and waited for.
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock, type Clock } from '../../src/clock.js';
import { FollowEngine, type FollowUp, type Moment, type Step } from '../../src/follow/engine.js';
import { silentLogger } from '../../src/log/logger.js';
import type { FollowItem, FollowResult } from '../../src/scan.js';
import { SteppedClock } from '../support/stepped-clock.js';
import { until } from '../support/until.js';

interface Test extends FollowUp {
  seen?: string;
  expireAt?: number;
}
type Event = { seen: string };

const item = (id: number, ticket: unknown = {}): FollowItem => ({ ref: { folderId: id, generation: 1 }, folder: `/f${id}`, event: 'Download', deliveredAt: 0, ticket });

/** A follower whose observer records its looks and whose judge judges what was seen, and expires at `expireAt`. */
class TestFollower extends FollowEngine<Test, Event, Moment, 'look'> {
  readonly seenLooks: { at: number; keys: string[] }[] = [];
  readonly judged: string[] = [];
  readonly results: [string, FollowResult][] = [];

  constructor(clock: Clock) {
    super({
      server: 'Test',
      clock,
      logger: silentLogger,
      intervalMs: 1_000,
      judge: {
        apply: (f, ev) => void (f.seen = ev.seen),
        nextStep: (f, m): Step => (f.seen ? 'judge' : f.expireAt !== undefined && m.now >= f.expireAt ? 'expire' : 'look'),
        verdict: (f, _m, step) => (step === 'expire' ? { state: 'unconfirmed', detail: 'expired' } : { state: 'confirmed', detail: f.seen! }),
      },
    });
    this.start(async (i, r) => void this.results.push([`${i.ref.folderId}`, r]));
  }

  /** What the observer heard, told to the follow-up. */
  heard(f: Test | Test[], seen: string): void {
    this.tell(f, { seen });
  }

  protected begin(i: FollowItem, key: string, { now }: Moment): Test | FollowResult {
    return i.ticket === 'unreadable' ? { state: 'scanned', detail: 'could not be read' } : { key, item: i, ticket: i.ticket, followedAt: now, ...(i.ticket as object) };
  }

  protected moment(m: Moment): Moment {
    return m;
  }

  protected async look(_kind: 'look', fs: Test[], m: Moment): Promise<void> {
    this.seenLooks.push({ at: m.now, keys: fs.map((f) => f.key) });
  }

  protected ended(f: Test): void {
    this.judged.push(f.key);
  }
}

function engine(clock: Clock) {
  const e = new TestFollower(clock);
  return { e, looks: e.seenLooks, ended: e.judged, results: e.results };
}

let stopping: (() => Promise<void>) | undefined;
afterEach(async () => {
  await stopping?.();
  stopping = undefined;
});

describe('the follow-up engine', () => {
  it('looks once per interval while follow-ups wait, none while none do; a new follow-up wakes it', async () => {
    const clock = new SteppedClock(0);
    const { e, looks, results } = engine(clock);
    stopping = () => e.stop();
    await new Promise((r) => setImmediate(r));
    clock.advance(5_000);
    await new Promise((r) => setImmediate(r));
    expect(looks).toEqual([]);
    e.follow(item(1));
    await until(() => looks.length === 1);
    expect(looks[0]).toEqual({ at: 5_000, keys: ['1:1'] });
    // A second follow-up during the interval wakes the loop, which waits out the rest of it.
    clock.advance(400);
    e.follow(item(2));
    await new Promise((r) => setImmediate(r));
    expect(looks).toHaveLength(1);
    clock.advance(600);
    await until(() => looks.length === 2);
    expect(looks[1]).toEqual({ at: 6_000, keys: ['1:1', '2:1'] });
    // Told what ends them, between looks: judged at once.
    e.heard(e.values(), 'seen');
    await until(() => results.length === 2);
    expect(results.map(([k, r]) => [k, r.state])).toEqual([['1', 'confirmed'], ['2', 'confirmed']]);
    expect(e.size).toBe(0);
    clock.advance(10_000);
    await new Promise((r) => setImmediate(r));
    expect(looks).toHaveLength(2);
  });

  it('judges and expires at a look; a ticket it cannot read is an outcome at once; told after its end, nothing', async () => {
    const clock = new SteppedClock(0);
    const { e, ended, results } = engine(clock);
    stopping = () => e.stop();
    e.follow(item(1, { expireAt: 2_000 }));
    e.follow(item(2, 'unreadable'));
    await until(() => results.length === 1);
    expect(results[0]).toEqual(['2', { state: 'scanned', detail: 'could not be read' }]);
    const [f] = e.values();
    clock.advance(1_000);
    clock.advance(1_000);
    await until(() => results.length === 2);
    expect(results[1]).toEqual(['1', { state: 'unconfirmed', detail: 'expired' }]);
    expect(ended).toEqual(['1:1']);
    e.heard(f, 'too late');
    await new Promise((r) => setImmediate(r));
    expect(results).toHaveLength(2);
  });

  it('stop ends a wait at once, even on a clock that does not heed the signal, and waits for the outcomes in flight', async () => {
    const clock = new SteppedClock(0);
    let recorded = false;
    const { e } = engine(clock);
    // The stage's recording, slow: size counts it until it is done, and stop waits for it.
    e.start(() => new Promise<void>((resolve) => setTimeout(() => ((recorded = true), resolve()), 20)));
    e.follow(item(1));
    const [f] = e.values();
    e.heard(f, 'yes');
    expect(e.size).toBe(1);
    e.follow(item(2));
    await e.stop();
    expect(recorded).toBe(true);
    expect(e.size).toBe(1);
  });

  it('waits woken early leave nothing behind: each sleep is handed a signal aborted once the wait ends', async () => {
    const base = new ManualClock(0);
    const signals: AbortSignal[] = [];
    const clock: Clock = { now: () => base.now(), sleep: (_ms, signal) => (signals.push(signal!), new Promise(() => {})) };
    const { e } = engine(clock);
    stopping = () => e.stop();
    e.follow(item(1));
    await until(() => signals.length === 1);
    for (let i = 2; i <= 100; i++) {
      e.follow(item(i));
      await until(() => signals.length === i);
    }
    // Every wait but the one under way ended with its signal aborted: a clock's timer and listener go with it.
    expect(signals.slice(0, -1).every((s) => s.aborted)).toBe(true);
    expect(signals.at(-1)!.aborted).toBe(false);
  });
});
