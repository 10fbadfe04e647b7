// A model Jellyfin 10.11 on 127.0.0.1: the HTTP routes a relay uses, answered from JellyfinModel (disk,
// database, refresh queue), LibraryMonitor (/Library/Media/Updated) and, when switched on, the Targeted Scans
// plugin. Time is the injected ManualClock's, moved through a ClockScheduler: nothing here sleeps.
// test/fakes/jellyfin.ts stays the recorder the target's own tests use; this one models what the server does.
// With `kind: 'emby'` the same model answers as Emby: X-Emby-Token (or api_key), /Library/SelectableMediaFolders
// (no RefreshStatus), no /Users/Me, and its websocket on /embywebsocket; LibraryChanged as on Jellyfin.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { ManualClock } from '../../src/clock.js';
import { closeServer, listenLocal, withBody } from '../support/net.js';
import { isInside } from '../../src/paths/folder.js';
import { ClockScheduler } from './clock-scheduler.js';
import { FakeLibraryChangedNotifier } from './library-changed.js';
import { FakeMediaBrowserSocket } from './mediabrowser-socket.js';
import { JellyfinModel } from './jellyfin-model.js';
import { LibraryMonitor } from './jellyfin-monitor.js';
import { scanPath } from './jellyfin-targeted-scan.js';

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
  msPerEntry?: number;
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
  requests: ModelRequest[];
  /** Requests to `path` (listing requests: '/Items'). */
  count(method: string, path: string): number;
  close(): Promise<void>;
}

export async function startJellyfinServer(opts: JellyfinServerOptions = {}): Promise<JellyfinServer> {
  const clock = opts.clock ?? opts.scheduler?.clock ?? new ManualClock();
  const scheduler = opts.scheduler ?? new ClockScheduler(clock);
  const model = new JellyfinModel({ scheduler, msPerEntry: opts.msPerEntry });
  const monitor = new LibraryMonitor(model, scheduler, opts.monitorDelayMs ?? 60_000);
  const token = opts.token ?? 'jellyfin-model-token-5678';
  const userToken = opts.userToken ?? 'jellyfin-model-user-token-9abc';
  const USER_ID = 'a1b2c3d4e5f60718293a4b5c6d7e8f90';
  const requests: ModelRequest[] = [];
  const installed = { plugin: !!opts.plugin, omitPaths: false };

  const emby = opts.kind === 'emby';
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
      // Emby's library list: Id, Guid, SubFolders with their Path; no refresh state.
      return [200, model.libraries.map((l, i) => ({ Name: l.name, Id: l.id, Guid: l.id, SubFolders: [{ Name: l.location.split('/').pop(), Id: String(100 + i), Path: l.location }] }))];
    }
    if (method === 'GET' && path === '/Library/VirtualFolders' && !emby) {
      // LibraryManager.GetVirtualFolders(true): Active while the library's folder validates, Queued while its item waits.
      const status = (id: string) => (model.running?.itemId === id ? 'Active' : model.isQueued(id) ? 'Queued' : 'Idle');
      return [200, model.libraries.map((l) => ({ Name: l.name, ItemId: l.id, Locations: [l.location], CollectionType: l.kind, RefreshStatus: status(l.id), ...(status(l.id) === 'Active' ? { RefreshProgress: 50 } : {}) }))];
    }
    if (method === 'GET' && path === '/Items') return [200, listItems(q)];
    const refresh = /^\/Items\/([^/]+)\/Refresh$/.exec(path);
    if (method === 'POST' && refresh) return [model.queueRefresh(refresh[1], `POST ${path}`) ? 204 : 404];
    if (method === 'POST' && path === '/Library/Media/Updated') {
      const updates = (body as { Updates?: { Path?: string }[] })?.Updates;
      if (!Array.isArray(updates)) return [400];
      for (const u of updates) if (u.Path) monitor.report(u.Path);
      return [204];
    }
    if (method === 'POST' && path === '/Library/ScanPath' && installed.plugin) {
      const a = scanPath(model, String((body as { Path?: unknown })?.Path ?? ''));
      return [a.http, a.body];
    }
    return [404];
  };

  // GetItems without a path filter: ParentId's children, Filters=IsFolder|IsNotFolder, paged; Path only when
  // Fields asks for it. An IsFolder parameter is ignored, as the server binds none.
  const listItems = (q: Record<string, string>) => {
    const parent = q.parentid ? model.items.get(q.parentid) : undefined;
    let all = !q.parentid ? [...model.items.values()] : q.recursive === 'true' && parent ? [...model.items.values()].filter((i) => i !== parent && isInside(i.Path, parent.Path)) : model.children(q.parentid);
    if (q.ids) all = all.filter((i) => q.ids.split(',').includes(i.Id));
    const filters = (q.filters ?? '').split(',').map((f) => f.trim().toLowerCase());
    if (filters.includes('isfolder')) all = all.filter((i) => i.IsFolder);
    if (filters.includes('isnotfolder')) all = all.filter((i) => !i.IsFolder);
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
    requests,
    count: (method, path) => requests.filter((r) => r.method === method && r.path === path).length,
    async close() {
      await socket.stop();
      await closeServer(server);
    },
  };
}
