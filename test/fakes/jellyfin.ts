// A fake Jellyfin on 127.0.0.1 that records requests, answers from the shared fixtures and fails on demand.
// Emby's fake (emby.ts) is the same MediaBrowser server with a different auth header and library route.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { ownFixture } from '../support/fixtures.js';
import { closeServer, listenLocal } from '../support/net.js';
import { FakeMediaBrowserSocket } from './mediabrowser-socket.js';

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: unknown;
  query: Record<string, string>;
}

/** down = connection dropped; slow = answer after `slowMs`; a number = that HTTP status. */
export type Failure = 'down' | 'slow' | number;

export interface FakeMediaBrowser {
  url: string;
  /** Emby's websocket (/embywebsocket) on the same port. */
  socket?: FakeMediaBrowserSocket;
  requests: RecordedRequest[];
  /** Scan notifications accepted, in order. */
  updates(): { Path: string; UpdateType: string }[];
  /** Fail every request (or only those whose path starts with `path`) until `fail(null)`, with `headers` (Retry-After). */
  fail(failure: Failure | null, opts?: { path?: string; headers?: Record<string, string> }): void;
  /** Replace the library listing the server returns. */
  setLibraries(body: unknown): void;
  /** Items GET /Items pages through (its ParentId filter keeps those whose ParentId, the library's id, matches). */
  items: FakeItem[];
  /** Item ids whose refresh was asked for (POST /Items/{id}/Refresh), in order. */
  itemRefreshes(): string[];
  slowMs: number;
  close(): Promise<void>;
}

export interface FakeItem {
  Id: string;
  Path: string;
  /** The library's id (Jellyfin ItemId, Emby Id). */
  ParentId: string;
  Type?: string;
}

export interface MediaBrowserSpec {
  token: string;
  /** True when the request carries the token the way this server accepts it. */
  authorised(headers: IncomingMessage['headers'], token: string): boolean;
  librariesPath: string;
  libraries: unknown;
  /** Jellyfin answers 204, Emby 200 with an empty body. */
  updatedStatus: number;
  /** Emby: the user the token belongs to (its socket then hears LibraryChanged); none: an API key. */
  userId?: string;
}

export async function startFakeMediaBrowser(spec: MediaBrowserSpec): Promise<FakeMediaBrowser> {
  const requests: RecordedRequest[] = [];
  let libraries = spec.libraries;
  let failure: { kind: Failure; path?: string; headers?: Record<string, string> } | null = null;
  const timers = new Set<NodeJS.Timeout>();
  const info = ownFixture('jellyfin/system-info-public.json');

  const send = (res: ServerResponse, status: number, body?: unknown, headers: Record<string, string> = {}): void => {
    if (body === undefined) {
      res.writeHead(status, headers).end();
    } else {
      res.writeHead(status, { ...headers, 'Content-Type': 'application/json' }).end(JSON.stringify(body));
    }
  };

  const answer = (req: IncomingMessage, res: ServerResponse, path: string): void => {
    if (req.method === 'GET' && path === '/System/Info/Public') return send(res, 200, info);
    if (!spec.authorised(req.headers, spec.token)) return send(res, 401, { error: 'Unauthorized' });
    if (req.method === 'GET' && path === spec.librariesPath) return send(res, 200, libraries);
    // Jellyfin's /Users/Me: the token is an API key, owned by no user (UserController.GetCurrentUser's 400).
    if (req.method === 'GET' && path === '/Users/Me' && spec.librariesPath === '/Library/VirtualFolders') return send(res, 400);
    if (req.method === 'POST' && path === '/Library/Media/Updated') return send(res, spec.updatedStatus);
    if (req.method === 'GET' && path === '/Items') return send(res, 200, itemsPage(new URL(req.url ?? '/', 'http://x').searchParams));
    const refresh = /^\/Items\/([^/]+)\/Refresh$/.exec(path);
    if (req.method === 'POST' && refresh) return send(res, fake.items.some((i) => i.Id === refresh[1]) ? 204 : 404);
    send(res, 404);
  };

  const itemsPage = (q: URLSearchParams) => {
    const parent = q.get('ParentId') ?? q.get('parentId');
    const ids = q.get('Ids')?.split(',');
    // Emby's GetItems filters by Path (emby-paths.ts); Jellyfin binds no such parameter.
    const byPath = spec.librariesPath === '/Library/VirtualFolders' ? null : q.get('Path');
    const all = fake.items.filter((i) => (byPath === null ? (parent === null || i.ParentId === parent) && (!ids || ids.includes(i.Id)) : i.Path === byPath));
    const start = Number(q.get('StartIndex') ?? 0);
    const limit = Number(q.get('Limit') ?? all.length);
    const withPath = (q.get('Fields') ?? '').split(',').includes('Path');
    return {
      Items: all.slice(start, start + limit).map((i) => ({ Id: i.Id, Name: i.Path.split('/').pop(), Type: i.Type ?? 'Episode', ...(withPath ? { Path: i.Path } : {}) })),
      TotalRecordCount: all.length,
      StartIndex: start,
    };
  };

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      const text = Buffer.concat(chunks).toString('utf8');
      let body: unknown = text;
      try {
        body = text ? JSON.parse(text) : undefined;
      } catch {
        // keep the raw text
      }
      requests.push({ method: req.method ?? '', path, headers: req.headers, body, query: Object.fromEntries(new URL(req.url ?? '/', 'http://x').searchParams) });
      const f = failure && (!failure.path || path.startsWith(failure.path)) ? failure.kind : null;
      if (f === 'down') return void req.socket.destroy();
      if (typeof f === 'number') return send(res, f, { error: `injected ${f}` }, failure?.headers);
      if (f === 'slow') {
        const t = setTimeout(() => {
          timers.delete(t);
          answer(req, res, path);
        }, fake.slowMs);
        timers.add(t);
        return;
      }
      answer(req, res, path);
    });
  });
  // Emby's websocket on the same port (/embywebsocket); the token is an API key's, so it carries no LibraryChanged.
  // Attached only when a test asks (spec.userId): an open socket's keep-alive waits would move a ManualClock on.
  const socket = spec.librariesPath === '/Library/VirtualFolders' || spec.userId === undefined ? undefined : new FakeMediaBrowserSocket('emby', { [spec.token]: spec.userId }).attach(server);
  const url = await listenLocal(server);

  const fake: FakeMediaBrowser = {
    url,
    socket,
    requests,
    updates: () =>
      requests
        .filter((r) => r.method === 'POST' && r.path === '/Library/Media/Updated')
        .flatMap((r) => (r.body as { Updates: { Path: string; UpdateType: string }[] }).Updates),
    fail(kind, opts) {
      failure = kind === null ? null : { kind, path: opts?.path, headers: opts?.headers };
    },
    setLibraries(body) {
      libraries = body;
    },
    items: [],
    itemRefreshes: () => requests.filter((r) => r.method === 'POST' && /^\/Items\/[^/]+\/Refresh$/.test(r.path)).map((r) => r.path.split('/')[2]),
    slowMs: 5_000,
    async close() {
      for (const t of timers) clearTimeout(t);
      await socket?.stop();
      await closeServer(server);
    },
  };
  return fake;
}

/** Jellyfin 12: only `Authorization: MediaBrowser Token="..."` counts; X-Emby-Token is ignored. */
export function startFakeJellyfin(opts: { token?: string; libraries?: unknown } = {}): Promise<FakeMediaBrowser> {
  return startFakeMediaBrowser({
    token: opts.token ?? 'jellyfin-token-1234',
    authorised: (headers, token) => {
      const m = /^MediaBrowser\s+(.*)$/i.exec(String(headers.authorization ?? ''));
      return !!m && m[1].split(',').some((pair) => pair.trim() === `Token="${token}"`);
    },
    librariesPath: '/Library/VirtualFolders',
    libraries: opts.libraries ?? ownFixture('jellyfin/library-virtualfolders.json'),
    updatedStatus: 204,
  });
}
