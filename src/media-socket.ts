// One notification socket to one media server, kept open: reconnected with capped exponential backoff on the
// injected clock, and dropped when it goes silent (a NAT or proxy that forgets the connection leaves a socket
// that looks open and hears nothing, which would hide the very fallback that polling is there for).
// Plex (src/plex/notifications.ts) and Jellyfin/Emby (src/targets/mediabrowser-socket.ts) speak through it.
import WebSocket from 'ws';
import { NOTIFICATION_FRAME } from './answer-caps.js';
import type { Clock } from './clock.js';

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

/** The handshake gives up after this long: an upgrade a proxy sits on must not hold the fallback back. */
const HANDSHAKE_MS = 10_000;
/**
 * Dials with `ws`: no redirects (the token would go with them), a handshake timeout, and a cap on frame size
 * (notification frames are small JSON; a huge one is a wrong server, not a message: ws closes the socket with
 * 1009 and the socket is dialled again after its backoff).
 */
export const dialWs: Dial = (url, headers) => {
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

export interface MediaSocketOptions {
  url: string;
  headers?: Record<string, string>;
  clock: Clock;
  dial?: Dial;
  /** First wait after a failure; doubled per failure in a row, up to `maxBackoffMs`. */
  firstBackoffMs?: number;
  maxBackoffMs?: number;
  /**
   * A ping goes out after this long without a frame; a socket that stays silent for another such period is
   * dropped and dialled again. 0 = never (the server keeps it alive itself, as Jellyfin's KeepAlive does).
   */
  silenceMs?: number;
  onText(text: string): void;
  /** Told when the socket opens and when it closes (with why), for the follower's fallback decision. */
  onState?(connected: boolean, why?: string): void;
}

export class MediaSocket {
  private running = false;
  private socket?: SocketLike;
  private loop?: Promise<void>;
  private wake?: () => void;
  private heardAt = 0;
  /** Failed attempts in a row (0 while connected): how long the next wait is. */
  private failures = 0;
  /** Aborted by stop(): every wait of this socket (backoff, silence, keep-alive) ends at once with it. */
  private stopping = new AbortController();
  connected = false;

  constructor(private readonly opts: MediaSocketOptions) {}

  start(): void {
    if (this.running) return;
    this.running = true;
    this.stopping = new AbortController();
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.stopping.abort();
    this.socket?.terminate();
    this.wake?.();
    await this.loop;
  }

  /** Waits on the socket's clock; ends early (and lets the process exit) once the socket is stopped. */
  wait(ms: number): Promise<void> {
    return this.opts.clock.sleep(ms, this.stopping.signal);
  }

  send(text: string): void {
    if (this.connected) this.socket?.send(text);
  }

  /** The wait before attempt n+1 after n failures in a row: 1, 2, 4 … s up to the cap. */
  backoffMs(failures: number): number {
    const first = this.opts.firstBackoffMs ?? 1000;
    return Math.min(this.opts.maxBackoffMs ?? 30_000, first * 2 ** Math.max(0, failures - 1));
  }

  private async run(): Promise<void> {
    while (this.running) {
      const opened = await this.connectOnce();
      if (!this.running) break;
      // A socket that opened and later dropped starts the count again: its first retry is quick.
      this.failures = opened ? 1 : this.failures + 1;
      await this.pause(this.backoffMs(this.failures));
    }
  }

  /** Resolves when the socket closes, with whether it had opened. */
  private connectOnce(): Promise<boolean> {
    return new Promise((resolve) => {
      const { clock } = this.opts;
      const socket = (this.opts.dial ?? dialWs)(this.opts.url, this.opts.headers ?? {});
      this.socket = socket;
      let opened = false;
      socket.on('open', () => {
        opened = true;
        this.connected = true;
        this.heardAt = clock.now();
        this.opts.onState?.(true);
        void this.watchSilence(socket);
      });
      socket.on('text', (text) => {
        this.heardAt = clock.now();
        this.opts.onText(text);
      });
      socket.on('pong', () => (this.heardAt = clock.now()));
      socket.on('close', (why) => {
        if (this.socket === socket) this.socket = undefined;
        if (this.connected) {
          this.connected = false;
          this.opts.onState?.(false, why);
        } else if (this.running) this.opts.onState?.(false, why);
        resolve(opened);
      });
    });
  }

  /** Pings after `silenceMs` without a frame; drops the socket when the ping is not answered in as long again. */
  private async watchSilence(socket: SocketLike): Promise<void> {
    const silenceMs = this.opts.silenceMs ?? 0;
    if (silenceMs <= 0) return;
    const { clock } = this.opts;
    let pingedAt: number | undefined;
    while (this.running && this.socket === socket && this.connected) {
      await clock.sleep(silenceMs, this.stopping.signal);
      if (this.socket !== socket || !this.connected) return;
      const now = clock.now();
      if (pingedAt !== undefined && this.heardAt < pingedAt) {
        socket.terminate();
        return;
      }
      if (now - this.heardAt >= silenceMs) {
        pingedAt = now;
        socket.ping();
      } else pingedAt = undefined;
    }
  }

  private pause(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      this.wake = resolve;
      void this.opts.clock.sleep(ms, this.stopping.signal).then(resolve);
    }).then(() => {
      this.wake = undefined;
    });
  }
}
