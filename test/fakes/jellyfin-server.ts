// A model Jellyfin 10.11 on 127.0.0.1: the HTTP routes a relay uses, answered from JellyfinModel (disk,
// database, priority refresh queue), LibraryMonitor (/Library/Media/Updated, and the real-time monitor of a
// library that has it on) and, when switched on, the Targeted Scans plugin (its ScanPath and ScanPaths routes).
// Time is the injected ManualClock's, moved through a ClockScheduler: nothing here sleeps.
// test/fakes/jellyfin.ts stays the recorder the target's own tests use; this one models what the server does.
// With `kind: 'emby'` the same model answers as Emby: X-Emby-Token (or api_key), /Library/VirtualFolders/Query
// and /Library/SelectableMediaFolders, /Items?Path=, no /Users/Me, the Emby plugin's answers (always 200), and
// its websocket on /embywebsocket; LibraryChanged as on Jellyfin. Emby is closed source: where its behaviour is
// modelled on Jellyfin's inherited code (the queue, the monitor, RefreshStatus), that is an assumption.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { ManualClock } from '../../src/clock.js';
import { closeServer, listenLocal, withBody } from '../support/net.js';
import { isInside } from '../../src/paths/folder.js';
import { ClockScheduler } from './clock-scheduler.js';
import { FakeLibraryChangedNotifier } from './library-changed.js';
import { FakeMediaBrowserSocket } from './mediabrowser-socket.js';
import { JellyfinModel } from './jellyfin-model.js';
import { LibraryMonitor } from './jellyfin-monitor.js';
import { EMPTY_PATH_PROBLEM, scanPath, scanPathAnswer, scanPaths, scanPathsAnswer, type ScanPlugin } from './jellyfin-targeted-scan.js';
import type { RefreshMode } from './jellyfin-model.js';

export interface ModelRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  body: unknown;
  status: number;
}

export interface JellyfinServerOptions {
  /** Answer as Jellyfin (default) or as Emby. */
  kind?: 'jellyfin' | 'emby';
  clock?: ManualClock;
  scheduler?: ClockScheduler;
  /** The API key (no user). */
  token?: string;
  /** A user's access token (POST /Users/AuthenticateByName gives one): its socket hears LibraryChanged. */
  userToken?: string;
  /** LibraryUpdateDuration: LibraryChanged goes out this long after the last change (30 s by default). */
  libraryUpdateMs?: number;
  /** The Targeted Scans plugin is installed (POST /Library/ScanPath answers). */
  plugin?: boolean;
  /** Which plugin answers those routes: Targeted Scans (default) or Omniscan's (jellyfin-targeted-scan.ts). */
  scanPlugin?: ScanPlugin;
  msPerEntry?: number;
  /** A new video's first metadata refresh (jellyfin-model.ts `msPerNewItem`). */
  msPerNewItem?: number;
  /** LibraryMonitorDelay: 60 s by default. */
  monitorDelayMs?: number;
  version?: string;
}

export interface JellyfinServer {
  url: string;
  token: string;
  userToken: string;
  clock: ManualClock;
  /** The websocket on the same port: its sessions, what clients sent, and LibraryChanged by hand. */
  socket: FakeMediaBrowserSocket;
  notifier: FakeLibraryChangedNotifier;
  scheduler: ClockScheduler;
  model: JellyfinModel;
  monitor: LibraryMonitor;
  /** The plugin is installed; switch it off to model its removal (ScanPath then answers 404). */
  plugin: boolean;
  /** Listings leave Path out whatever Fields asks (a proxy or server that gives nothing usable). */
  omitPaths: boolean;
  /** Emby's /Items ignores its Path filter (a server that does not apply it). */
  omitPathFilter: boolean;
  requests: ModelRequest[];
  /** Requests to `path` (listing requests: '/Items'). */
  count(method: string, path: string): number;
  close(): Promise<void>;
}

export async function startJellyfinServer(opts: JellyfinServerOptions = {}): Promise<JellyfinServer> {
  const clock = opts.clock ?? opts.scheduler?.clock ?? new ManualClock();
  const scheduler = opts.scheduler ?? new ClockScheduler(clock);
  const model = new JellyfinModel({ scheduler, msPerEntry: opts.msPerEntry, msPerNewItem: opts.msPerNewItem });
  const scanPlugin = opts.scanPlugin ?? 'targeted-scans';
  const monitor = new LibraryMonitor(model, scheduler, opts.monitorDelayMs ?? 60_000);
  const token = opts.token ?? 'jellyfin-model-token-5678';
  const userToken = opts.userToken ?? 'jellyfin-model-user-token-9abc';
  const USER_ID = 'a1b2c3d4e5f60718293a4b5c6d7e8f90';
  const requests: ModelRequest[] = [];
  const installed = { plugin: !!opts.plugin, omitPaths: false, omitPathFilter: false };

  const emby = opts.kind === 'emby';
  const kindOf = emby ? 'emby' : 'jellyfin';
  // The server's own FileSystemWatcher for libraries with real-time monitoring (jellyfin-monitor.ts `watched`).
  model.onDiskChange = (p) => monitor.watched(p);
  /** The token a request carries: Jellyfin's Authorization header; Emby's X-Emby-Token or api_key. */
  const tokenOf = (req: IncomingMessage): string | undefined => {
    if (emby) return String(req.headers['x-emby-token'] ?? '') || (new URL(req.url ?? '/', 'http://x').searchParams.get('api_key') ?? undefined);
    const m = /^MediaBrowser\s+(.*)$/i.exec(String(req.headers.authorization ?? ''));
    return m ? /(?:^|,)\s*Token="([^"]*)"/.exec(m[1])?.[1] : undefined;
  };
  const authorised = (req: IncomingMessage): boolean => [token, userToken].includes(tokenOf(req) ?? '');
  const isUser = (req: IncomingMessage) => tokenOf(req) === userToken;

  // Query names bind case-insensitively in ASP.NET Core, so the model reads them so too.
  const lower = (q: URLSearchParams): Record<string, string> => Object.fromEntries([...q].map(([k, v]) => [k.toLowerCase(), v]));

  const answer = (method: string, path: string, q: Record<string, string>, body: unknown, req: IncomingMessage): [number, unknown?] => {
    if (method === 'GET' && path === '/System/Info/Public') {
      return [200, { ServerName: 'model', Version: opts.version ?? '10.11.11', ProductName: 'Jellyfin Server', Id: 'f0e1d2c3b4a5968778695a4b3c2d1e0f', StartupWizardCompleted: true }];
    }
    if (!authorised(req)) return [401];
    // UserController.GetCurrentUser: the token's user, 400 for a token no user owns (an API key). Emby's REST
    // reference (UserService, dev.emby.media) has no /Users/Me: not found there.
    if (method === 'GET' && path === '/Users/Me' && !emby) return isUser(req) ? [200, { Name: 'relay', Id: USER_ID }] : [400];
    if (method === 'GET' && path === '/Library/SelectableMediaFolders' && emby) {
      // Emby's older library list: Id, Guid, SubFolders with their Path; no refresh state.
      return [200, model.libraries.map((l, i) => ({ Name: l.name, Id: l.id, Guid: l.id, SubFolders: l.locations.map((loc, j) => ({ Name: loc.split('/').pop(), Id: String(100 + i * 10 + j), Path: loc })) }))];
    }
    // LibraryManager.GetVirtualFolders(true) (jellyfin@v10.11.11 LibraryManager.cs:1279-1335): each library with its
    // LibraryOptions and RefreshStatus. Emby 4.7+ answers the same VirtualFolderInfo in a QueryResult at
    // /Library/VirtualFolders/Query (Emby.SDK@58acc58 openapi_v3.json L49976, VirtualFolderInfo L89489-89530).
    const virtualFolders = () =>
      model.libraries.map((l) => {
        const status = model.refreshStatus(l);
        return { Name: l.name, ItemId: l.id, ...(emby ? { Id: l.id, Guid: l.id } : {}), Locations: l.locations, CollectionType: l.kind, LibraryOptions: { EnableRealtimeMonitor: l.realtimeMonitor }, RefreshStatus: status, ...(status === 'Active' ? { RefreshProgress: 50 } : {}) };
      });
    if (method === 'GET' && path === '/Library/VirtualFolders' && !emby) return [200, virtualFolders()];
    if (method === 'GET' && path === '/Library/VirtualFolders/Query' && emby) return [200, { Items: virtualFolders(), TotalRecordCount: model.libraries.length }];
    if (method === 'GET' && path === '/Items') return [200, listItems(q)];
    const refresh = /^\/Items\/([^/]+)\/Refresh$/.exec(path);
    if (method === 'POST' && refresh) {
      // ItemRefreshController.RefreshItem (L57-91): the modes default to None, the refresh is queued at High.
      const mode = (q.metadatarefreshmode ?? 'None') as RefreshMode;
      return [model.queueRefresh(refresh[1], `POST ${path}`, { priority: 'High', options: { mode, replaceAll: q.replaceallmetadata === 'true' } }) ? (emby ? 200 : 204) : 404];
    }
    if (method === 'POST' && path === '/Library/Media/Updated') {
      const updates = (body as { Updates?: { Path?: string }[] })?.Updates;
      if (!Array.isArray(updates)) return [400];
      for (const u of updates) if (u.Path) monitor.report(u.Path);
      return [204];
    }
    if (method === 'POST' && path === '/Library/ScanPath' && installed.plugin) {
      const asked = String((body as { Path?: unknown })?.Path ?? '');
      if (!asked.trim()) return emby ? [200, { Status: 'BadRequest', Message: 'Path is required' }] : scanPlugin === 'omniscan' ? [400, 'Path must not be empty.'] : asked ? [400, { Status: 'BadRequest', Message: 'Path is required' }] : [400, EMPTY_PATH_PROBLEM];
      return scanPathAnswer(kindOf, scanPath(model, kindOf, asked, scanPlugin), asked, scanPlugin);
    }
    if (method === 'POST' && path === '/Library/ScanPaths' && installed.plugin) {
      const asked = (body as { Paths?: unknown })?.Paths;
      if (!Array.isArray(asked) || asked.length === 0) return [emby ? 200 : 400, { Results: [] }];
      return [200, scanPathsAnswer(scanPaths(model, kindOf, asked.map(String), scanPlugin), scanPlugin)];
    }
    return [404];
  };

  // GetItems without a path filter: ParentId's children, Filters=IsFolder|IsNotFolder, paged; Path only when
  // Fields asks for it. An IsFolder parameter is ignored, as the server binds none.
  const listItems = (q: Record<string, string>) => {
    const parent = q.parentid ? model.items.get(q.parentid) : undefined;
    // Below a CollectionFolder is below its physical folders (CollectionFolder.GetActualChildren).
    const under = parent && (model.libraries.find((l) => l.id === parent.Id)?.locations ?? [parent.Path]);
    let all = !q.parentid
      ? [...model.items.values()]
      : q.recursive === 'true' && under
        ? [...model.items.values()].filter((i) => under.some((u) => i.Path !== u && isInside(i.Path, u)))
        : model.children(q.parentid);
    // A Series listed without recursion answers its Seasons only (Series.GetItemsInternal → SetSeasonQueryOptions,
    // Series.cs:210-223, L264-266): episodes directly in a series folder (no season folders) are not among them.
    if (parent?.Type === 'Series' && q.recursive !== 'true') all = all.filter((i) => i.Type === 'Season');
    if (q.ids) all = all.filter((i) => q.ids.split(',').includes(i.Id));
    // Emby's GetItems has a Path filter ("Optional filter by Path.", openapi_v3.json L8625-8632); Jellyfin binds none.
    if (emby && q.path !== undefined && !installed.omitPathFilter) all = [...model.items.values()].filter((i) => i.Path === q.path);
    const filters = (q.filters ?? '').split(',').map((f) => f.trim().toLowerCase());
    if (filters.includes('isfolder')) all = all.filter((i) => i.IsFolder);
    if (filters.includes('isnotfolder')) all = all.filter((i) => !i.IsFolder);
    // IncludeItemTypes: BaseItemKind names, comma separated (ItemsController.GetItems includeItemTypes).
    if (q.includeitemtypes) all = all.filter((i) => q.includeitemtypes.split(',').map((t) => t.trim()).includes(i.Type));
    // SortBy=DateCreated: ids are handed out in creation order. Otherwise by name, the server's default.
    if ((q.sortby ?? '').toLowerCase() === 'datecreated') all.sort((a, b) => (q.sortorder === 'Descending' ? b.Id.localeCompare(a.Id) : a.Id.localeCompare(b.Id)));
    else all.sort((a, b) => a.Name.localeCompare(b.Name));
    const start = Number(q.startindex ?? 0);
    const limit = q.limit === undefined ? all.length : Number(q.limit);
    const withPath = !installed.omitPaths && (q.fields ?? '').split(',').map((f) => f.trim().toLowerCase()).includes('path');
    return {
      Items: all.slice(start, start + limit).map((i) => ({ Id: i.Id, Name: i.Name, Type: i.Type, IsFolder: i.IsFolder, ParentId: i.ParentId, ...(withPath ? { Path: i.Path } : {}) })),
      TotalRecordCount: all.length,
      StartIndex: start,
    };
  };

  const send = (res: ServerResponse, status: number, body?: unknown): void => {
    if (body === undefined) res.writeHead(status).end();
    else res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
  };

  const server: Server = createServer(
    withBody((req, res, url, body) => {
      const method = req.method ?? '';
      const [status, out] = answer(method, url.pathname, lower(url.searchParams), body, req);
      requests.push({ method, path: url.pathname, query: Object.fromEntries(url.searchParams), body, status });
      send(res, status, out);
    }),
  );
  const socket = new FakeMediaBrowserSocket(emby ? 'emby' : 'jellyfin', { [token]: null, [userToken]: USER_ID }).attach(server);
  const notifier = new FakeLibraryChangedNotifier(scheduler, socket, () => model.libraries.map((l) => l.id), opts.libraryUpdateMs);
  model.changes = {
    added: (i) => notifier.itemAdded(i.Id, i.ParentId),
    updated: (i) => notifier.itemUpdated(i.Id),
    removed: (i) => notifier.itemRemoved(i.Id, i.ParentId),
  };
  const url = await listenLocal(server);

  return {
    url,
    token,
    userToken,
    socket,
    notifier,
    clock,
    scheduler,
    model,
    monitor,
    get plugin() {
      return installed.plugin;
    },
    set plugin(on: boolean) {
      installed.plugin = on;
    },
    get omitPaths() {
      return installed.omitPaths;
    },
    set omitPaths(on: boolean) {
      installed.omitPaths = on;
    },
    get omitPathFilter() {
      return installed.omitPathFilter;
    },
    set omitPathFilter(on: boolean) {
      installed.omitPathFilter = on;
    },
    requests,
    count: (method, path) => requests.filter((r) => r.method === method && r.path === path).length,
    async close() {
      await socket.stop();
      await closeServer(server);
    },
  };
}
