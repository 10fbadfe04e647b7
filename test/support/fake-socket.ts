// A socket and a clock that tests drive by hand, for the notification clients (src/http/media-socket.ts): the test
// opens, feeds and closes each dialled socket, and decides when each sleep of the client ends.
import type { Clock } from '../../src/clock.js';
import type { Dial, SocketLike } from '../../src/http/media-socket.js';

export class ScriptedSocket implements SocketLike {
  readonly sent: string[] = [];
  pings = 0;
  terminated = false;
  /** A live server answers each ping with a pong at once; false: a silent one (a dropped flow, a hung notifier). */
  answersPings = true;
  private readonly handlers = new Map<string, ((arg: string) => void)[]>();

  constructor(
    readonly url: string,
    readonly headers: Record<string, string>,
  ) {}

  on(event: 'open' | 'pong', fn: () => void): void;
  on(event: 'text' | 'close', fn: (arg: string) => void): void;
  on(event: string, fn: (arg: string) => void): void {
    this.handlers.set(event, [...(this.handlers.get(event) ?? []), fn]);
  }
  send(text: string): void {
    this.sent.push(text);
  }
  ping(): void {
    this.pings++;
    if (this.answersPings && !this.terminated) this.pong();
  }
  terminate(): void {
    if (this.terminated) return;
    this.terminated = true;
    this.fire('close', 'terminated');
  }
  open(): void {
    this.fire('open');
  }
  text(t: string): void {
    this.fire('text', t);
  }
  pong(): void {
    this.fire('pong');
  }
  close(why = 'closed (1006)'): void {
    this.fire('close', why);
  }
  private fire(event: string, arg = ''): void {
    for (const fn of this.handlers.get(event) ?? []) fn(arg);
  }
}

/** Records every socket dialled, in order. */
export function scriptedDial(): { dial: Dial; sockets: ScriptedSocket[] } {
  const sockets: ScriptedSocket[] = [];
  return {
    sockets,
    dial: (url, headers) => {
      const s = new ScriptedSocket(url, headers);
      sockets.push(s);
      return s;
    },
  };
}

/** A clock whose sleeps end only when the test says so (release), moving time to their deadline. */
export class SteppedClock implements Clock {
  readonly sleeps: { ms: number; at: number; resolve: () => void }[] = [];
  constructor(private t = Date.UTC(2026, 0, 1)) {}
  now(): number {
    return this.t;
  }
  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => this.sleeps.push({ ms, at: this.t + ms, resolve }));
  }
  /** Ends the pending sleep due first (of length `ms`, when given), moving time to its deadline; returns its length. */
  async release(ms?: number): Promise<number> {
    const pending = this.sleeps.filter((s) => ms === undefined || s.ms === ms);
    if (!pending.length) throw new Error(`no sleep${ms === undefined ? '' : ` of ${ms} ms`} pending`);
    const first = pending.reduce((a, b) => (b.at < a.at ? b : a));
    this.sleeps.splice(this.sleeps.indexOf(first), 1);
    const s = first;
    this.t = Math.max(this.t, s.at);
    s.resolve();
    await settle();
    return s.ms;
  }
}

/** Lets pending promise callbacks run. */
export const settle = (): Promise<void> => new Promise((r) => setImmediate(r));
