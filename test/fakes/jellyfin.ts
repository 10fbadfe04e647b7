// A fake Jellyfin on 127.0.0.1 that records requests, answers from the shared fixtures and fails on demand.
// Emby's fake (emby.ts) is the same MediaBrowser server with a different auth header and library route.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ownFixture } from '../support/fixtures.js';

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: unknown;
}

/** down = connection dropped; slow = answer after `slowMs`; a number = that HTTP status. */
export type Failure = 'down' | 'slow' | number;

export interface FakeMediaBrowser {
  url: string;
  requests: RecordedRequest[];
  /** Scan notifications accepted, in order. */
  updates(): { Path: string; UpdateType: string }[];
  /** Fail every request (or only those whose path starts with `path`) until `fail(null)`. */
  fail(failure: Failure | null, opts?: { path?: string }): void;
  /** Replace the library listing the server returns. */
  setLibraries(body: unknown): void;
  slowMs: number;
  close(): Promise<void>;
}

export interface MediaBrowserFlavourSpec {
  token: string;
  /** True when the request carries the token the way this server accepts it. */
  authorised(headers: IncomingMessage['headers'], token: string): boolean;
  librariesPath: string;
  libraries: unknown;
  /** Jellyfin answers 204, Emby 200 with an empty body. */
  updatedStatus: number;
}

export async function startFakeMediaBrowser(spec: MediaBrowserFlavourSpec): Promise<FakeMediaBrowser> {
  const requests: RecordedRequest[] = [];
  let libraries = spec.libraries;
  let failure: { kind: Failure; path?: string } | null = null;
  const timers = new Set<NodeJS.Timeout>();
  const info = ownFixture('jellyfin/system-info-public.json');

  const send = (res: ServerResponse, status: number, body?: unknown): void => {
    if (body === undefined) {
      res.writeHead(status).end();
    } else {
      res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
    }
  };

  const answer = (req: IncomingMessage, res: ServerResponse, path: string): void => {
    if (req.method === 'GET' && path === '/System/Info/Public') return send(res, 200, info);
    if (!spec.authorised(req.headers, spec.token)) return send(res, 401, { error: 'Unauthorized' });
    if (req.method === 'GET' && path === spec.librariesPath) return send(res, 200, libraries);
    if (req.method === 'POST' && path === '/Library/Media/Updated') return send(res, spec.updatedStatus);
    send(res, 404);
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
      requests.push({ method: req.method ?? '', path, headers: req.headers, body });
      const f = failure && (!failure.path || path.startsWith(failure.path)) ? failure.kind : null;
      if (f === 'down') return void req.socket.destroy();
      if (typeof f === 'number') return send(res, f, { error: `injected ${f}` });
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
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  const fake: FakeMediaBrowser = {
    url: `http://127.0.0.1:${port}`,
    requests,
    updates: () =>
      requests
        .filter((r) => r.method === 'POST' && r.path === '/Library/Media/Updated')
        .flatMap((r) => (r.body as { Updates: { Path: string; UpdateType: string }[] }).Updates),
    fail(kind, opts) {
      failure = kind === null ? null : { kind, path: opts?.path };
    },
    setLibraries(body) {
      libraries = body;
    },
    slowMs: 5_000,
    async close() {
      for (const t of timers) clearTimeout(t);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
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
