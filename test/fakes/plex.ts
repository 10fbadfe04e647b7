// A fake Plex Media Server on 127.0.0.1 that records every request and can fail on demand.
// A refresh starts a scan "activity" that ends after `scanPolls` polls (0: before anyone can poll), after
// `scanMs` from its first sighting, on finishScans(), or, with `fifoMs`, as Plex does it: one scan at a time in
// the order asked, each taking fifoMs. When a scan ends, the files of `onDisk` under the scanned folder join
// `library`, which the undocumented ?file= lookup answers from. `hideActivities` makes /activities always empty.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { flood, type Flood, type FloodResult } from './flood.js';
import { FakeMetadataRoutes } from './plex-metadata.js';
import { closeServer, listenLocal } from '../support/net.js';

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
  /** The Authorization header (Basic auth from a user and password in PLEX_LOCAL_URL) and the Host header as received. */
  authorization?: string;
  host?: string;
  at: number;
}

export type Failure = { status: number; body?: string } | 'reset' | 'hang' | undefined;

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
  /** Other folders merged into this scan (the `merge` fault): scanned with it, ended with it. */
  merged?: string[];
}

export interface LibraryItem {
  ratingKey: string;
  parentRatingKey?: string;
  file: string;
  /** When it joined the library, unix seconds, as Plex's Metadata carries it (python-plexapi@9dd520d plexapi/video.py L37: `addedAt` read with toDatetime, from unix seconds). */
  addedAt: number;
}

/** Files on the fake's disk, indexed by every folder above them, so a scan ending among 100,000 files is cheap. */
class DiskFiles extends Set<string> {
  private readonly byFolder = new Map<string, Set<string>>();
  override add(file: string): this {
    super.add(file);
    for (const folder of ancestors(file)) {
      const files = this.byFolder?.get(folder) ?? new Set<string>();
      files.add(file);
      this.byFolder?.set(folder, files);
    }
    return this;
  }
  override delete(file: string): boolean {
    for (const folder of ancestors(file)) this.byFolder.get(folder)?.delete(file);
    return super.delete(file);
  }
  /** The files at or under `path`. */
  under(path: string): string[] {
    return [...(this.byFolder.get(path.endsWith('/') ? path.slice(0, -1) : path) ?? [])];
  }
}

function ancestors(file: string): string[] {
  const out: string[] = [];
  for (let i = file.indexOf('/', 1); i > 0; i = file.indexOf('/', i + 1)) out.push(file.slice(0, i));
  return out;
}

export class FakePlex {
  readonly requests: RecordedRequest[] = [];
  sections: FakeSection[];
  token: string;
  /** Applied to every request while set. */
  failure: Failure;
  /** Delay (ms) before each answer. */
  latencyMs = 0;
  /** Requests this matches get no answer at all (a refresh Plex sits on), whatever `failure` says. */
  hangWhen?: (path: string, query: Record<string, string>) => boolean;
  /**
   * Requests whose path matches `paths` are answered 302 to `to` + the same path and query (marked
   * `redirected=1`, which is never redirected again, so a same-origin redirect ends).
   */
  redirect?: { to: string; paths: RegExp; status?: number };
  /** Requests whose path matches `paths` are answered with a flood (test/fakes/flood.ts); what each took, in `floods`. */
  flooding?: Flood & { paths: RegExp };
  readonly floods: FloodResult[] = [];
  /** false = an old server without GET /activities (404); the section `refreshing` flag still works. */
  activitiesSupported = true;
  /**
   * How many polls a scan stays visible (Infinity holds every scan until finishScans()). Unset: a scan lasts
   * `scanMs` of real time from the first poll instead, which keeps concurrent followers from ending each other's scans.
   */
  scanPolls: number | undefined = undefined;
  scanMs = 10;
  /** Plex's own queue: scans run one at a time, in order, each for this many ms (real time). */
  fifoMs: number | undefined = undefined;
  /** With fifoMs set: a FIFO scan ends only on stepFifo(), so a test sets Plex's pace on its own clock. */
  fifoStepped = false;
  /** The most scans the FIFO ever held (waiting and running): Plex's backlog at its worst. */
  peakQueued = 0;
  /** Refreshes that arrived while the same folder of the same section was still waiting in the FIFO. */
  refreshesWhileWaiting = 0;
  private fifoCurrent?: FakeActivity;
  /**
   * Faults injected, not Plex's normal behaviour (docs/targets.md assumes a section's scans run one at a time, in
   * the order taken; rivenmedia/riven#873 reports a partial scan that never took effect). `drop`: a refresh it
   * matches is answered 200 and never run, no activity, no end. `merge`: a refresh arriving while another of its
   * section waits in the FIFO is folded into that one: one scan, one activity and one end for both folders.
   */
  faults: { drop?: (section: string, path: string) => boolean; merge?: boolean } = {};
  /** Refreshes the faults swallowed: dropped, or merged into the waiting scan of `into`. */
  readonly swallowed: { section: string; path: string; how: 'dropped' | 'merged'; into?: string }[] = [];
  /** An old or quiet Plex: GET /activities answers an empty list whatever runs (scans still end and add files). */
  hideActivities = false;
  /** When the FIFO first started a scan and last finished one (real ms): the time Plex itself spent. */
  readonly fifoSpan: { first?: number; last?: number } = {};
  /** The FIFO's waiting scans (fifoMs mode); the running one is in `activities`. */
  private readonly fifo: { activity: FakeActivity; ms: number }[] = [];
  private fifoTimer?: NodeJS.Timeout;
  /** How GET /library/sections/{id}/all?file= behaves: filter by file, ignore the filter, or answer nothing. */
  fileLookup: 'filter' | 'ignore' | 'empty' | 'error' = 'filter';
  /** Files on the disk Plex sees: a finished scan of a folder adds the ones under it to `library`. */
  readonly onDisk = new DiskFiles();
  /** Files Plex has in its library, by path. */
  readonly library = new Map<string, LibraryItem>();
  readonly activities: FakeActivity[] = [];
  /** Per-route failures (see failRoute), checked after `failure`. */
  readonly routeFailures: { method: string; path: RegExp; status: number; left: number; headers?: Record<string, string> }[] = [];
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
  server?: Server;
  url = '';

  /** `tls`: serve https:// (and wss:// notifications) with this key and certificate (test/fixtures/tls). */
  private readonly tls?: { key: string; cert: string };

  constructor(opts: { sections?: FakeSection[]; token?: string; tls?: { key: string; cert: string } } = {}) {
    this.token = opts.token ?? 'plex-token-1234';
    this.tls = opts.tls;
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

  /** The items whose metadata refresh was asked for (PUT /library/metadata/{ratingKey}/refresh), in order. */
  get itemRefreshes(): string[] {
    return this.requests.filter((r) => r.method === 'PUT' && /^\/library\/metadata\/[^/]+\/refresh$/.test(r.path)).map((r) => r.path.split('/')[3]);
  }

  get analyzed(): string[] {
    return this.requests.filter((r) => r.method === 'PUT' && /^\/library\/metadata\/[^/]+\/analyze$/.test(r.path)).map((r) => r.path.split('/')[3]);
  }

  /**
   * Answers `status` to the next `times` requests (default: all) whose method and path match, e.g. emptyTrash,
   * with `headers` (a 429's Retry-After).
   */
  failRoute(method: string, path: RegExp, status: number, times = Infinity, headers?: Record<string, string>): void {
    this.routeFailures.push({ method, path, status, left: times, headers });
  }

  /** The PUT emptyTrash calls received, with the time each arrived (real ms), in order. */
  get emptyTrashCalls(): { section: string; at: number }[] {
    return this.requests.filter((r) => r.method === 'PUT' && /\/emptyTrash$/.test(r.path)).map((r) => ({ section: r.path.split('/')[3], at: r.at }));
  }

  /** Puts a file straight into the library (as if scanned earlier). */
  addToLibrary(file: string, parentRatingKey?: string): LibraryItem {
    const item = { ratingKey: String(this.nextKey++), parentRatingKey, file, addedAt: Math.floor(Date.now() / 1000) };
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
    for (const path of [a.path, ...(a.merged ?? [])]) for (const file of this.onDisk.under(path)) if (!this.library.has(file)) this.addToLibrary(file, `${a.section}00`);
  }

  /** A whole-section scan (Plex's "Scan Library Files") that holds the section for `ms` in the FIFO. */
  startLibraryScan(section: string, ms: number): void {
    const location = this.sections.find((s) => s.key === section)?.locations[0] ?? '/';
    const activity: FakeActivity = { uuid: `library-${section}-${Date.now()}`, type: 'library.update.section', section, path: location, pollsLeft: Infinity, polls: 0 };
    this.fifo.push({ activity, ms });
    this.pump();
  }

  /** Scans waiting in the FIFO or running (fifoMs mode). */
  get scansQueued(): number {
    return this.fifo.length + this.activities.length;
  }

  /** Ends the running FIFO scan and starts the next, up to `count` times (fifoStepped); returns the scans ended. */
  stepFifo(count = 1): number {
    let ended = 0;
    for (; ended < count && this.fifoCurrent; ended++) {
      const a = this.fifoCurrent;
      this.fifoCurrent = undefined;
      this.endScan(a);
      this.pump();
    }
    return ended;
  }

  /** A refresh the faults take and never run on its own (dropped, or merged into one waiting in the FIFO). */
  private swallow(section: string, path: string): boolean {
    if (this.faults.drop?.(section, path)) return !!this.swallowed.push({ section, path, how: 'dropped' });
    const waiting = this.faults.merge ? this.fifo.find((w) => w.activity.section === section) : undefined;
    if (!waiting) return false;
    (waiting.activity.merged ??= []).push(path);
    return !!this.swallowed.push({ section, path, how: 'merged', into: waiting.activity.path });
  }

  /** Starts the next FIFO scan when none runs. */
  private pump(): void {
    if (this.fifoTimer || this.fifoCurrent || this.fifo.length === 0) return;
    const next = this.fifo.shift()!;
    this.activities.push(next.activity);
    this.fifoSpan.first ??= Date.now();
    if (this.fifoStepped) return void (this.fifoCurrent = next.activity);
    this.fifoTimer = setTimeout(() => {
      this.fifoTimer = undefined;
      this.fifoSpan.last = Date.now();
      this.endScan(next.activity);
      this.pump();
    }, next.ms);
  }

  /** One poll sees every running scan once; those whose polls run out end after being seen. */
  private poll(): FakeActivity[] {
    if (this.fifoMs !== undefined || this.fifoTimer) return [...this.activities];
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
    const handler = (req: IncomingMessage, res: ServerResponse) => void this.handle(req, res);
    this.server = this.tls ? createHttpsServer(this.tls, handler) : createServer(handler);
    this.url = await listenLocal(this.server);
    if (this.tls) this.url = this.url.replace(/^http:/, 'https:');
    return this;
  }

  async stop(): Promise<void> {
    if (this.fifoTimer) clearTimeout(this.fifoTimer);
    await closeServer(this.server);
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const u = new URL(req.url ?? '/', 'http://x');
    const token = (req.headers['x-plex-token'] as string | undefined) ?? u.searchParams.get('X-Plex-Token') ?? undefined;
    this.requests.push({
      method: req.method ?? 'GET',
      path: u.pathname,
      query: Object.fromEntries(u.searchParams),
      token,
      authorization: req.headers.authorization,
      host: req.headers.host,
      at: Date.now(),
    });
    if (this.latencyMs) await new Promise((r) => setTimeout(r, this.latencyMs));
    if (this.hangWhen?.(u.pathname, Object.fromEntries(u.searchParams))) return;
    if (this.redirect && this.redirect.paths.test(u.pathname) && !u.searchParams.has('redirected')) {
      u.searchParams.set('redirected', '1');
      return void res.writeHead(this.redirect.status ?? 302, { location: `${this.redirect.to}${u.pathname}?${u.searchParams}` }).end();
    }
    if (this.flooding?.paths.test(u.pathname)) return void this.floods.push(await flood(res, this.flooding));
    const failure = this.failure;
    if (failure === 'reset') return void req.socket.destroy();
    if (failure === 'hang') return;
    if (failure) return void res.writeHead(failure.status).end(failure.body);
    const routeFailure = this.routeFailures.find((f) => f.left > 0 && f.method === req.method && f.path.test(u.pathname));
    if (routeFailure) {
      routeFailure.left--;
      return void res.writeHead(routeFailure.status, routeFailure.headers).end();
    }
    if (u.pathname === '/identity') return json(res, { MediaContainer: { size: 0, claimed: true, machineIdentifier: 'fake', version: '1.41.0' } });
    if (token !== this.token) return void res.writeHead(401).end('Unauthorized');
    if (u.pathname === '/' && req.method === 'GET') return json(res, { MediaContainer: { friendlyName: 'fake', version: '1.41.0' } });
    if (u.pathname === '/activities') {
      if (!this.activitiesSupported) return void res.writeHead(404).end();
      const seen = this.hideActivities ? [] : this.poll();
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
      const running = new Set((this.activities.length && !this.hideActivities ? this.poll() : []).map((a) => a.section));
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
      if (this.swallow(refresh[1], path)) return void res.writeHead(200).end();
      const activity: FakeActivity = {
        uuid: `scan-${this.requests.length}`,
        type: 'library.update.section',
        section: refresh[1],
        path,
        pollsLeft: this.scanPolls ?? Infinity,
        polls: 0,
      };
      if (this.fifoMs !== undefined) {
        if (this.fifo.some((w) => w.activity.section === activity.section && w.activity.path === path)) this.refreshesWhileWaiting++;
        this.fifo.push({ activity, ms: this.fifoMs });
        this.pump();
        this.peakQueued = Math.max(this.peakQueued, this.scansQueued);
      } else if (this.scanPolls !== undefined && this.scanPolls <= 0) this.endScan((this.activities.push(activity), activity));
      else this.activities.push(activity);
      return void res.writeHead(200).end();
    }
    const all = /^\/library\/sections\/([^/]+)\/all$/.exec(u.pathname);
    if (all && req.method === 'GET') {
      const section = this.sections.find((s) => s.key === all[1]);
      if (!section) return void res.writeHead(404).end();
      if (this.fileLookup === 'error') return void res.writeHead(400).end();
      if (this.fileLookup === 'empty') return json(res, { MediaContainer: { size: 0 } });
      const inSection = (i: LibraryItem) => section.locations.some((l) => i.file.startsWith(l.endsWith('/') ? l : l + '/'));
      // ?type= lists the section's items of that type (python-plexapi@a8d051f plexapi/utils.py SEARCHTYPES: movie 1,
      // episode 4, track 10): the fake's items are its section's leaves, so another type lists none.
      const type = u.searchParams.get('type');
      if (type !== null && type !== ({ movie: '1', show: '4', artist: '10' } as Record<string, string>)[section.type ?? 'movie']) return json(res, { MediaContainer: { size: 0, totalSize: 0, offset: 0 } });
      const file = u.searchParams.get('file');
      const exact = file !== null ? this.library.get(file) : undefined;
      let items = this.fileLookup === 'filter' && file !== null ? (exact && inSection(exact) ? [exact] : []) : [...this.library.values()].filter(inSection);
      // The recently-added listing: newest first (items join the library in order), one page at a time.
      if (u.searchParams.get('sort') === 'addedAt:desc') items = items.reverse();
      const total = items.length;
      // Paging in the query or, as python-plexapi's fetchItems sends it (plexapi/base.py), in headers.
      const header = (name: string) => (typeof req.headers[name] === 'string' ? (req.headers[name] as string) : null);
      const start = u.searchParams.get('X-Plex-Container-Start') ?? header('x-plex-container-start');
      const size = u.searchParams.get('X-Plex-Container-Size') ?? header('x-plex-container-size');
      if (start !== null && size !== null) items = items.slice(Number(start), Number(start) + Number(size));
      return json(res, {
        MediaContainer: {
          size: items.length,
          ...(start !== null ? { offset: Number(start), totalSize: total } : {}),
          ...(items.length
            ? {
                Metadata: items.map((i) => ({
                  ratingKey: i.ratingKey,
                  ...(i.parentRatingKey ? { parentRatingKey: i.parentRatingKey } : {}),
                  addedAt: i.addedAt,
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
    const itemRefresh = /^\/library\/metadata\/([^/]+)\/refresh$/.exec(u.pathname);
    if (itemRefresh && req.method === 'PUT') {
      const known = [...this.library.values()].some((i) => i.ratingKey === itemRefresh[1] || i.parentRatingKey === itemRefresh[1]);
      return void res.writeHead(known ? 200 : 404).end();
    }
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
