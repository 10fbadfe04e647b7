// A fake Plex Media Server on 127.0.0.1 that records every request and can fail on demand.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeSection {
  key: string;
  title: string;
  type?: string;
  locations: string[];
}

export interface RecordedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  token?: string;
  at: number;
}

export type Failure = { status: number } | 'reset' | 'hang' | undefined;

export class FakePlex {
  readonly requests: RecordedRequest[] = [];
  sections: FakeSection[];
  token: string;
  /** Applied to every request while set. */
  failure: Failure;
  /** Delay (ms) before each answer. */
  latencyMs = 0;
  private server?: Server;
  url = '';

  constructor(opts: { sections?: FakeSection[]; token?: string } = {}) {
    this.token = opts.token ?? 'plex-token-1234';
    this.sections = opts.sections ?? [
      { key: '1', title: 'Movies', type: 'movie', locations: ['/data/media/movies'] },
      { key: '2', title: 'TV Shows', type: 'show', locations: ['/data/media/tv'] },
      { key: '3', title: 'Music', type: 'artist', locations: ['/data/media/music'] },
    ];
  }

  /** The refresh calls received, as [section, path]. */
  get refreshes(): { section: string; path: string }[] {
    return this.requests
      .filter((r) => /^\/library\/sections\/[^/]+\/refresh$/.test(r.path))
      .map((r) => ({ section: r.path.split('/')[3], path: r.query.path }));
  }

  async start(): Promise<this> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const u = new URL(req.url ?? '/', 'http://x');
    const token = (req.headers['x-plex-token'] as string | undefined) ?? u.searchParams.get('X-Plex-Token') ?? undefined;
    this.requests.push({ method: req.method ?? 'GET', path: u.pathname, query: Object.fromEntries(u.searchParams), token, at: Date.now() });
    if (this.latencyMs) await new Promise((r) => setTimeout(r, this.latencyMs));
    const failure = this.failure;
    if (failure === 'reset') return void req.socket.destroy();
    if (failure === 'hang') return;
    if (failure) return void res.writeHead(failure.status).end();
    if (u.pathname === '/identity') return json(res, { MediaContainer: { size: 0, claimed: true, machineIdentifier: 'fake', version: '1.41.0' } });
    if (token !== this.token) return void res.writeHead(401).end('Unauthorized');
    if (u.pathname === '/library/sections' || u.pathname === '/library/sections/all') {
      return json(res, {
        MediaContainer: {
          size: this.sections.length,
          Directory: this.sections.map((s) => ({
            key: s.key,
            title: s.title,
            type: s.type ?? 'movie',
            refreshing: false,
            Location: s.locations.map((path, i) => ({ id: i + 1, path })),
          })),
        },
      });
    }
    const refresh = /^\/library\/sections\/([^/]+)\/refresh$/.exec(u.pathname);
    if (refresh) {
      if (!this.sections.some((s) => s.key === refresh[1])) return void res.writeHead(404).end();
      return void res.writeHead(200).end();
    }
    res.writeHead(404).end();
  }
}

function json(res: ServerResponse, body: unknown): void {
  res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}
