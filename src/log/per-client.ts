// "One line per client per minute": a client that keeps sending what is refused (a wrong secret, a refused path,
// more requests than the public routes take) writes one line a minute, and the next line tells how many were not
// written. A scan of the LAN or a misconfigured app retrying every second writes one line a minute, not 60.
import type { Clock } from '../clock.js';

export class PerClientLog {
  private readonly seen = new Map<string, { at: number; more: number }>();

  constructor(
    private readonly clock: Clock,
    private readonly windowMs = 60_000,
    /** Keys remembered at once; beyond it the oldest are forgotten (a flood of addresses cannot grow memory). */
    private readonly maxKeys = 10_000,
  ) {}

  /**
   * Whether to write the line for `key` (a client, or a client and what it was refused) now: undefined while
   * its minute lasts (counted), else how many lines were left unwritten since the last one.
   */
  due(key: string): number | undefined {
    const now = this.clock.now();
    const last = this.seen.get(key);
    if (last && now - last.at < this.windowMs) {
      last.more++;
      return undefined;
    }
    const more = last?.more ?? 0;
    this.seen.delete(key);
    if (this.seen.size >= this.maxKeys) this.seen.delete(this.seen.keys().next().value as string);
    this.seen.set(key, { at: now, more: 0 });
    return more;
  }
}

/** The end of a throttled line: how many were left unwritten since the last, and that there is a limit. */
export function unwrittenTail(more: number): string {
  const since = more > 0 ? ` (${more} more from this client since the last warning)` : '';
  return `${since}. At most one such line per client per minute is written.`;
}
