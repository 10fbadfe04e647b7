// A fake Plex Media Server on 127.0.0.1 that records every request and can fail on demand.
// A refresh starts a scan "activity" that ends after `scanPolls` polls (or on finishScans()); when it ends, the
// files of `onDisk` under the refreshed folder join `library`, which the undocumented ?file= lookup answers from.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { FakeMetadataRoutes } from './plex-metadata.js';

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

export interface FakeActivity {
  uuid: string;
  type: string;
  section: string;
  path: string;
  /** Polls (of /activities or /library/sections) still to see it; Infinity = until finishScans(). */
  pollsLeft: number;
  /** Real time at which it ends, when scans are timed rather than counted (set when first polled). */
  endsAt?: number;
  polls: number;
}

export interface LibraryItem {
  ratingKey: string;
  parentRatingKey?: string;
  file: string;
}

export class FakePlex {
  readonly requests: RecordedRequest[] = [];
  sections: FakeSection[];
  token: string;
  /** Applied to every request while set. */
  failure: Failure;
  /** Delay (ms) before each answer. */
  latencyMs = 0;
  /** false = an old server without GET /activities (404); the section `refreshing` flag still works. */
  activitiesSupported = true;
  /**
   * How many polls a scan stays visible (Infinity holds every scan until finishScans()). Unset: a scan lasts
   * `scanMs` of real time from the first poll instead, which keeps concurrent followers from ending each other's scans.
   */
  scanPolls: number | undefined = undefined;
  scanMs = 10;
  /** How GET /library/sections/{id}/all?file= behaves: filter by file, ignore the filter, or answer nothing. */
  fileLookup: 'filter' | 'ignore' | 'empty' | 'error' = 'filter';
  /** Files on the disk Plex sees: a finished scan of a folder adds the ones under it to `library`. */
  readonly onDisk = new Set<string>();
  /** Files Plex has in its library, by path. */
  readonly library = new Map<string, LibraryItem>();
  readonly activities: FakeActivity[] = [];
  /** Per-route failures (see failRoute), checked after `failure`. */
  readonly routeFailures: { method: string; path: RegExp; status: number; left: number }[] = [];
  private nextKey = 1000;
  /** Shows, episodes and movies with their matches, for fix-mismatched (see plex-metadata.ts). */
  readonly meta = new FakeMetadataRoutes(
    () => String(this.nextKey++),
    () => this.requests,
    (file, ratingKey) => {
      const item = this.library.get(file);
      if (item) item.ratingKey = ratingKey;
    },
  );
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

  /** Scans that ended, in order, as [section, path]. */
  readonly finishedScans: { section: string; path: string }[] = [];

  get emptiedTrash(): string[] {
    return this.requests.filter((r) => r.method === 'PUT' && /\/emptyTrash$/.test(r.path)).map((r) => r.path.split('/')[3]);
  }

  get analyzed(): string[] {
    return this.requests.filter((r) => r.method === 'PUT' && /^\/library\/metadata\/[^/]+\/analyze$/.test(r.path)).map((r) => r.path.split('/')[3]);
  }

  /** Answers `status` to the next `times` requests (default: all) whose method and path match, e.g. emptyTrash. */
  failRoute(method: string, path: RegExp, status: number, times = Infinity): void {
    this.routeFailures.push({ method, path, status, left: times });
  }

  /** The PUT emptyTrash calls received, with the time each arrived (real ms), in order. */
  get emptyTrashCalls(): { section: string; at: number }[] {
    return this.requests.filter((r) => r.method === 'PUT' && /\/emptyTrash$/.test(r.path)).map((r) => ({ section: r.path.split('/')[3], at: r.at }));
  }

  /** Puts a file straight into the library (as if scanned earlier). */
  addToLibrary(file: string, parentRatingKey?: string): LibraryItem {
    const item = { ratingKey: String(this.nextKey++), parentRatingKey, file };
    this.library.set(file, item);
    return item;
  }

  /** Ends every running scan now (or those of one section). */
  finishScans(section?: string): void {
    for (const a of [...this.activities]) if (section === undefined || a.section === section) this.endScan(a);
  }

  private endScan(a: FakeActivity): void {
    this.activities.splice(this.activities.indexOf(a), 1);
    this.finishedScans.push({ section: a.section, path: a.path });
    const prefix = a.path.endsWith('/') ? a.path : a.path + '/';
    for (const file of this.onDisk) if (file.startsWith(prefix) && !this.library.has(file)) this.addToLibrary(file, `${a.section}00`);
  }

  /** One poll sees every running scan once; those whose polls run out end after being seen. */
  private poll(): FakeActivity[] {
    if (this.scanPolls === undefined) {
      // Polls carry no caller identity, so with several followers a scan must outlive one poll per running scan
      // (each follower polls about once per round) as well as scanMs from its first sighting: nobody misses theirs.
      const now = Date.now();
      const running = this.activities.length;
      for (const a of [...this.activities]) {
        if (a.endsAt === undefined) a.endsAt = now + this.scanMs;
        else if (now >= a.endsAt && a.polls >= running) this.endScan(a);
      }
      for (const a of this.activities) a.polls++;
      return [...this.activities];
    }
    const seen = [...this.activities];
    for (const a of seen) {
      a.polls++;
      if (--a.pollsLeft <= 0) this.endScan(a);
    }
    return seen;
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
    const routeFailure = this.routeFailures.find((f) => f.left > 0 && f.method === req.method && f.path.test(u.pathname));
    if (routeFailure) {
      routeFailure.left--;
      return void res.writeHead(routeFailure.status).end();
    }
    if (u.pathname === '/identity') return json(res, { MediaContainer: { size: 0, claimed: true, machineIdentifier: 'fake', version: '1.41.0' } });
    if (token !== this.token) return void res.writeHead(401).end('Unauthorized');
    if (u.pathname === '/' && req.method === 'GET') return json(res, { MediaContainer: { friendlyName: 'fake', version: '1.41.0' } });
    if (u.pathname === '/activities') {
      if (!this.activitiesSupported) return void res.writeHead(404).end();
      const seen = this.poll();
      return json(res, {
        MediaContainer: {
          size: seen.length,
          ...(seen.length
            ? {
                Activity: seen.map((a) => ({
                  uuid: a.uuid,
                  type: a.type,
                  cancellable: false,
                  userID: 1,
                  title: `Scanning ${this.sections.find((s) => s.key === a.section)?.title ?? ''}`,
                  subtitle: a.path,
                  progress: Math.min(99, a.polls * 10),
                  Context: { librarySectionID: a.section },
                })),
              }
            : {}),
        },
      });
    }
    if (u.pathname === '/library/sections' || u.pathname === '/library/sections/all') {
      // Only a status poll counts: the library listing scanrelay fetches before a refresh has nothing running yet.
      const running = new Set((this.activities.length ? this.poll() : []).map((a) => a.section));
      return json(res, {
        MediaContainer: {
          size: this.sections.length,
          Directory: this.sections.map((s) => ({
            key: s.key,
            title: s.title,
            type: s.type ?? 'movie',
            refreshing: running.has(s.key),
            Location: s.locations.map((path, i) => ({ id: i + 1, path })),
          })),
        },
      });
    }
    const refresh = /^\/library\/sections\/([^/]+)\/refresh$/.exec(u.pathname);
    if (refresh) {
      if (!this.sections.some((s) => s.key === refresh[1])) return void res.writeHead(404).end();
      const path = u.searchParams.get('path') ?? '';
      const activity: FakeActivity = {
        uuid: `scan-${this.requests.length}`,
        type: 'library.update.section',
        section: refresh[1],
        path,
        pollsLeft: this.scanPolls ?? Infinity,
        polls: 0,
      };
      if (this.scanPolls !== undefined && this.scanPolls <= 0) this.endScan((this.activities.push(activity), activity));
      else this.activities.push(activity);
      return void res.writeHead(200).end();
    }
    const all = /^\/library\/sections\/([^/]+)\/all$/.exec(u.pathname);
    if (all && req.method === 'GET') {
      const section = this.sections.find((s) => s.key === all[1]);
      if (!section) return void res.writeHead(404).end();
      if (this.fileLookup === 'error') return void res.writeHead(400).end();
      if (this.fileLookup === 'empty') return json(res, { MediaContainer: { size: 0 } });
      const inSection = [...this.library.values()].filter((i) => section.locations.some((l) => i.file.startsWith(l.endsWith('/') ? l : l + '/')));
      const file = u.searchParams.get('file');
      const items = this.fileLookup === 'filter' && file !== null ? inSection.filter((i) => i.file === file) : inSection;
      return json(res, {
        MediaContainer: {
          size: items.length,
          ...(items.length
            ? {
                Metadata: items.map((i) => ({
                  ratingKey: i.ratingKey,
                  ...(i.parentRatingKey ? { parentRatingKey: i.parentRatingKey } : {}),
                  Media: [{ Part: [{ file: i.file }] }],
                })),
              }
            : {}),
        },
      });
    }
    if (req.method === 'PUT' && /^\/library\/sections\/[^/]+\/emptyTrash$/.test(u.pathname)) {
      const ok = this.sections.some((s) => s.key === u.pathname.split('/')[3]);
      return void res.writeHead(ok ? 200 : 404).end();
    }
    const children = /^\/library\/metadata\/([^/]+)\/children$/.exec(u.pathname);
    if (children && req.method === 'GET') {
      // A parent's children are the items that name it as their parent (a season's episodes).
      const items = [...this.library.values()].filter((i) => i.parentRatingKey === children[1]);
      const exists = items.length > 0 || [...this.library.values()].some((i) => i.ratingKey === children[1]);
      if (!exists) return void res.writeHead(404).end();
      return json(res, {
        MediaContainer: {
          size: items.length,
          key: children[1],
          ...(items.length
            ? { Metadata: items.map((i) => ({ ratingKey: i.ratingKey, parentRatingKey: i.parentRatingKey, type: 'episode', Media: [{ Part: [{ file: i.file }] }] })) }
            : {}),
        },
      });
    }
    if (u.pathname.startsWith('/library/metadata/') && this.meta.handle(req.method ?? 'GET', u, res)) return;
    const analyze = /^\/library\/metadata\/([^/]+)\/analyze$/.exec(u.pathname);
    if (analyze && req.method === 'PUT') {
      const known = [...this.library.values()].some((i) => i.ratingKey === analyze[1] || i.parentRatingKey === analyze[1]);
      return void res.writeHead(known ? 200 : 404).end();
    }
    res.writeHead(404).end();
  }

}

export function json(res: ServerResponse, body: unknown): void {
  res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}
