// A stand-in for the Jellyfin target's scan flow built from mediabrowser-locate.ts and
// mediabrowser-scan-plan.ts, until the target itself uses them: it lists the libraries, detects the Targeted
// Scans plugin once, locates the folders due together, plans and sends the calls over real HTTP. The tests and
// bench/jellyfin-scans.ts drive it against the model server; the integration puts the same steps in the Target.
import type { Clock } from '../../src/clock.js';
import { childrenQuery, ItemLocator, type LibraryRoot, type Located } from '../../src/targets/mediabrowser-locate.js';
import { needsLocating, planScans, pluginAnswer, type DueFolder, type PlannedCall, type ScanMethod } from '../../src/targets/mediabrowser-scan-plan.js';

export interface FlowOptions {
  url: string;
  token: string;
  method: ScanMethod;
  clock: Clock;
  pageSize?: number;
  /**
   * How long a library-root refresh is held to gather the other folders of a burst (a burst of movies arrives
   * over seconds, each folder due on its own): one library walk per burst, never one per movie. 0 sends at once.
   */
  rootHoldMs?: number;
}

export interface Delivery {
  calls: PlannedCall[];
  notes: string[];
  unmatched: string[];
  /** Listing requests (GET /Items) this delivery made. */
  listings: number;
  /** Set when library-root refreshes wait: call flushRoots() then. */
  rootsHeldUntil?: number;
}

export class MediaBrowserScanFlow {
  private libraries: LibraryRoot[] | undefined;
  /** undefined until asked, once per start. */
  plugin: boolean | undefined;
  readonly locator: ItemLocator;
  /** Library-root refreshes held for a burst: the call (for its path and query) and every folder it covers. */
  private readonly held = new Map<string, PlannedCall>();
  private heldUntil: number | undefined;

  constructor(private readonly opts: FlowOptions) {
    this.locator = new ItemLocator({
      clock: opts.clock,
      pageSize: opts.pageSize,
      list: async (parentId, start, limit) => {
        const { body } = await this.send('GET', '/Items', childrenQuery(parentId, start, limit));
        const page = body as { Items?: unknown[]; TotalRecordCount?: number };
        return { items: (page.Items ?? []) as { Id?: unknown; Path?: unknown }[], total: page.TotalRecordCount };
      },
    });
  }

  async send(method: string, path: string, query?: Record<string, string>, body?: unknown): Promise<{ status: number; body: unknown }> {
    const search = query ? `?${new URLSearchParams(query)}` : '';
    const res = await fetch(this.opts.url + path + search, {
      method,
      headers: { Authorization: `MediaBrowser Token="${this.opts.token}"`, Accept: 'application/json', ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = text;
    }
    return { status: res.status, body: parsed };
  }

  /** Detects the plugin once: an empty Path is the plugin's 400, while a server without it has no route (404). */
  private async detectPlugin(): Promise<boolean> {
    if (this.plugin === undefined) this.plugin = (await this.send('POST', '/Library/ScanPath', undefined, { Path: '' })).status !== 404;
    return this.plugin;
  }

  async deliver(folders: { path: string; deleted: boolean; gone: boolean }[]): Promise<Delivery> {
    this.libraries ??= ((await this.send('GET', '/Library/VirtualFolders')).body as { Name: string; ItemId: string; Locations: string[] }[]).map((l) => ({
      id: l.ItemId,
      name: l.Name,
      locations: l.Locations,
    }));
    const plugin = this.opts.method === 'auto' ? await this.detectPlugin() : false;
    const out: Delivery = { calls: [], notes: [], unmatched: [], listings: 0 };
    const run = async (due: typeof folders, withPlugin: boolean): Promise<void> => {
      const located: DueFolder[] = [];
      for (const f of due) {
        let where: Located | undefined;
        if (needsLocating(this.opts.method, withPlugin)) {
          where = await this.locator.locate(this.libraries!, f.path);
          out.listings += where?.requests ?? 0;
        } else {
          where = ItemLocator.rootOf(this.libraries!, f.path);
        }
        located.push({ ...f, located: where });
      }
      const plan = planScans({ kind: 'jellyfin', method: this.opts.method, plugin: withPlugin, folders: located });
      out.notes.push(...plan.notes);
      out.unmatched.push(...plan.unmatched);
      const fallback: typeof folders = [];
      for (const call of plan.calls) {
        if (call.kind === 'refresh-library' && (this.opts.rootHoldMs ?? 0) > 0) {
          const waiting = this.held.get(call.path);
          if (waiting) waiting.folders.push(...call.folders);
          else this.held.set(call.path, { ...call, folders: [...call.folders] });
          this.heldUntil ??= this.opts.clock.now() + this.opts.rootHoldMs!;
          out.rootsHeldUntil = this.heldUntil;
          continue;
        }
        const answer = await this.send(call.method, call.path, call.query, call.body);
        out.calls.push(call);
        if (call.kind !== 'scan-path') continue;
        const meaning = pluginAnswer(answer.status, answer.body);
        if (meaning === 'absent') this.plugin = false;
        if (meaning === 'absent' || meaning === 'fallback') fallback.push(...due.filter((f) => call.folders.includes(f.path)));
      }
      if (fallback.length > 0) await run(fallback, false);
    };
    await run(folders, plugin);
    return out;
  }

  /** Sends the held library-root refreshes: one per library for every folder gathered since the first. */
  async flushRoots(): Promise<PlannedCall[]> {
    const calls = [...this.held.values()];
    this.held.clear();
    this.heldUntil = undefined;
    for (const call of calls) await this.send(call.method, call.path, call.query, call.body);
    return calls;
  }
}
