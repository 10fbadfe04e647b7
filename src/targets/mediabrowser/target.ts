// The MediaBrowser API that Jellyfin and Emby share: tell the server a folder changed, after checking that one of
// its libraries holds the folder, and refresh the item holding a file. The two differ only in auth header and
// library listing (jellyfin.ts, emby.ts).
import { MEDIABROWSER_LIBRARIES, SERVER_STATUS } from '../../http/answer-caps.js';
import { apiCaller, entryUrlKey } from '../../http/api-call.js';
import { systemClock, type Clock } from '../../clock.js';
import { silentLogger, type Logger } from '../../log/logger.js';
import { trimTrailingSeparator } from '../../paths/folder.js';
import type { ItemLocation, Library, ScanContext, ScanOutcome } from '../../scan.js';
import { needsToken, needsUrl, refreshingItems, targetKind, type Capabilities } from '../kind.js';
import { holders, knownLocations, LibraryList } from '../library-list.js';
import { locateMediaBrowserItems, refreshMediaBrowserItem } from './items.js';
import { libraryFiles } from './library-files.js';
import { pluginNote } from './plugin.js';
import { MediaBrowserScans } from './scan.js';
import { FOLDER_DELETES } from './sent.js';
import type { MediaBrowserTicket } from './verdict.js';
import { defaultScanMethod, SCAN_METHODS, type ScanMethod } from './scan-plan.js';
import { choice, optional } from '../../value-rules.js';
import { realtimeMonitorNote, type MediaBrowserLibrary } from './realtime-monitor.js';
import { mediaBrowserFollower } from './follower.js';

export interface MediaBrowserOptions {
  name: string;
  /** Base URL, e.g. http://jellyfin:8096 (Emby behind /emby: include it). */
  url: string;
  /** The config key holding `url`, named in messages (a TARGETS entry's URL by default). */
  urlKey?: string;
  token: string;
  /** Per request. */
  timeoutMs?: number;
  /** Items per page while looking for a file's item. */
  pageSize?: number;
  /** SCAN_METHOD; defaultScanMethod(kind) when unset. */
  scanMethod?: ScanMethod;
  /** How long a refresh of a library's own item waits for the rest of a burst (ROOT_HOLD_MS by default). */
  rootHoldMs?: number;
  clock?: Clock;
  logger?: Logger;
  /** Defaults to httpFetch (src/http/fetch.ts). */
  fetch?: typeof fetch;
  /**
   * Follow each scan of a delivered file to what the server made of it (mediabrowser/follower.ts). Off when left
   * out, so a target built by hand ends a delivery when the server took it; the table's kinds turn it on.
   */
  follow?: boolean;
}

/** What makes a server Jellyfin or Emby. */
export interface MediaBrowserServer {
  kind: 'jellyfin' | 'emby';
  authHeaders(token: string): Record<string, string>;
  /** GET path that lists libraries and their folders. */
  librariesPath: string;
  /** The libraries, with the ids /Items takes as ParentId; anything malformed is skipped, not fatal. */
  parseLibraries(body: unknown): MediaBrowserLibrary[];
}

export function mediaBrowserTarget(server: MediaBrowserServer, opts: MediaBrowserOptions): Capabilities {
  const clock = opts.clock ?? systemClock;
  const log = opts.logger ?? silentLogger;
  const who = `${server.kind} '${opts.name}'`;
  const api = apiCaller({
    who,
    url: opts.url,
    urlKey: opts.urlKey ?? entryUrlKey(opts.name),
    headers: server.authHeaders(opts.token),
    secrets: [opts.token],
    timeoutMs: opts.timeoutMs,
    fetch: opts.fetch,
    clock,
    logger: log,
    authHint: (path, status) =>
      `check TOKEN${server.kind === 'jellyfin' && path === server.librariesPath && status === 403 ? ' (listing libraries needs an admin API key)' : ''}`,
    // Emby serves its API below /emby; Jellyfin at the root, or below the Base URL set in Networking.
    notFoundHint: server.kind === 'emby' ? 'check URL; Emby may need the /emby prefix' : "check URL: Jellyfin's address, with its Base URL when one is set (Dashboard → Networking)",
  });
  const list = new LibraryList<MediaBrowserLibrary>(async () => {
    const libraries = server.parseLibraries(await api.json('GET', server.librariesPath, { cap: MEDIABROWSER_LIBRARIES }));
    log.debug({ target: opts.name, libraries }, 'library folders loaded');
    return libraries;
  }, clock);
  const scans = new MediaBrowserScans({
    kind: server.kind,
    name: opts.name,
    who,
    method: opts.scanMethod ?? defaultScanMethod(server.kind),
    api,
    clock,
    log,
    rootHoldMs: opts.rootHoldMs,
    librariesPath: server.librariesPath,
  });
  const auto = (opts.scanMethod ?? defaultScanMethod(server.kind)) === 'auto';
  const follower = opts.follow ? mediaBrowserFollower({ kind: server.kind, librariesPath: server.librariesPath, name: opts.name, url: opts.url, token: opts.token }, { api, clock, log, scans, list }) : undefined;
  const locate = async (file: string): Promise<ItemLocation> => {
    try {
      return await locateMediaBrowserItems(api, who, holders(await list.get({ holding: file }), file), file, opts.pageSize);
    } catch (err) {
      return api.itemRetry(err);
    }
  };

  return {
    kind: server.kind,
    // A library's own folder is its CollectionFolder item: its refresh (or the monitor's, or the plugin's) walks it all.
    wholeLibraryAtRoot: true,
    ...(follower ? { follower } : {}),
    libraries: (ask) => list.get(ask),
    files: (library) => libraryFiles(api, library),

    async scan(folder: string, context: ScanContext): Promise<ScanOutcome> {
      const path = trimTrailingSeparator(folder);
      try {
        const found = await list.holding(path);
        if (found.holders.length === 0) {
          return { status: 'unmatched', detail: `'${path}' is in no library of ${who} (known locations: ${knownLocations(found.all)})` };
        }
        // A deleted folder (the queue keeps no file for a delete) is followed by the item the server has at it now.
        const gone = follower && context.deleted && FOLDER_DELETES.test(context.event) ? await follower.itemsAt(path) : undefined;
        const { sent, ...outcome } = await scans.scan(path, context, found.all, found.holders);
        // A delivered file is followed to what the server made of it; so is a deleted folder the server had an item of.
        if (!follower || outcome.status !== 'scanned' || !sent) return outcome;
        const libraries = found.holders.map((l) => l.id);
        if (gone?.length) return { ...outcome, follow: { file: path, folder: path, ...sent, libraries, removed: { ids: gone } } satisfies MediaBrowserTicket };
        // A file the request named that is there (an upgrade's new file beside the deleted one it replaced).
        if (!context.file) return outcome;
        return { ...outcome, follow: { file: context.file, folder: path, ...sent, libraries } satisfies MediaBrowserTicket };
      } catch (err) {
        return api.retry(err);
      }
    },

    async explainScan(folder: string) {
      const path = trimTrailingSeparator(folder);
      const found = await list.holding(path);
      if (found.holders.length === 0) return undefined;
      const scan = await scans.explain(path, found.all, false);
      const notes = [realtimeMonitorNote(server.kind, found.holders), auto ? pluginNote(server.kind, scans.plugin.known()) : undefined].filter(Boolean);
      return `${scan}${notes.map((n) => `. ${n}`).join('')}`;
    },

    // From the list as last read (the probe reads it): never a request of its own.
    serverNotes: () => [realtimeMonitorNote(server.kind, list.known() ?? []), auto ? pluginNote(server.kind, scans.plugin.known()) : undefined].filter((n): n is string => n !== undefined),

    locate,
    refreshItem: refreshingItems(locate, (id) => refreshMediaBrowserItem(api, id), (err) => api.itemRetry(err)),

    async available() {
      // The public info says the server is there; the library list (with the token) that the token works.
      const there = await api.answers('GET', '/System/Info/Public', { cap: SERVER_STATUS, auth: false });
      if (!there.ok) return there;
      try {
        await list.get({ fresh: true });
        return { ok: true };
      } catch (err) {
        return { ok: false, error: api.scrub((err as Error).message) };
      }
    },
  };
}

/** The Jellyfin or Emby kind of the table: both read the same keys. */
export function mediaBrowserKind(server: MediaBrowserServer) {
  return targetKind({
    keys: () => ({
      /** How a folder reaches the library (docs/targets.md); unset: auto on Jellyfin, media-updated on Emby. */
      SCAN_METHOD: optional(choice(SCAN_METHODS)),
    }),
    requires: { URL: needsUrl(server.kind), TOKEN: needsToken(server.kind) },
    build: (entry, ctx) =>
      mediaBrowserTarget(server, { name: entry.NAME, url: entry.URL ?? '', urlKey: ctx.urlKey, token: entry.TOKEN ?? '', scanMethod: entry.SCAN_METHOD, clock: ctx.clock, logger: ctx.logger, fetch: ctx.fetch, follow: true }),
  });
}

/** Strings from a JSON value, skipping anything malformed rather than failing the whole list. */
export function stringsOf(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string' && v.length > 0) : [];
}
