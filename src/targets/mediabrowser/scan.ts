// How a Jellyfin or Emby target gets one folder into the library, by SCAN_METHOD (docs/targets.md says what the
// server does with each call, with its code cited). The processor hands the target one folder at a time; what
// must be shared across folders lives here:
//  - the Targeted Scans plugin (mediabrowser/plugin.ts), asked for once per start (auto), forgotten on a 404, its
//    paths batched; what it is sent is the plugin plan's (mediabrowser/plugin-plan.ts): new series and movies and
//    paths gone from disk, never a path that is an item, since it would replace that item's metadata;
//  - the item locator's cache of the levels it read (mediabrowser/locate.ts), and which files are items
//    (mediabrowser/file-items.ts);
//  - refreshes of a library's own item, held per library (mediabrowser/root-hold.ts);
//  - refreshes of the same item in flight at once are sent once.
// No request here asks for ReplaceAllMetadata or a FullRefresh: every refresh is the web client's "Scan for new and
// updated files" (Default, nothing replaced; refreshQuery).
import { ACKNOWLEDGEMENT, MEDIABROWSER_ITEMS_PAGE } from '../../http/answer-caps.js';
import { ApiRefusal, type ApiCaller } from '../../http/api-call.js';
import type { Clock } from '../../clock.js';
import type { Logger } from '../../log/logger.js';
import type { Library, ScanContext } from '../../scan.js';
import { EmbyPaths } from './emby-paths.js';
import { FileItems } from './file-items.js';
import { childrenQuery, ItemLocator, type FolderItem, type LibraryRoot, type Located } from './locate.js';
import { TargetedScans } from './plugin.js';
import { pluginPlan, type PluginPlan } from './plugin-plan.js';
import { readRefreshStates } from './confirm.js';
import { RefreshWatch, WATCH_LIMIT_MS } from './refresh-watch.js';
import { RootHold } from './root-hold.js';
import { locationFolders } from './location-folder.js';
import { explainFolder, libraryWalkNote, planScans, refreshQuery, type DueFolder, type ScanMethod, type ServerKind } from './scan-plan.js';
import { FOLDER_DELETES, type SentOutcome } from './sent.js';

export interface ScanFlowOptions {
  kind: ServerKind;
  name: string;
  who: string;
  method: ScanMethod;
  api: ApiCaller;
  clock: Clock;
  log: Logger;
  rootHoldMs?: number;
  /** Items per listing request. */
  pageSize?: number;
  /** The library list that carries RefreshStatus (Jellyfin's /Library/VirtualFolders). */
  librariesPath: string;
}

/** How often a held library refresh looks whether the targeted refreshes ahead of it have run. */
export const ROOT_POLL_MS = 1_000;

export class MediaBrowserScans {
  readonly locator: ItemLocator;
  readonly plugin: TargetedScans;
  readonly files: FileItems;
  private readonly paths?: EmbyPaths;
  /** Our targeted refreshes not yet seen to run: a library refresh waits for them, the follower too. */
  readonly watch: RefreshWatch;
  private readonly roots: RootHold;
  private readonly refreshing = new Map<string, Promise<void>>();
  /** Each held library's locations: a library with several refreshes only those holding its burst (Jellyfin). */
  private readonly locations = new Map<string, string[]>();
  /** When a change under each library last went to the library monitor (media-updated). */
  private readonly monitorChanges = new Map<string, number>();

  constructor(private readonly opts: ScanFlowOptions) {
    this.locator = new ItemLocator({
      clock: opts.clock,
      pageSize: opts.pageSize,
      list: async (parentId, start, limit) => {
        const page = await opts.api.json<{ Items?: unknown; TotalRecordCount?: unknown }>('GET', '/Items', { cap: MEDIABROWSER_ITEMS_PAGE, query: childrenQuery(parentId, start, limit) });
        return {
          items: Array.isArray(page?.Items) ? (page.Items as { Id?: unknown; Path?: unknown; Type?: unknown }[]) : [],
          total: typeof page?.TotalRecordCount === 'number' ? page.TotalRecordCount : undefined,
        };
      },
    });
    this.plugin = new TargetedScans({ api: opts.api, who: opts.who, name: opts.name, log: opts.log });
    // Emby finds an item by its path in one request (emby-paths.ts); Jellyfin walks down.
    this.paths = opts.kind === 'emby' ? new EmbyPaths(opts.api) : undefined;
    this.files = new FileItems({ api: opts.api, clock: opts.clock, byPath: this.paths });
    this.watch = new RefreshWatch({ api: opts.api, clock: opts.clock, states: () => readRefreshStates(opts.api, opts.librariesPath) });
    this.roots = new RootHold({ clock: opts.clock, holdMs: opts.rootHoldMs, ready: () => this.clearWay(), send: (item, library, folders) => this.sendRoot(item, library, folders) });
  }

  /** `path`: a folder some of `libraries` hold (the caller has checked). Failures reject: the caller maps them. */
  async scan(path: string, context: ScanContext, libraries: Library[], holders: Library[]): Promise<SentOutcome> {
    const { method, api } = this.opts;
    const sections = { sections: holders.map((l) => l.id) };
    if (method === 'media-updated') {
      await api.call('POST', '/Library/Media/Updated', { cap: ACKNOWLEDGEMENT, body: { Updates: [{ Path: path, UpdateType: context.deleted ? 'Deleted' : 'Modified' }] } });
      for (const l of holders) this.monitorChanges.set(l.id, this.opts.clock.now());
      return { status: 'scanned', detail: holders.map((l) => l.title).join(', '), ...sections, sent: { via: 'monitor' } };
    }
    const due = await this.locate(path, context, libraries);
    if (method === 'auto' && (await this.plugin.installed())) {
      const plan = await pluginPlan(path, context, due.located, due.gone, this.files);
      const done = plan && (await this.throughPlugin(path, plan, due.located!));
      if (done) return { ...done, ...sections };
    }
    return this.throughItems(path, context, due, sections.sections);
  }

  /** When a change under any of `libraries` last went to the library monitor; undefined when none did. */
  lastMonitorChange(libraries: string[]): number | undefined {
    const times = libraries.map((id) => this.monitorChanges.get(id)).filter((t): t is number => t !== undefined);
    return times.length ? Math.max(...times) : undefined;
  }

  /** For the path doctor: which item the folder's scan would refresh (asks the server for the levels it lacks). */
  async explain(path: string, libraries: Library[], deleted: boolean): Promise<string> {
    const { method, kind } = this.opts;
    if (method === 'media-updated') return 'POST /Library/Media/Updated: the server\'s library monitor refreshes it after its delay (60 s by default, restarted by every change nearby)';
    const due = await this.locate(path, { deleted, event: 'explain', source: 'doctor' }, libraries);
    const text = explainFolder(kind, due);
    if (method === 'auto' && (await this.plugin.installed())) {
      return `the Targeted Scans plugin (POST /Library/ScanPath, ScanPaths) is sent new series and movies (a file per new folder) and the paths gone from disk, never a path that is already an item or below a plain folder; otherwise ${text}`;
    }
    return text;
  }

  /** The plugin's share: undefined when the item refresh must take the folder (the plugin could not place a path). */
  private async throughPlugin(path: string, plan: PluginPlan, located: Located): Promise<SentOutcome | undefined> {
    const answers = plan.asks.length ? await this.plugin.ask(plan.asks) : [];
    if (answers.some((a) => a.meaning === 'absent')) {
      this.plugin.forget();
      return undefined;
    }
    const failed = answers.find((a) => a.meaning === 'retry');
    if (failed) throw new ApiRefusal(`${this.opts.who} answered ${failed.said} to the Targeted Scans plugin for '${path}'`, failed.status, failed.retryAfter);
    // What the plugin made is known at once: a file it created is an item, a path it removed is not.
    plan.asks.forEach((ask, i) => answers[i].meaning === 'done' && this.files.learn(ask.path, located.item, ask.gone ? undefined : (answers[i].itemId ?? '')));
    // A file that is already an item (an upgrade that kept its name) is read again as an item: Default, a changed
    // file is probed again (ProbeProvider.HasChanged), nothing replaced.
    for (const item of plan.refresh) await this.refreshOnce(item);
    const unable = plan.asks.map((ask, i) => `'${ask.path}' (${answers[i].said}${answers[i].message ? `: ${answers[i].message}` : ''})`).filter((_, i) => answers[i].meaning === 'fallback');
    if (unable.length) {
      this.opts.log.warn({ target: this.opts.name, folder: path }, `the Targeted Scans plugin could not make an item of ${unable.join(', ')}: refreshing the folder's item instead`);
      return undefined;
    }
    const said = [...new Set(answers.map((a) => a.said))].map((s) => `${s} ${answers.filter((a) => a.said === s).length}`);
    const parts = [said.length ? `Targeted Scans plugin: ${said.join(', ')}` : '', plan.refresh.length ? `refreshed ${plan.refresh.map((i) => `'${i.path}'`).join(', ')}` : ''];
    const first = plan.refresh[0];
    return { status: 'scanned', detail: parts.filter(Boolean).join('; '), sent: said.length || !first ? { via: 'plugin' } : { via: 'item', item: { id: first.id, path: first.path } } };
  }

  /** The item refresh's way: the deepest folder item, a library's own item held for its burst. */
  private async throughItems(path: string, context: ScanContext, due: DueFolder, sections: string[]): Promise<SentOutcome> {
    const plan = planScans({ kind: this.opts.kind, method: this.opts.method === 'library' ? 'library' : 'item', folders: [due] });
    const call = plan.calls[0];
    if (!call) return { status: 'unmatched', detail: `'${path}' is in no library of ${this.opts.who}` };
    if (call.kind === 'refresh-library') {
      // Files that are all items already (an upgrade that kept its name) need no walk: each is read again.
      const items = await this.knownFiles(context, due);
      if (items) {
        for (const item of items) await this.refreshOnce(item);
        return { status: 'scanned', detail: `refreshed ${items.map((i) => `'${i.path}'`).join(', ')}`, sections, sent: { via: 'item', item: { id: items[0].id, path: items[0].path } } };
      }
      this.locations.set(call.item!.id, due.located!.library.locations);
      return this.roots.hold(call.item!, due.located!.library.name, path);
    }
    await this.refreshOnce(call.item!);
    // Watched until it is seen to have run: the files the request named below the item, the deleted ones gone.
    this.watch.sent(call.item!, context.files?.live ?? (context.file ? [context.file] : []), context.files?.gone ?? []);
    return { status: 'scanned', detail: `refreshed ${call.item!.type} '${call.item!.path}'`, sections, sent: { via: 'item', item: { id: call.item!.id, path: call.item!.path } } };
  }

  /** The items of a request's files when every one is an item and nothing was deleted; else undefined. */
  private async knownFiles(context: ScanContext, due: DueFolder): Promise<FolderItem[] | undefined> {
    const live = context.files?.live ?? [];
    if (!due.located || this.opts.method === 'library' || due.gone || live.length === 0 || context.files?.gone.length || context.files?.more) return undefined;
    const known = await this.files.itemsOf(live, due.located.item);
    return known && known.size === live.length ? [...known.values()] : undefined;
  }

  private async locate(path: string, context: ScanContext, libraries: Library[]): Promise<DueFolder> {
    const roots: LibraryRoot[] = libraries.map((l) => ({ id: l.id, name: l.title, locations: l.locations }));
    // A folder that is itself gone (a deleted series or movie) refreshes its parent; a deleted file leaves its
    // folder. The queue keeps no file for a deleted request, so the arr's event says which it was.
    const due = { path, deleted: context.deleted, gone: context.deleted && FOLDER_DELETES.test(context.event) };
    const located = this.opts.method === 'library' ? ItemLocator.rootOf(roots, path) : await this.locateFolder(roots, path, due.gone);
    return { ...due, located };
  }

  /** The deepest folder item holding `folder`: by its path on Emby, else walked down from the library's item. */
  async locateFolder(libraries: LibraryRoot[], folder: string, gone = false): Promise<Located | undefined> {
    if (this.paths?.usable) {
      const found = await this.paths.locate(libraries, folder, gone);
      if (found) return found;
    }
    return this.locator.locate(libraries, folder);
  }

  /** One refresh of an item however many folders ask for it at once (Default: what the web client's scan sends). */
  private async refreshOnce(item: FolderItem): Promise<void> {
    const path = `/Items/${encodeURIComponent(item.id)}/Refresh`;
    const running = this.refreshing.get(path);
    if (running) return running;
    const sending = this.opts.api
      .call('POST', path, { cap: ACKNOWLEDGEMENT, query: refreshQuery(this.opts.kind) })
      .then((r) => void r.body?.cancel())
      .catch((err) => {
        // The item went meanwhile (a series renamed or deleted): what the locator learnt may be stale, read again.
        if (err instanceof ApiRefusal && err.status === 404) this.locator.forget();
        throw err;
      })
      .finally(() => this.refreshing.delete(path));
    this.refreshing.set(path, sending);
    return sending;
  }

  /**
   * A library refresh waits until the targeted refreshes sent before it have run: queued among them, it would run
   * next (the newest equal entry of the server's PriorityQueue) and hold them up for a whole walk.
   */
  private async clearWay(): Promise<void> {
    const cleared = await this.watch.clear(ROOT_POLL_MS, WATCH_LIMIT_MS);
    if (!cleared) this.opts.log.warn({ target: this.opts.name, waiting: this.watch.pending() }, `sending a library refresh with ${this.watch.pending()} targeted refresh(es) of ours not seen to run after ${WATCH_LIMIT_MS / 60_000} min`);
  }

  /** A held library refresh goes: once for every folder of its burst. */
  private async sendRoot(item: FolderItem, library: string, folders: string[]): Promise<SentOutcome> {
    try {
      // Of a library with several locations, only the ones holding the burst (Jellyfin's ids, Emby's Path filter:
      // location-folder.ts); an Emby that does not filter by path gets the library refresh.
      const byPath = this.paths?.usable ? (path: string) => this.paths!.itemAt(path) : undefined;
      const parts = this.opts.method !== 'library' && (this.opts.kind === 'jellyfin' || byPath) ? await locationFolders(this.opts.api, this.locations.get(item.id) ?? [], folders, byPath) : undefined;
      this.opts.log.info({ target: this.opts.name, library, folders }, libraryWalkNote(this.opts.kind, library, folders, parts?.map((p) => p.path)));
      for (const part of parts ?? [item]) await this.refreshOnce(part);
      const what = parts ? `location(s) ${parts.map((p) => `'${p.path}'`).join(', ')}` : 'as a whole';
      return { status: 'scanned', detail: `refreshed library '${library}' ${what}, once for ${folders.length} folder(s)`, sections: [item.id], sent: { via: 'library', item: { id: item.id, path: item.path } } };
    } catch (err) {
      return this.opts.api.retry(err);
    }
  }
}
