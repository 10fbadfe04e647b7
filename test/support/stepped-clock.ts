// A ManualClock whose sleeps wait for the test to move time. ManualClock's own sleep moves time itself, so a
// follower polling in a loop would run the clock ahead of everything else; a simulation that sets the pace of
// the load and of a fake server needs time to move only when it says so.
import { ManualClock } from '../../src/clock.js';

export class SteppedClock extends ManualClock {
  private sleepers: { until: number; resolve: () => void }[] = [];

  override sleep(ms: number): Promise<void> {
    const until = this.now() + Math.max(0, ms);
    return new Promise((resolve) => this.sleepers.push({ until, resolve }));
  }

  override advance(ms: number): void {
    super.advance(ms);
    const now = this.now();
    const due = this.sleepers.filter((s) => s.until <= now);
    this.sleepers = this.sleepers.filter((s) => s.until > now);
    for (const s of due) s.resolve();
  }
}
