// Reading due work in dispatch order: the folders to check, the deliveries to send, and when the next thing is
// due. The indexes are walked one priority at a time (there are only a few), so no read sorts the queue.
import type { FolderRow, PendingRow } from './rows.js';
import type { Statements } from './statements.js';

export class DueWork {
  constructor(private readonly stmt: Statements) {}

  /** Folders whose delay has passed and that still need their existence check, first by priority. */
  folders(now: number, limit: number): FolderRow[] {
    const out: FolderRow[] = [];
    for (const p of this.waitingPriorities()) {
      if (out.length >= limit) break;
      out.push(...this.stmt.dueWaitingAt.all(p, now, limit - out.length));
    }
    return out;
  }

  /** Folders whose delivery to `target` is due, first by priority, but those of the folder ids in `skip`. */
  deliveries(target: string, now: number, limit: number, skip: Iterable<number> = []): PendingRow[] {
    const out: PendingRow[] = [];
    const skipped = JSON.stringify([...skip]);
    for (const p of this.pendingPriorities(target)) {
      if (out.length >= limit) break;
      out.push(...this.stmt.pendingAt.all(target, p, now, skipped, limit - out.length));
    }
    return out;
  }

  /** How many of `target`'s deliveries are due, but those of the folder ids in `skip`, counting up to `limit`. */
  deliveryCount(target: string, now: number, limit: number, skip: Iterable<number> = []): number {
    let n = 0;
    const skipped = JSON.stringify([...skip]);
    for (const p of this.pendingPriorities(target)) {
      if (n >= limit) break;
      n += this.stmt.pendingCountAt.get(target, p, now, skipped, limit - n)!.n;
    }
    return n;
  }

  /** The earliest moment anything becomes due, or undefined if nothing waits. */
  next(targets: string[]): number | undefined {
    let next: number | undefined;
    const consider = (t: number | null) => {
      if (t !== null && (next === undefined || t < next)) next = t;
    };
    for (const p of this.waitingPriorities()) consider(this.stmt.nextWaitingDueAt.get(p)!.t);
    for (const target of targets) {
      for (const p of this.pendingPriorities(target)) consider(this.stmt.nextDeliveryDueAt.get(target, p)!.t);
    }
    return next;
  }

  private waitingPriorities(): Generator<number> {
    return priorities((after) => this.stmt.waitingPriorityAfter.get(after)!.p);
  }

  private pendingPriorities(target: string): Generator<number> {
    return priorities((after) => this.stmt.pendingPriorityAfter.get(target, after)!.p);
  }
}

/** The distinct priorities present, lowest (most urgent) first, one index seek each. */
function* priorities(after: (p: number) => number | null): Generator<number> {
  let p = after(Number.MIN_SAFE_INTEGER);
  while (p !== null) {
    yield p;
    p = after(p);
  }
}
