// One notification socket to one media server, kept open: reconnected with capped exponential backoff on the
// injected clock, alive only once the server answered on it, and ended when a ping goes unanswered (a NAT or proxy
// that forgets the connection leaves a socket that looks open and hears nothing, which would hide the fallback to
// polling and stall back-pressure on scan ends that never come). Plex's and Jellyfin/Emby's sockets extend it with
// how they read their frames; it tells its subscribers those events, and when it opens and closes.
import type { WebSocket } from 'ws';
import { NOTIFICATION_FRAME } from './answer-caps.js';
import { wakeableSleep, type Clock } from '../clock.js';
import type { Logger } from '../log/logger.js';
import type { SocketState, SocketStatus } from '../scan.js';
import { splitUserinfo } from './url-credentials.js';

/** The little of a websocket this module uses, so tests can hand it a fake one. */
export interface SocketLike {
  on(event: 'open', fn: () => void): void;
  on(event: 'text', fn: (text: string) => void): void;
  on(event: 'pong', fn: () => void): void;
  on(event: 'close', fn: (why: string) => void): void;
  send(text: string): void;
  ping(): void;
  /** Ends the connection at once (no closing handshake): used when it went silent. */
  terminate(): void;
}

/** Opens a socket to `url` with `headers` on the upgrade request. */
export type Dial = (url: string, headers: Record<string, string>) => SocketLike;

/** How a socket's life is checked: see MediaSocket.watchLife. */
export interface Liveness {
  /** While scans are outstanding, a ping goes out after this long without a frame. */
  pingMs: number;
  /** While nothing is outstanding, after this long: an answered ping also keeps a NAT's or proxy's mapping warm. */
  idlePingMs: number;
  /** No frame and no pong this long after a ping: the socket is dead. */
  pongDeadlineMs: number;
}

/**
 * The stated limits: a socket that goes quiet while scans are outstanding is found dead within 10 s (5 s of quiet,
 * 5 s for the pong, a round trip the server's network layer answers), so back-pressure falls back to polling.
 */
export const LIVENESS: Liveness = { pingMs: 5_000, idlePingMs: 30_000, pongDeadlineMs: 5_000 };

/** The handshake gives up after this long: an upgrade a proxy sits on must not hold the fallback back. */
const HANDSHAKE_MS = 10_000;
/**
 * Dials with `ws`: no redirects (the token would go with them), a handshake timeout, and a cap on frame size (a huge
 * frame is a wrong server: ws closes with 1009 and the socket is dialled again after its backoff).
 */
const wsDial = (WebSocket: typeof import('ws').WebSocket): Dial => (url, headers) => {
  const ws = new WebSocket(url, { headers, followRedirects: false, handshakeTimeout: HANDSHAKE_MS, maxPayload: NOTIFICATION_FRAME.bytes, perMessageDeflate: false });
  let closed = false;
  const listeners = { close: [] as ((why: string) => void)[] };
  const closeOnce = (why: string) => {
    if (closed) return;
    closed = true;
    for (const fn of listeners.close) fn(why);
  };
  // An upgrade answered with a status (401, 404 from a proxy) is the likeliest failure: say which.
  ws.on('unexpected-response', (_req, res) => {
    closeOnce(`the server answered the upgrade with HTTP ${res.statusCode}`);
    ws.terminate();
  });
  ws.on('error', (err) => closeOnce(err.message));
  ws.on('close', (code) => closeOnce(`closed (${code})`));
  return {
    on(event: string, fn: (...args: never[]) => void) {
      if (event === 'open') ws.on('open', fn as () => void);
      else if (event === 'pong') ws.on('pong', fn as () => void);
      else if (event === 'text') ws.on('message', (data, isBinary) => !isBinary && (fn as (t: string) => void)(data.toString()));
      else if (event === 'close') listeners.close.push(fn as (why: string) => void);
    },
    send: (text) => ws.readyState === WebSocket.OPEN && ws.send(text),
    ping: () => ws.readyState === WebSocket.OPEN && ws.ping(),
    terminate: () => ws.terminate(),
  } as SocketLike;
};

/** The websocket URL at `path` below a server's base URL (http → ws, https → wss); a `user:pass@` in it comes back as Basic auth. */
export function socketUrl(base: string, path: string): { url: URL; authorization?: string } {
  const written = splitUserinfo(base);
  const url = new URL(written.url);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  url.pathname = url.pathname.replace(/\/$/, '') + path;
  return { url, authorization: written.authorization };
}

let loadedDial: Promise<Dial> | undefined;
/** The `ws` dial, imported when the first socket is dialled: a relay that never opens one loads neither ws nor what it requires. */
export const defaultDial = (): Promise<Dial> => (loadedDial ??= import('ws').then((m) => wsDial(m.WebSocket)));

export interface MediaSocketOptions {
  url: string;
  headers?: Record<string, string>;
  clock: Clock;
  dial?: Dial;
  /** First wait after a failure; doubled per failure in a row, up to `maxBackoffMs`. */
  firstBackoffMs?: number;
  maxBackoffMs?: number;
  /** How its life is checked (LIVENESS by default); false: a socket that opened is taken as alive until it closes. */
  liveness?: Partial<Liveness> | false;
  /** Scans are outstanding: pings at `pingMs`, not `idlePingMs`. Always, when left out (a socket open only while needed). */
  busy?: () => boolean;
  /** Said once per outage: the socket is down (`name`, e.g. "Plex's notification socket at …") and what stands in `meanwhile`. */
  say?: { logger: Logger; name: string; meanwhile: string };
}

/** The socket is alive (events flow from now on) or closed (events may be missed until it reopens): a follower's fallback. */
export interface ConnectionEvent {
  kind: 'connection';
  connected: boolean;
  why?: string;
}

export class MediaSocket<E = never> {
  private readonly subscribers = new Set<(e: E | ConnectionEvent) => void>();
  private running = false;
  private socket?: SocketLike;
  private loop?: Promise<void>;
  private wake?: () => void;
  private heed?: () => void;
  /** The last frame or pong of the socket now open; undefined until its first. */
  private answeredAt?: number;
  /** The last frame or pong of any socket, for health. */
  private lastFrameAt?: number;
  /** Failed attempts in a row: how long the next wait is. */
  private failures = 0;
  /** Aborted by stop(): every wait of this socket ends at once. */
  private stopping = new AbortController();
  private readonly liveness?: Liveness;
  private state: SocketState = 'closed';
  private why?: string;
  private saidDown = false;
  /** Alive: the server answered on the socket now open (a frame or a pong). Events flow only while it is. */
  connected = false;
  /** Since when it has been alive; undefined while it is not. */
  connectedSince?: number;

  constructor(private readonly opts: MediaSocketOptions) {
    if (opts.liveness !== false) this.liveness = { ...LIVENESS, ...opts.liveness };
  }

  /** Returns the way to stop receiving. */
  subscribe(fn: (e: E | ConnectionEvent) => void): () => void {
    this.subscribers.add(fn);
    return () => this.subscribers.delete(fn);
  }

  protected emit(e: E | ConnectionEvent): void {
    for (const fn of [...this.subscribers]) fn(e);
  }

  protected read(_text: string): void {}

  start(): void {
    if (this.running) return;
    this.running = true;
    this.state = 'opening';
    this.stopping = new AbortController();
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.state = 'closed';
    this.connectedSince = undefined;
    this.stopping.abort();
    this.socket?.terminate();
    this.wake?.();
    await this.loop;
  }

  /** Its state, why it is not open, and when the server last answered on it (health, the dashboard). */
  status(): SocketStatus {
    return { state: this.state, ...(this.lastFrameAt !== undefined ? { lastFrameAt: this.lastFrameAt } : {}), ...(this.why && this.state === 'reconnecting' ? { why: this.why } : {}) };
  }

  /** Scans became outstanding: the socket's life is checked at the busy pace from now on, not at the next idle ping. */
  heedNow(): void {
    this.heed?.();
  }

  /** Ends early (and lets the process exit) once the socket is stopped. */
  wait(ms: number): Promise<void> {
    return this.opts.clock.sleep(ms, this.stopping.signal);
  }

  send(text: string): void {
    if (this.connected) this.socket?.send(text);
  }

  private async run(): Promise<void> {
    const dial = this.opts.dial ?? (await defaultDial());
    while (this.running) {
      const alive = await this.connectOnce(dial);
      if (!this.running) break;
      // A socket that was alive and later dropped starts the count again: its first retry is quick. One that
      // opened and never answered counts as a failure, so a server that stays mute is dialled less and less often.
      this.failures = alive ? 1 : this.failures + 1;
      await this.pause(Math.min(this.opts.maxBackoffMs ?? 30_000, (this.opts.firstBackoffMs ?? 1000) * 2 ** (this.failures - 1)));
    }
  }

  /** Resolves when the socket closes, with whether it had been alive. */
  private connectOnce(dial: Dial): Promise<boolean> {
    return new Promise((resolve) => {
      const socket = dial(this.opts.url, this.opts.headers ?? {});
      this.socket = socket;
      this.answeredAt = undefined;
      let dead: string | undefined;
      const kill = (why: string) => {
        dead = why;
        socket.terminate();
      };
      socket.on('open', () => {
        if (this.socket !== socket) return;
        if (this.liveness) void this.watchLife(socket, this.liveness, kill);
        else this.answered(socket);
      });
      socket.on('text', (text) => this.answered(socket) && this.read(text));
      socket.on('pong', () => this.answered(socket));
      socket.on('close', (closed) => {
        if (this.socket === socket) this.socket = undefined;
        const why = dead ?? closed;
        const wasAlive = this.connected;
        this.connected = false;
        this.connectedSince = undefined;
        const say = this.opts.say;
        if (this.running) [this.state, this.why] = ['reconnecting', why];
        if (say && this.running && !this.saidDown) say.logger.warn(`${say.name} is down (${why}); ${say.meanwhile} until it reopens.`);
        if (this.running) this.saidDown = true;
        if (wasAlive || this.running) this.emit({ kind: 'connection', connected: false, why });
        resolve(wasAlive);
      });
    });
  }

  /** A frame or pong of `socket`; the first makes it alive. False for a socket no longer ours. */
  private answered(socket: SocketLike): boolean {
    if (this.socket !== socket) return false;
    this.answeredAt = this.lastFrameAt = this.opts.clock.now();
    if (!this.connected) {
      [this.connected, this.state, this.connectedSince] = [true, 'open', this.opts.clock.now()];
      const say = this.opts.say;
      if (say) say.logger[this.saidDown ? 'info' : 'debug'](`${say.name} is open${this.saidDown ? ' again' : ''}.`);
      this.saidDown = false;
      this.emit({ kind: 'connection', connected: true });
    }
    return true;
  }

  /**
   * A new socket answers a ping sent at once (Plex says nothing until something happens), then a ping goes out after
   * each quiet spell (`pingMs` while busy, else `idlePingMs`). No frame and no pong within `pongDeadlineMs` of a
   * ping: the socket is dead (a dropped flow, a hung notifier, a laptop that slept) and is ended and dialled again.
   */
  private async watchLife(socket: SocketLike, live: Liveness, kill: (why: string) => void): Promise<void> {
    const { clock } = this.opts;
    const within = `${(live.pongDeadlineMs / 1000).toFixed(1).replace(/\.0$/, '')} s`;
    while (this.socket === socket) {
      const pingedAt = clock.now();
      socket.ping();
      // Not cut short by heedNow: a deadline ended early would find a live socket silent.
      await this.wait(live.pongDeadlineMs);
      if (this.socket !== socket) return;
      if (this.answeredAt === undefined || this.answeredAt < pingedAt) {
        return kill(this.connected ? `it went silent: no frame and no pong within ${within} of a ping` : `it opened but answered no ping within ${within}`);
      }
      for (;;) {
        const every = (this.opts.busy?.() ?? true) ? live.pingMs : live.idlePingMs;
        const quiet = clock.now() - this.answeredAt;
        if (quiet >= every) break;
        await this.pause(every - quiet, 'heed');
        // Stopped: the socket's close may still be on its way, and a stopped wait ends at once.
        if (this.socket !== socket || !this.running) return;
      }
    }
  }

  /** A wait that stop() ends, and `slot`'s waker too: heedNow for the wait between two pings, stop for a backoff. */
  private async pause(ms: number, slot: 'heed' | 'wake' = 'wake'): Promise<void> {
    const { done, wake } = wakeableSleep(this.opts.clock, ms, this.stopping.signal);
    this[slot] = wake;
    await done;
    if (this[slot] === wake) this[slot] = undefined;
  }
}
