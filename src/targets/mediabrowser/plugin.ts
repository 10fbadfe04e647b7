// The Targeted Scans plugin (d3v1l1989/targeted-scans) as a Jellyfin or Emby target asks it: whether it is there
// (once per start), and what it made of each path. Paths asked for while a call is out wait and go together in
// the next: one path is POST /Library/ScanPath, several POST /Library/ScanPaths (the batch route, in the plugin
// since its first release), so a burst of files to one server costs a few calls, none of them delayed.
// What to send it is the scan flow's (mediabrowser/scan.ts): files with no item yet, and paths gone from disk.
import { ACKNOWLEDGEMENT } from '../../http/answer-caps.js';
import { ApiRefusal, retryAfterOf, type ApiCaller } from '../../http/api-call.js';
import type { Logger } from '../../log/logger.js';
import { pluginAnswer } from './scan-plan.js';

/** One path for the plugin: `gone` when it is gone from disk (the plugin deletes its item: Removed). */
export interface PluginAsk {
  path: string;
  gone: boolean;
}

/** What the plugin made of one path: its Status (or the HTTP status), and what that means for the scan. */
export interface PluginAnswer {
  meaning: 'done' | 'fallback' | 'absent' | 'retry';
  said: string;
  /** The item the plugin made (its ItemId), when it said one. */
  itemId?: string;
  /** The answer's Message, when a failure said why (Omniscan's Error). */
  message?: string;
  /** The HTTP answer's status and Retry-After, for a retry's message and hold. */
  status: number;
  retryAfter?: string;
}

/**
 * Paths per batch call; more wait for the next call. Each result repeats its path twice (Path, Message), so 25
 * results of long paths stay within an acknowledgement's cap (answer-caps.ts).
 */
export const BATCH_PATHS = 25;

interface Waiting extends PluginAsk {
  resolve(answer: PluginAnswer): void;
  reject(err: unknown): void;
}

/**
 * What the doctor and /health say of the plugin routes once asked: which plugins scanrelay was checked against and
 * on which servers, and what a server without one gets. Targeted Scans 1.9.0 declares targetAbi 10.11.0.0
 * (manifest.json), so Jellyfin 10.10 does not load it and Jellyfin 12 asks users to remove plugins built for 10.11.
 */
export function pluginNote(kind: 'jellyfin' | 'emby', present: boolean | undefined): string | undefined {
  if (present === undefined) return undefined;
  const server = kind === 'jellyfin' ? 'Jellyfin' : 'Emby';
  if (present) {
    return `a plugin answers POST /Library/ScanPath on this ${server}: new series and movies are sent to it as files, everything else refreshes the nearest item (checked against Targeted Scans 1.9.0, d3v1l1989/targeted-scans, which loads on Jellyfin 10.11 only, its Emby plugin, and Omniscan's plugins, drondeseries/omniscan)`;
  }
  return kind === 'jellyfin'
    ? 'no Targeted Scans plugin on this Jellyfin: a new series or movie costs one walk of the location that holds it, once per burst (Jellyfin has no call that adds one without it). The plugin loads on Jellyfin 10.11 only; on Jellyfin 12, which asks for plugins built for 10.11 to be removed, this is the way new items arrive'
    : 'no Targeted Scans plugin on this Emby: folders go to the library monitor (SCAN_METHOD media-updated) or refresh the nearest item';
}

export class TargetedScans {
  private present?: Promise<boolean>;
  /** What the last ask found: undefined until one answered. */
  private found?: boolean;
  /** Does the batch route answer? Until a call says otherwise, yes. */
  private batch = true;
  private readonly waiting: Waiting[] = [];
  private sending = false;

  constructor(private readonly opts: { api: ApiCaller; who: string; name: string; log: Logger }) {}

  /** Asked once per start: an empty Path is the plugin's 400, a server without it has no route (404). */
  installed(): Promise<boolean> {
    this.present ??= (async () => {
      const answer = await this.opts.api.call('POST', '/Library/ScanPath', { cap: ACKNOWLEDGEMENT, body: { Path: '' }, anyStatus: true });
      await answer.body?.cancel();
      if (answer.status === 401 || answer.status === 403) throw new ApiRefusal(`${this.opts.who} refused the token (HTTP ${answer.status} on POST /Library/ScanPath): check TOKEN`, answer.status);
      const present = answer.status !== 404 && answer.status !== 405;
      this.found = present;
      this.opts.log.info(
        { target: this.opts.name, plugin: present },
        present ? 'the Targeted Scans plugin answers: new series and movies go to POST /Library/ScanPath(s), everything else refreshes the nearest item' : 'no Targeted Scans plugin: folders refresh the nearest item the server has',
      );
      return present;
    })().catch((err) => {
      this.present = undefined;
      throw err;
    });
    return this.present;
  }

  /** The plugin is gone (its route answers 404): not asked again until the next start. */
  forget(): void {
    this.opts.log.warn({ target: this.opts.name }, 'the Targeted Scans plugin no longer answers POST /Library/ScanPath: refreshing items instead until the next start');
    this.present = Promise.resolve(false);
    this.found = false;
  }

  /** What the last ask found (no request): true, false, or undefined before any answered. */
  known(): boolean | undefined {
    return this.found;
  }

  /** Each path's answer, in order. Rejects when the server gave no answer (the caller maps it). */
  ask(paths: PluginAsk[]): Promise<PluginAnswer[]> {
    const answers = paths.map((p) => new Promise<PluginAnswer>((resolve, reject) => this.waiting.push({ ...p, resolve, reject })));
    this.flush();
    return Promise.all(answers);
  }

  /** Sends what waits unless a call is out (its end sends the rest). */
  private flush(): void {
    if (this.sending || this.waiting.length === 0) return;
    this.sending = true;
    const taken = this.waiting.splice(0, BATCH_PATHS);
    void this.send(taken)
      .catch((err: unknown) => taken.forEach((w) => w.reject(err)))
      .finally(() => {
        this.sending = false;
        this.flush();
      });
  }

  private async send(taken: Waiting[]): Promise<void> {
    if (taken.length > 1 && this.batch) {
      const answer = await this.opts.api.call('POST', '/Library/ScanPaths', { cap: ACKNOWLEDGEMENT, body: { Paths: taken.map((w) => w.path) }, anyStatus: true });
      const body = (await answer.json().catch(() => undefined)) as { Results?: { Path?: unknown; Status?: unknown }[] } | undefined;
      if (answer.status === 404 || answer.status === 405) {
        this.batch = false; // an older plugin: one path at a time
      } else {
        // Each result names its path; the plugin drops duplicates ignoring case (TargetedScanService.cs L248-252).
        const results = new Map((Array.isArray(body?.Results) ? body.Results : []).map((r) => [String(r.Path).toLowerCase(), r]));
        for (const w of taken) {
          // Omniscan answers in the order sent, each Path the item's (a folder's Movie is its file): by order then.
          const r = answer.status >= 200 && answer.status < 300 ? (results.get(w.path.toLowerCase()) ?? (Array.isArray(body?.Results) && body.Results.length === taken.length ? body.Results[taken.indexOf(w)] : undefined)) : undefined;
          w.resolve(r ? this.read(200, r, w.gone) : { meaning: 'retry', said: `HTTP ${answer.status}`, status: answer.status, retryAfter: retryAfterOf(answer) });
        }
        return;
      }
    }
    for (const w of taken) {
      const answer = await this.opts.api.call('POST', '/Library/ScanPath', { cap: ACKNOWLEDGEMENT, body: { Path: w.path }, anyStatus: true });
      const body = await answer.json().catch(() => undefined);
      w.resolve({ ...this.read(answer.status, body, w.gone), retryAfter: retryAfterOf(answer) });
    }
  }

  private read(status: number, body: unknown, gone: boolean): PluginAnswer {
    const b = body as { Status?: unknown; ItemId?: unknown; Message?: unknown } | undefined;
    const said = typeof b?.Status === 'string' ? b.Status : `HTTP ${status}`;
    const meaning = pluginAnswer(status, body, gone);
    // Jellyfin's single route answers Removed as 500 "Failed" (ScanPathController.cs L92-96): say what it meant.
    const message = meaning === 'fallback' && typeof b?.Message === 'string' && b.Message ? { message: b.Message.slice(0, 200) } : {};
    return { meaning, said: gone && meaning === 'done' && said === 'Failed' ? 'Removed' : said, status, ...(typeof b?.ItemId === 'string' && b.ItemId ? { itemId: b.ItemId } : {}), ...message };
  }
}
