// A fake Sonarr, Radarr, Lidarr, Readarr or Whisparr on 127.0.0.1, as the catch-up and `scanrelay connect` see one:
// system/status, history (paged), rootfolder, the series or movie by id, the library list (series, movie, artist or
// author, each with its folder in `path`: SeriesResource, MovieResource, ArtistResource, AuthorResource of the app's
// OpenAPI document) and the Connect entries (notification CRUD and schema). Its behaviour is the apps' own code (each one's develop, commits in test/fixtures/README.md):
// - the key from X-Api-Key, else ?apikey=, else nothing: 401 with an empty body (Sonarr.Http/Authentication/
//   ApiKeyAuthenticationHandler.cs: HandleChallengeAsync);
// - history answers a page of the whole history, as Sonarr's HistoryController.GetHistory (Sonarr.Api.V3/History/
//   HistoryController.cs:63-98 at 97d24ac; Radarr's :64, Lidarr's and Readarr's v1 :71 and :65 the same): page 1
//   and pageSize 10 when not asked (Sonarr.Http/PagingResource.cs:9-12,32-33), sortKey date whatever else is asked
//   and descending unless ascending is (HistoryController.cs:68-75, PagingResource.cs:55-63), as
//   `{page, pageSize, sortKey, sortDirection, totalRecords, records}` (PagingResource.cs:17-24); the rows by
//   `ORDER BY Date LIMIT pageSize OFFSET (page - 1) * pageSize` (NzbDrone.Core/Datastore/BasicRepository.cs:420-432),
//   which orders records of one date as the table holds them: here in the order written;
//   dates to the second with a Z (STJUtcConverter.cs);
// - saving a Connect entry without forceSave=true tests it first (ProviderControllerBase.cs): a failing test is a
//   400 with the validation failures; POST answers the entry with its new id, PUT the entry;
// - the files of an item: Sonarr's GET episodefile?seriesId= (EpisodeFileController.GetEpisodeFiles: without seriesId
//   or episodeFileIds a 400), Lidarr's trackfile?artistId= and Readarr's bookfile?authorId= alike
//   (TrackFileController, BookFileController), Radarr's in each movie's `movieFile` (MovieResource.MovieFile);
// - an item deleted takes its history with it (HistoryService.Handle(SeriesDeletedEvent) → DeleteForSeries; Radarr's
//   MovieDeletedEvent, Lidarr's ArtistDeletedEvent, Readarr's AuthorDeletedEvent the same).
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { closeServer, listenLocal, withBody } from '../support/net.js';
import { ownFixture } from '../support/fixtures.js';

export type ArrAppType = 'sonarr' | 'radarr' | 'lidarr' | 'readarr' | 'whisparr' | 'whisparr-v3';

export interface ArrRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: IncomingMessage['headers'];
  body: unknown;
}

export type ArrFailure = { status: number; body?: string } | 'down' | 'hang' | 'garbage' | undefined;

type Json = Record<string, unknown>;

type Library = { list: 'series' | 'movie' | 'artist' | 'author'; idField: string; name: string; files?: string };
const SERIES: Library = { list: 'series', idField: 'seriesId', name: 'title', files: 'episodefile' };
const MOVIES: Library = { list: 'movie', idField: 'movieId', name: 'title' };

const INFO: Record<ArrAppType, { api: string; appName: string; version: string; owner?: string; doc: string; library: Library }> = {
  sonarr: { api: '/api/v3', appName: 'Sonarr', version: '4.0.14.2939', owner: 'series', doc: 'sonarr', library: SERIES },
  radarr: { api: '/api/v3', appName: 'Radarr', version: '5.21.1.9799', owner: 'movie', doc: 'radarr', library: MOVIES },
  lidarr: { api: '/api/v1', appName: 'Lidarr', version: '2.11.2.4629', doc: 'lidarr', library: { list: 'artist', idField: 'artistId', name: 'artistName', files: 'trackfile' } },
  readarr: { api: '/api/v1', appName: 'Readarr', version: '0.4.18.2805', doc: 'readarr', library: { list: 'author', idField: 'authorId', name: 'authorName', files: 'bookfile' } },
  whisparr: { api: '/api/v3', appName: 'Whisparr', version: '2.0.0.1046', owner: 'series', doc: 'whisparr', library: SERIES },
  'whisparr-v3': { api: '/api/v3', appName: 'Whisparr', version: '3.0.0.1234', owner: 'movie', doc: 'whisparr-v3', library: MOVIES },
};

/** "2026-03-01T20:05:12Z": the apps' dates, to the second. */
export const arrDate = (ms: number) => new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');

export class FakeArrApp {
  readonly requests: ArrRequest[] = [];
  readonly api: string;
  /** The history the app holds, as its API answers records. */
  history: Json[] = [];
  rootFolders: string[] = [];
  /** Series or movies by id (what GET series/{id} or movie/{id} answers). */
  owners = new Map<number, Json>();
  /** The series, movies, artists or authors GET series (movie, artist, author) lists, each with its folder. */
  library: Json[] = [];
  notifications: Json[] = [];
  /** The files of each item (by its id) that the file list answers (Sonarr, Lidarr, Readarr). */
  readonly files = new Map<number, Json[]>();
  /** Applied to every request while set (to those whose path `failureFor` matches, when it is set). */
  failure: ArrFailure;
  failureFor: RegExp | undefined;
  /** A Connect entry saved untested fails its test (the app cannot reach the URL). */
  testFails = false;
  version: string;
  url = '';
  private server: Server | undefined;
  private nextId = 100;
  private nextFile = 0;

  constructor(
    readonly type: ArrAppType,
    /** The key it takes; a test changes it to see a key refused. */
    public apiKey: string,
  ) {
    this.api = INFO[type].api;
    this.version = INFO[type].version;
  }

  /** The app's own OpenAPI document (trimmed; test/fixtures/arr-api). */
  document(): Json {
    return ownFixture<Json>(`arr-api/${INFO[this.type].doc}-openapi.json`);
  }

  /** The names of the app's history event enum. */
  eventTypes(): string[] {
    const schemas = (this.document().components as { schemas: Record<string, { enum?: string[] }> }).schemas;
    return Object.entries(schemas).find(([k]) => k.endsWith('HistoryEventType'))![1].enum!;
  }

  /** A record written now (or at `at`): `fields` over an id and the date. */
  write(fields: Json, at: number): Json {
    const record = { ...fields, date: arrDate(at), id: (fields.id as number | undefined) ?? 100_000 + this.history.length };
    this.history.push(record);
    return record;
  }

  /** An item added with its folder (`path`) and its name; its id is returned. */
  addItem(path: string, id = 1 + this.library.length): number {
    const { name } = INFO[this.type].library;
    this.library.push({ id, [name]: path.split('/').filter(Boolean).pop(), path });
    return id;
  }

  /** A file of the item `id` (an episode, track or book file; a movie's one file replaces the last). */
  addFile(id: number, path: string): void {
    const item = this.library.find((i) => i.id === id);
    if (!item) throw new Error(`no item ${id}`);
    const { idField, files } = INFO[this.type].library;
    const file = { id: 1 + this.nextFile++, [idField]: id, relativePath: path.slice(String(item.path).length + 1), path };
    if (files) this.files.set(id, [...(this.files.get(id) ?? []), file]);
    else item.movieFile = file;
  }

  /** The item of that folder deleted, as the app deletes it: its history goes with it. */
  deleteItem(path: string): void {
    const item = this.library.find((i) => i.path === path);
    if (!item) throw new Error(`no item at ${path}`);
    this.library = this.library.filter((i) => i !== item);
    this.history = this.history.filter((h) => h[INFO[this.type].library.idField] !== item.id);
  }

  async start(): Promise<this> {
    this.server = createServer(
      withBody((req, res, u, body) => {
        const request: ArrRequest = { method: req.method ?? '', path: u.pathname, query: Object.fromEntries(u.searchParams), headers: req.headers, body };
        this.requests.push(request);
        const failure = this.failureFor && !this.failureFor.test(u.pathname) ? undefined : this.failure;
        if (failure === 'down') return void req.socket.destroy();
        if (failure === 'hang') return;
        if (failure === 'garbage') return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"records": [');
        if (failure) return void res.writeHead(failure.status, { 'content-type': 'text/plain' }).end(failure.body ?? '');
        const key = u.searchParams.get('apikey') ?? req.headers['x-api-key'];
        if (key !== this.apiKey) return void res.writeHead(401).end();
        const { status, json } = this.route(request);
        if (json === undefined) return void res.writeHead(status).end();
        res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify(json));
      }),
    );
    this.url = await listenLocal(this.server);
    return this;
  }

  stop(): Promise<void> {
    return closeServer(this.server);
  }

  /** The Connect entries of implementation Webhook. */
  webhooks(): Json[] {
    return this.notifications.filter((n) => n.implementation === 'Webhook');
  }

  private route(r: ArrRequest): { status: number; json?: unknown } {
    const info = INFO[this.type];
    if (!r.path.startsWith(this.api + '/')) return { status: 404 };
    const path = r.path.slice(this.api.length);
    if (r.method === 'GET' && path === '/system/status') return { status: 200, json: { appName: info.appName, instanceName: info.appName, version: this.version, isDocker: true, urlBase: '' } };
    if (r.method === 'GET' && path === '/history') return this.page(r.query);
    if (r.method === 'GET' && path === '/rootfolder') return { status: 200, json: this.rootFolders.map((p, i) => ({ path: p, accessible: true, freeSpace: 1e12, unmappedFolders: [], id: i + 1 })) };
    if (r.method === 'GET' && path === `/${info.library.list}`) return { status: 200, json: this.library };
    if (r.method === 'GET' && info.library.files && path === `/${info.library.files}`) {
      const id = r.query[info.library.idField];
      if (id === undefined) return { status: 400, json: { message: `${info.library.idField} or ${info.library.files.replace('file', 'File')}Ids must be provided` } };
      return { status: 200, json: this.files.get(Number(id)) ?? [] };
    }
    const owner = info.owner && new RegExp(`^/${info.owner}/(\\d+)$`).exec(path);
    if (r.method === 'GET' && owner) {
      const found = this.owners.get(Number(owner[1]));
      return found ? { status: 200, json: found } : { status: 404, json: { message: 'NotFound' } };
    }
    if (r.method === 'GET' && path === '/notification') return { status: 200, json: this.notifications };
    if (r.method === 'GET' && path === '/notification/schema') return { status: 200, json: [this.template()] };
    const one = /^\/notification(?:\/(\d+))?$/.exec(path);
    if (one && (r.method === 'POST' || r.method === 'PUT')) return this.save(r, one[1] === undefined ? undefined : Number(one[1]));
    return { status: 404 };
  }

  private page(query: Record<string, string>): { status: number; json?: unknown } {
    const page = Number(query.page ?? 1);
    const pageSize = Number(query.pageSize ?? 10);
    const sortDirection = query.sortDirection?.toLowerCase() === 'ascending' ? 'ascending' : 'descending';
    const byDate = [...this.history].sort((a, b) => Date.parse(a.date as string) - Date.parse(b.date as string));
    if (sortDirection === 'descending') byDate.reverse();
    const offset = Math.max(page - 1, 0) * pageSize;
    const records = byDate.slice(offset, offset + pageSize);
    return { status: 200, json: { page, pageSize, sortKey: 'date', sortDirection, totalRecords: this.history.length, records } };
  }

  /** The Webhook template of GET notification/schema: every on* flag of the app's NotificationResource, supported. */
  private template(): Json {
    const props = ((this.document().components as { schemas: Record<string, { properties: Record<string, unknown> }> }).schemas.NotificationResource).properties;
    const flags = Object.keys(props).filter((k) => /^on[A-Z]/.test(k));
    return {
      onGrab: false,
      ...Object.fromEntries(flags.map((f) => [f, false])),
      ...Object.fromEntries(flags.map((f) => [`supports${f[0].toUpperCase()}${f.slice(1)}`, true])),
      name: '',
      fields: [
        { order: 0, name: 'url', label: 'URL', type: 'url', advanced: false, privacy: 'normal', isFloat: false },
        { order: 1, name: 'method', label: 'Method', value: 1, type: 'select', advanced: false, selectOptions: [{ value: 1, name: 'POST' }, { value: 2, name: 'PUT' }], privacy: 'normal', isFloat: false },
        { order: 2, name: 'username', label: 'Username', type: 'textbox', advanced: false, privacy: 'userName', isFloat: false },
        { order: 3, name: 'password', label: 'Password', type: 'password', advanced: false, privacy: 'password', isFloat: false },
      ],
      implementationName: 'Webhook',
      implementation: 'Webhook',
      configContract: 'WebhookSettings',
      infoLink: 'https://wiki.servarr.com/webhook',
      tags: [],
      presets: [],
    };
  }

  private save(r: ArrRequest, id: number | undefined): { status: number; json?: unknown } {
    const entry = r.body as Json;
    if (r.query.forceSave !== 'true' && this.testFails) {
      return { status: 400, json: [{ propertyName: 'Url', errorMessage: 'Unable to send test message: Connection refused (relay.example:3468)', severity: 'error' }] };
    }
    if (id === undefined) {
      const created = { ...entry, id: this.nextId++ };
      this.notifications.push(created);
      return { status: 201, json: created };
    }
    const at = this.notifications.findIndex((n) => n.id === id);
    if (at < 0) return { status: 404 };
    this.notifications[at] = { ...entry, id };
    return { status: 202, json: this.notifications[at] };
  }
}
