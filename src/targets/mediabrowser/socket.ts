// The websocket of a Jellyfin or Emby server (src/http/media-socket.ts), open only while follow-ups wait, answering
// the server's ForceKeepAlive with KeepAlive, reading LibraryChanged into typed events. Jellyfin sends LibraryChanged
// only to sessions of a user, so the socket is never opened for a token known to be an API key's, and a follower
// must not wait for it there. Formats and sources: docs/targets.md, "What the servers say after a scan".
import { withBasicAuth } from '../../http/url-credentials.js';
import { MediaSocket, socketUrl, type MediaSocketOptions } from '../../http/media-socket.js';

export type MediaBrowserKind = 'jellyfin' | 'emby';

/** One LibraryChanged: item ids (32 hex digits, Jellyfin's "N" format) batched over the server's quiet period. */
export interface LibraryChangedEvent {
  kind: 'library-changed';
  added: string[];
  updated: string[];
  removed: string[];
  foldersAddedTo: string[];
  foldersRemovedFrom: string[];
  collectionFolders: string[];
}

/** The envelope both servers use: {"MessageType": "...", "Data": ..., "MessageId": "..."}. */
export function parseEnvelope(text: string): { type: string; data?: unknown } | undefined {
  try {
    const msg = JSON.parse(text) as { MessageType?: unknown; Data?: unknown } | null;
    return typeof msg?.MessageType === 'string' ? { type: msg.MessageType, data: msg.Data } : undefined;
  } catch {
    return undefined;
  }
}

const ids = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

/**
 * The lists of LibraryUpdateInfo this parser reads, by their JSON names, and the event field each fills
 * (jellyfin@9fd01fa MediaBrowser.Model/Entities/LibraryUpdateInfo.cs L29-57; `IsEmpty`, L57, is computed from
 * them and not read). test/targets/library-changed-format.test.ts pins these names to @jellyfin/sdk's model.
 */
export const LIBRARY_UPDATE_LISTS = {
  ItemsAdded: 'added',
  ItemsUpdated: 'updated',
  ItemsRemoved: 'removed',
  FoldersAddedTo: 'foldersAddedTo',
  FoldersRemovedFrom: 'foldersRemovedFrom',
  CollectionFolders: 'collectionFolders',
} as const satisfies Record<string, keyof Omit<LibraryChangedEvent, 'kind'>>;

/** LibraryUpdateInfo into an event; undefined for other messages. `msg`: the envelope, when the frame was read already. */
export function parseLibraryChanged(text: string, msg = parseEnvelope(text)): LibraryChangedEvent | undefined {
  if (msg?.type !== 'LibraryChanged' || !msg.data || typeof msg.data !== 'object') return undefined;
  const d = msg.data as Record<string, unknown>;
  const event: LibraryChangedEvent = { kind: 'library-changed', added: [], updated: [], removed: [], foldersAddedTo: [], foldersRemovedFrom: [], collectionFolders: [] };
  for (const [json, field] of Object.entries(LIBRARY_UPDATE_LISTS)) event[field] = ids(d[json]);
  return event;
}

export interface MediaBrowserSocketOptions extends Pick<MediaSocketOptions, 'clock' | 'dial' | 'firstBackoffMs' | 'maxBackoffMs' | 'say'> {
  kind: MediaBrowserKind;
  /** The server's base URL, as the target uses it. */
  url: string;
  token: string;
  /** Stable per target: the server keys its session on it. */
  deviceId: string;
  version: string;
  /** Does the token belong to a user (Jellyfin: GET /Users/Me)? Undefined: cannot tell before a LibraryChanged comes. */
  tokenHasUser?: () => Promise<boolean | undefined>;
}

export const serverName = (kind: MediaBrowserKind) => (kind === 'jellyfin' ? 'Jellyfin' : 'Emby');

/** Jellyfin drops a socket 60 s after its last KeepAlive and says so in ForceKeepAlive; we answer at half of it. */
const DEFAULT_KEEPALIVE_S = 60;

export class MediaBrowserSocket extends MediaSocket<LibraryChangedEvent> {
  /** Bumped at each open and close, so the KeepAlive loop of a closed socket ends. */
  private generation = 0;
  private keepAliveRunning = false;
  /** true: the token has a user, LibraryChanged comes; false: an API key's, it never does; undefined: not known. */
  userToken?: boolean;
  /** Opened by `openWhile`; opens and closes go one after the other. */
  private opened = false;
  private turn: Promise<void> = Promise.resolve();

  // Open only while follow-ups wait, so always at the busy pace of the shared liveness check (LIVENESS).
  constructor(private readonly mb: MediaBrowserSocketOptions) {
    super({ ...mb, ...socketAddress(mb) });
    this.subscribe((e) => {
      if (e.kind === 'connection') [this.generation, this.keepAliveRunning] = [this.generation + 1, false];
      else if (this.userToken !== true) {
        // Only a socket whose token has a user is sent LibraryChanged: this one has.
        this.mb.say?.logger.debug(`${serverName(this.mb.kind)} sends LibraryChanged to this token: it belongs to a user.`);
        this.userToken = true;
      }
    });
  }

  /** Could LibraryChanged reach us at all: a token not known to be an API key's. */
  get usable(): boolean {
    return this.userToken !== false;
  }

  /** Opens the socket unless it is open, unusable, or `wanted()` is false by the time the token is known. */
  openWhile(wanted: () => boolean): void {
    if (!this.usable || this.opened) return;
    this.turn = this.turn.then(async () => {
      if (this.userToken === undefined) await this.learnToken();
      if (!this.usable || this.opened || !wanted()) return;
      this.opened = true;
      this.start();
    });
  }

  /** Closes the socket unless `stillWanted()`: a close asked for is no drop to warn of. */
  closeUnless(stillWanted: () => boolean = () => false): Promise<void> {
    this.turn = this.turn.then(async () => {
      if (!this.opened || stillWanted()) return;
      this.opened = false;
      await this.stop();
    });
    return this.turn;
  }

  stop(): Promise<void> {
    this.generation++;
    return super.stop();
  }

  protected read(text: string): void {
    const msg = parseEnvelope(text);
    if (!msg) return;
    if (msg.type === 'ForceKeepAlive') {
      const seconds = typeof msg.data === 'number' && msg.data > 0 ? msg.data : DEFAULT_KEEPALIVE_S;
      this.keepAlive();
      if (!this.keepAliveRunning) void this.keepAliveLoop(seconds);
      return;
    }
    const changed = parseLibraryChanged(text, msg);
    if (changed) this.emit(changed);
  }

  private async learnToken(): Promise<void> {
    const logger = this.mb.say?.logger;
    try {
      this.userToken = (await this.mb.tokenHasUser?.()) ?? this.userToken;
    } catch (err) {
      logger?.debug({ err: String(err) }, 'could not tell whether the token belongs to a user');
      return;
    }
    if (this.userToken === false) {
      logger?.info(
        `${serverName(this.mb.kind)}'s token belongs to no user (an API key): the server sends it no LibraryChanged, so its websocket is not opened and each delivered file is confirmed by listing the refreshed folder once its refresh is over.`,
      );
    }
  }

  private keepAlive(): void {
    this.send(JSON.stringify({ MessageType: 'KeepAlive' }));
  }

  /** KeepAlive every half of the server's timeout while this socket stays open (jellyfin-web does the same). */
  private async keepAliveLoop(seconds: number): Promise<void> {
    this.keepAliveRunning = true;
    const mine = this.generation;
    while (this.generation === mine && this.connected) {
      await this.wait((seconds * 1000) / 2);
      if (this.generation !== mine || !this.connected) return;
      this.keepAlive();
    }
  }
}

/**
 * Jellyfin accepts an upgrade on any path with the REST authentication (Jellyfin.Api/Middleware/
 * WebSocketHandlerMiddleware.cs): the Authorization header, which keeps the token out of URLs and logs. Emby's
 * client opens /embywebsocket with api_key and deviceId in the query (Emby.ApiClient.Javascript apiclient.js):
 * the only form known to work there, so the URL carries the token and must never be logged.
 */
export function socketAddress(opts: Pick<MediaBrowserSocketOptions, 'kind' | 'url' | 'token' | 'deviceId' | 'version'>): { url: string; headers: Record<string, string> } {
  const { url, authorization } = socketUrl(opts.url, opts.kind === 'jellyfin' ? '/socket' : '/embywebsocket');
  if (opts.kind === 'jellyfin') {
    const q = (v: string) => v.replace(/["\\]/g, '');
    const auth = `MediaBrowser Client="scanrelay", Device="scanrelay", DeviceId="${q(opts.deviceId)}", Version="${q(opts.version)}", Token="${q(opts.token)}"`;
    return { url: url.toString(), headers: { Authorization: auth } };
  }
  url.search = new URLSearchParams({ api_key: opts.token, deviceId: opts.deviceId }).toString();
  // A `user:pass@` in the configured URL goes as Basic auth where the server's own auth leaves Authorization free (Emby).
  return { url: url.toString(), headers: withBasicAuth({ 'X-Emby-Token': opts.token }, authorization) };
}
