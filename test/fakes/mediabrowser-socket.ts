// A fake Jellyfin or Emby websocket on 127.0.0.1. Jellyfin: any path, the REST authentication (Authorization
// header, or ?ApiKey=), ForceKeepAlive (Data 60) on connect and a KeepAlive answer to each KeepAlive. Emby:
// /embywebsocket?api_key=&deviceId=. LibraryChanged goes, as on Jellyfin (LibraryChangedNotifier.cs,
// SendChangeNotifications), only to sockets whose token belongs to a user: an API key's socket gets none.
// Frame shapes follow test/fixtures/jellyfin/websocket (sources in test/fixtures/README.md).
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import type { LibraryChangedMessage } from '@jellyfin/sdk/lib/generated-client/models/library-changed-message.js';
import type { LibraryUpdateInfo } from '@jellyfin/sdk/lib/generated-client/models/library-update-info.js';
import { closeServer, listenLocal } from '../support/net.js';

/** The lists of one LibraryChanged: @jellyfin/sdk's model (generated from the server's OpenAPI), so the fake's frames have its names. */
export type LibraryUpdate = Omit<LibraryUpdateInfo, 'IsEmpty'>;

/** One LibraryChanged frame as the servers send it, typed by the SDK: every list, IsEmpty, a MessageId ("N" format). */
export function libraryChangedFrame(update: LibraryUpdate, MessageId: string): LibraryChangedMessage {
  const Data: Required<LibraryUpdateInfo> = { FoldersAddedTo: [], FoldersRemovedFrom: [], ItemsAdded: [], ItemsRemoved: [], ItemsUpdated: [], CollectionFolders: [], ...update, IsEmpty: false };
  Data.IsEmpty = [Data.FoldersAddedTo, Data.FoldersRemovedFrom, Data.ItemsAdded, Data.ItemsRemoved, Data.ItemsUpdated, Data.CollectionFolders].every((l) => l.length === 0);
  return { MessageType: 'LibraryChanged', Data, MessageId };
}

interface Session {
  ws: WebSocket;
  /** The user the token belongs to; undefined for an API key. */
  userId?: string;
  via: 'header' | 'query';
  path: string;
}

const messageId = () => randomUUID().replace(/-/g, '');

export class FakeMediaBrowserSocket {
  readonly sessions: Session[] = [];
  /** Messages received from clients, parsed. */
  readonly received: { MessageType?: string }[] = [];
  readonly refused: { path: string; status: number }[] = [];
  /** Upgrades are answered with this status while set (a server restarting, a proxy in between). */
  refuseWith?: number;
  /** The fault silence() injects: sockets that stay open, hear nothing and answer no ping (a dropped flow). */
  private silent = false;
  private readonly wss = new WebSocketServer({ noServer: true });
  private readonly waiting: { type: string; resolve: () => void }[] = [];
  private server?: Server;
  url = '';

  /** `tokens`: token → user id, or null for an API key (no user). */
  constructor(
    readonly kind: 'jellyfin' | 'emby',
    private readonly tokens: Record<string, string | null>,
  ) {}

  async start(): Promise<this> {
    this.server = createServer((_req, res) => res.writeHead(404).end());
    this.attach(this.server);
    this.url = await listenLocal(this.server);
    return this;
  }

  /** Answers upgrades on a fake server's own HTTP server, as the real ones do on their one port. */
  attach(server: Server): this {
    server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => this.upgrade(req, socket, head));
    return this;
  }

  async stop(): Promise<void> {
    for (const s of this.sessions) s.ws.terminate();
    await new Promise<void>((resolve) => this.wss.close(() => resolve()));
    if (this.server) await closeServer(this.server);
  }

  /** Sends a LibraryChanged to every socket of a user (none to API-key sockets); returns how many got it. */
  libraryChanged(update: LibraryUpdate): number {
    const frame = JSON.stringify(libraryChangedFrame(update, messageId()));
    const to = this.open().filter((s) => s.userId !== undefined);
    for (const s of to) s.ws.send(frame);
    return to.length;
  }

  /** Sends ForceKeepAlive again, as Jellyfin does to a socket silent for 45 s. */
  forceKeepAlive(seconds = 60): void {
    for (const s of this.open()) s.ws.send(JSON.stringify({ MessageType: 'ForceKeepAlive', Data: seconds, MessageId: messageId() }));
  }

  /** Resolves once a client has sent a message of this type (at once if one already has). */
  receivedOne(type: string): Promise<void> {
    if (this.received.some((m) => m.MessageType === type)) return Promise.resolve();
    return new Promise((resolve) => this.waiting.push({ type, resolve }));
  }

  /**
   * A fault injected, not the server's normal behaviour: every socket, open now or later, stays connected but is
   * sent nothing (no LibraryChanged, no ForceKeepAlive) and answers no ping or KeepAlive.
   */
  silence(): void {
    this.silent = true;
    for (const s of this.open()) s.ws.pause();
  }

  dropAll(): void {
    for (const s of this.open()) s.ws.terminate();
  }

  open(): Session[] {
    return this.sessions.filter((s) => s.ws.readyState === s.ws.OPEN && !s.ws.isPaused);
  }

  private upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const u = new URL(req.url ?? '/', 'http://x');
    const refuse = (status: number) => {
      this.refused.push({ path: u.pathname, status });
      socket.end(`HTTP/1.1 ${status} Refused\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
    };
    if (this.refuseWith !== undefined) return refuse(this.refuseWith);
    if (this.kind === 'emby' && u.pathname !== '/embywebsocket') return refuse(404);
    const header = /Token="([^"]*)"/.exec(String(req.headers.authorization ?? ''))?.[1];
    const query = this.kind === 'jellyfin' ? (u.searchParams.get('ApiKey') ?? undefined) : (u.searchParams.get('api_key') ?? undefined);
    const token = this.kind === 'jellyfin' ? (header ?? query) : query;
    if (token === undefined || !(token in this.tokens)) return refuse(401);
    this.wss.handleUpgrade(req, socket, head, (ws) => {
      const session: Session = { ws, userId: this.tokens[token] ?? undefined, via: this.kind === 'jellyfin' && header !== undefined ? 'header' : 'query', path: u.pathname };
      this.sessions.push(session);
      ws.on('error', () => ws.terminate());
      if (this.silent) return void ws.pause();
      ws.on('message', (data) => {
        let msg: { MessageType?: string };
        try {
          msg = JSON.parse(data.toString()) as { MessageType?: string };
        } catch {
          return;
        }
        this.received.push(msg);
        for (const w of this.waiting.filter((x) => x.type === msg.MessageType)) (this.waiting.splice(this.waiting.indexOf(w), 1), w.resolve());
        if (this.kind === 'jellyfin' && msg.MessageType === 'KeepAlive') ws.send(JSON.stringify({ MessageType: 'KeepAlive', MessageId: messageId() }));
      });
      if (this.kind === 'jellyfin') ws.send(JSON.stringify({ MessageType: 'ForceKeepAlive', Data: 60, MessageId: messageId() }));
    });
  }
}
