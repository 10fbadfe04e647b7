// How a Jellyfin or Emby target gets one folder into the library, by SCAN_METHOD (docs/targets.md says what the
// server does with each call, with its code cited). The processor hands the target one folder at a time; what
// must be shared across folders lives here:
//  - the Targeted Scans plugin is asked for once per start (auto), and forgotten on a 404;
//  - the item locator's cache of the levels it read (mediabrowser-locate.ts), so a folder of a known series costs
//    no listing request;
//  - refreshes of a library's own item (a new series; any movie without the plugin) are held a few seconds per
//    library, so a burst of such folders costs ONE library walk: each folder's scan answers when that one
//    refresh is sent (or failed), so a failure is retried by the queue as usual;
//  - refreshes of the same item in flight at once are sent once.
import { ACKNOWLEDGEMENT, MEDIABROWSER_ITEMS_PAGE } from '../answer-caps.js';
import { ApiRefusal, retryAfterOf, type ApiCaller } from '../api-call.js';
import type { Clock } from '../clock.js';
import type { Logger } from '../log.js';
import type { Library, ScanContext, ScanOutcome } from '../scan.js';
import type { MediaBrowserTicket } from './mediabrowser-verdict.js';
import { childrenQuery, ItemLocator, type LibraryRoot } from './mediabrowser-locate.js';
import { explainFolder, libraryWalkNote, planScans, pluginAnswer, type DueFolder, type PlannedCall, type ScanMethod, type ServerKind } from './mediabrowser-scan-plan.js';

/** How long a library-root refresh waits for the rest of a burst (arr imports of a burst arrive seconds apart). */
export const ROOT_HOLD_MS = 5_000;

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
}

/** The arr events that delete a whole folder (Sonarr's SeriesDelete, Radarr's MovieDelete, Lidarr's, Readarr's). */
export const FOLDER_DELETES = /^(Series|Movie|Artist|Author|Album|Book)Delete$/;

/** What a scan asked of the server, for its follow-up: how, and which item was refreshed. */
export type Sent = Pick<MediaBrowserTicket, 'via' | 'item'>;
export type SentOutcome = ScanOutcome & { sent?: Sent };

interface HeldRoot {
  call: PlannedCall;
  library: string;
  folders: string[];
  answer: ((outcome: SentOutcome) => void)[];
}

export class MediaBrowserScans {
  readonly locator: ItemLocator;
  private plugin?: Promise<boolean>;
  private readonly held = new Map<string, HeldRoot>();
  private readonly refreshing = new Map<string, Promise<void>>();

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
  }

  /** `path`: a folder some of `libraries` hold (the caller has checked). Failures reject: the caller maps them. */
  async scan(path: string, context: ScanContext, libraries: Library[], holders: Library[]): Promise<SentOutcome> {
    const { method, api } = this.opts;
    const sections = { sections: holders.map((l) => l.id) };
    if (method === 'media-updated') {
      await api.call('POST', '/Library/Media/Updated', { cap: ACKNOWLEDGEMENT, body: { Updates: [{ Path: path, UpdateType: context.deleted ? 'Deleted' : 'Modified' }] } });
      return { status: 'scanned', detail: holders.map((l) => l.title).join(', '), ...sections, sent: { via: 'monitor' } };
    }
    if (method === 'auto' && (await this.hasPlugin())) {
      const sent = await api.call('POST', '/Library/ScanPath', { cap: ACKNOWLEDGEMENT, body: { Path: path }, anyStatus: true });
      const body = await sent.json().catch(() => undefined);
      const meaning = pluginAnswer(sent.status, body);
      const said = typeof (body as { Status?: unknown })?.Status === 'string' ? (body as { Status: string }).Status : `HTTP ${sent.status}`;
      if (meaning === 'done') return { status: 'scanned', detail: `ScanPath: ${said}`, ...sections, sent: { via: 'plugin' } };
      if (meaning === 'retry') throw new ApiRefusal(`${this.opts.who} answered ${said} to POST /Library/ScanPath for '${path}'`, sent.status, retryAfterOf(sent));
      if (meaning === 'absent') {
        this.opts.log.warn({ target: this.opts.name }, 'the Targeted Scans plugin no longer answers POST /Library/ScanPath: refreshing items instead until the next start');
        this.plugin = Promise.resolve(false);
      }
      // 'fallback': the plugin could not place the path; the item refresh takes it.
    }
    const due = await this.locate(path, context, libraries);
    const plan = planScans({ kind: this.opts.kind, method: method === 'library' ? 'library' : 'item', plugin: false, folders: [due] });
    const call = plan.calls[0];
    if (!call) return { status: 'unmatched', detail: `'${path}' is in no library of ${this.opts.who}` };
    if (call.kind === 'refresh-library') return this.holdRoot(call, due.located!.library.name, path);
    await this.refreshOnce(call);
    return { status: 'scanned', detail: `refreshed ${call.item!.type} '${call.item!.path}'`, ...sections, sent: { via: 'item', item: { id: call.item!.id, path: call.item!.path } } };
  }

  /** For the path doctor: which item the folder's scan would refresh (asks the server for the levels it lacks). */
  async explain(path: string, libraries: Library[], deleted: boolean): Promise<string> {
    const { method, kind } = this.opts;
    if (method === 'media-updated') return 'POST /Library/Media/Updated: the server\'s library monitor refreshes it after its delay (60 s by default)';
    const due = await this.locate(path, { deleted, event: 'explain', source: 'doctor' }, libraries);
    const text = explainFolder(kind, due);
    if (method === 'auto' && (await this.hasPlugin())) return `POST /Library/ScanPath (the Targeted Scans plugin); if it cannot place the folder, ${text}`;
    return text;
  }

  private async locate(path: string, context: ScanContext, libraries: Library[]): Promise<DueFolder> {
    const roots: LibraryRoot[] = libraries.map((l) => ({ id: l.id, name: l.title, locations: l.locations }));
    // A folder that is itself gone (a deleted series or movie) refreshes its parent; a deleted file leaves its
    // folder. The queue keeps no file for a deleted request, so the arr's event says which it was.
    const due = { path, deleted: context.deleted, gone: context.deleted && FOLDER_DELETES.test(context.event) };
    const located = this.opts.method === 'library' ? ItemLocator.rootOf(roots, path) : await this.locator.locate(roots, path);
    return { ...due, located };
  }

  /** Asked once per start: an empty Path is the plugin's 400, a server without it has no route (404). */
  private hasPlugin(): Promise<boolean> {
    this.plugin ??= (async () => {
      const answer = await this.opts.api.call('POST', '/Library/ScanPath', { cap: ACKNOWLEDGEMENT, body: { Path: '' }, anyStatus: true });
      await answer.body?.cancel();
      if (answer.status === 401 || answer.status === 403) throw new ApiRefusal(`${this.opts.who} refused the token (HTTP ${answer.status} on POST /Library/ScanPath): check TOKEN`, answer.status);
      const present = answer.status !== 404 && answer.status !== 405;
      this.opts.log.info({ target: this.opts.name, plugin: present }, present ? 'the Targeted Scans plugin answers: folders go to POST /Library/ScanPath' : 'no Targeted Scans plugin: folders refresh the nearest item the server has');
      return present;
    })().catch((err) => {
      this.plugin = undefined;
      throw err;
    });
    return this.plugin;
  }

  /** One refresh of an item however many folders ask for it at once. */
  private async refreshOnce(call: PlannedCall): Promise<void> {
    const running = this.refreshing.get(call.path);
    if (running) return running;
    const sending = this.opts.api
      .call(call.method, call.path, { cap: ACKNOWLEDGEMENT, query: call.query })
      .then((r) => void r.body?.cancel())
      .catch((err) => {
        // The item went meanwhile (a series renamed or deleted): what the locator learnt may be stale, read again.
        if (err instanceof ApiRefusal && err.status === 404) this.locator.forget();
        throw err;
      })
      .finally(() => this.refreshing.delete(call.path));
    this.refreshing.set(call.path, sending);
    return sending;
  }

  /** A library-root refresh waits rootHoldMs for the other folders of its burst; all answer when it is sent. */
  private holdRoot(call: PlannedCall, library: string, path: string): Promise<SentOutcome> {
    let held = this.held.get(call.path);
    if (!held) {
      held = { call, library, folders: [], answer: [] };
      this.held.set(call.path, held);
      void this.opts.clock.sleep(this.opts.rootHoldMs ?? ROOT_HOLD_MS).then(() => this.sendRoot(call.path));
    }
    if (!held.folders.includes(path)) held.folders.push(path);
    return new Promise((resolve) => held.answer.push(resolve));
  }

  private async sendRoot(key: string): Promise<void> {
    const held = this.held.get(key);
    if (!held) return;
    this.held.delete(key);
    this.opts.log.info({ target: this.opts.name, library: held.library, folders: held.folders }, libraryWalkNote(this.opts.kind, held.library, held.folders));
    let outcome: SentOutcome;
    try {
      await this.refreshOnce(held.call);
      const item = { id: held.call.item!.id, path: held.call.item!.path };
      outcome = { status: 'scanned', detail: `refreshed library '${held.library}' as a whole, once for ${held.folders.length} folder(s)`, sections: [item.id], sent: { via: 'library', item } };
    } catch (err) {
      outcome = this.opts.api.retry(err);
    }
    for (const answer of held.answer) answer(outcome);
  }
}
