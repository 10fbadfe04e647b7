// "Say it once": a condition that persists (a database that cannot be opened, a drive that keeps failing, a folder
// that cannot be read) is logged once when it starts, then as a summary with a count at most every 10 minutes while
// it lasts, and once when it ends. Callers report what they see on every attempt; this decides what is written.
import type { Clock } from '../clock.js';
import type { Logger } from './logger.js';

export interface ConditionLogOptions {
  logger: Logger;
  clock: Clock;
  /** The level of the start and summary lines; the end line is INFO (DEBUG for a DEBUG condition). */
  level?: 'debug' | 'info' | 'warn' | 'error';
  /** At most one summary line per condition this often (default 10 minutes). */
  summaryEveryMs?: number;
}

type Fields = Record<string, unknown>;

interface Held {
  since: number;
  /** When the last line about it was written. */
  saidAt: number;
  /** Times seen since that line. */
  unsaid: number;
  total: number;
  message: string;
}

export const TEN_MINUTES = 10 * 60_000;

/** Conditions by key (a path, a drive, a folder): each one starts, lasts and ends on its own. */
export class ConditionLog {
  private readonly held = new Map<string, Held>();
  private readonly everyMs: number;

  constructor(private readonly opts: ConditionLogOptions) {
    this.everyMs = opts.summaryEveryMs ?? TEN_MINUTES;
  }

  /** The condition `key` is seen now, described by `message` (the latest description goes in the summary). */
  holds(key: string, message: string, fields: Fields = {}): void {
    const now = this.opts.clock.now();
    const level = this.opts.level ?? 'warn';
    const h = this.held.get(key);
    if (!h) {
      this.held.set(key, { since: now, saidAt: now, unsaid: 0, total: 1, message });
      this.opts.logger[level](fields, message);
      return;
    }
    h.total++;
    h.unsaid++;
    h.message = message;
    if (now - h.saidAt < this.everyMs) return;
    this.opts.logger[level](
      { ...fields, times: h.unsaid, sinceMs: now - h.since },
      `Still, for ${duration(now - h.since)} (${h.unsaid} more time(s) in the last ${duration(now - h.saidAt)}): ${message}`,
    );
    h.saidAt = now;
    h.unsaid = 0;
  }

  /** The condition `key` is over: one INFO line, only if it had been said to start. */
  ends(key: string, message: string, fields: Fields = {}): void {
    const h = this.held.get(key);
    if (!h) return;
    this.held.delete(key);
    const now = this.opts.clock.now();
    this.opts.logger[this.opts.level === 'debug' ? 'debug' : 'info']({ ...fields, times: h.total, sinceMs: now - h.since }, `${message} (after ${duration(now - h.since)}, seen ${h.total} time(s))`);
  }

  /** Ends every held condition whose key `stillHeld` rejects (a walk that read a folder again, say). */
  endAllBut(stillHeld: (key: string) => boolean, message: (key: string) => string, fields: (key: string) => Fields = () => ({})): void {
    for (const key of [...this.held.keys()]) if (!stillHeld(key)) this.ends(key, message(key), fields(key));
  }

  isHeld(key: string): boolean {
    return this.held.has(key);
  }
}

/** 45 s, 12 min, 3 h 5 min, 2 d 4 h: what a person reads in a log line. */
export function duration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s} s`;
  const min = Math.floor(s / 60);
  if (min < 60) return `${min} min`;
  const h = Math.floor(min / 60);
  if (h < 24) return min % 60 ? `${h} h ${min % 60} min` : `${h} h`;
  return h % 24 ? `${Math.floor(h / 24)} d ${h % 24} h` : `${Math.floor(h / 24)} d`;
}
