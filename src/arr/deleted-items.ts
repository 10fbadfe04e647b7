// Series, movies, artists and authors an app deleted while its webhooks could not reach scanrelay. The history cannot
// tell them (HistoryService.Handle(SeriesDeletedEvent) deletes the item's history with it, and the same in the
// others), so each catch-up lists the app's items and compares their folders with the last list (item-folders.ts):
// a folder gone is what that app's delete webhook (SeriesDelete, MovieDelete, ArtistDelete, AuthorDelete) would have
// queued, read by the webhook's own parser. Bounded: the first list only sets the baseline, a list that fails keeps
// the old one, and a list that lost most of its folders at once is not taken for deletes.
import { ANSWER_TOO_LARGE, ApiRefusal } from '../http/api-call.js';
import type { Clock } from '../clock.js';
import type { Logger } from '../log/logger.js';
import type { HistorySource, ScanRequest, Source } from '../request.js';
import type { ArrApp } from './apps.js';
import type { ArrClient } from './client.js';
import type { ItemFolders, ItemFolderSet } from './item-folders.js';

/**
 * A list that lost more than this share of its folders at once is taken for an app restored from an empty database
 * or a URL pointing at another app: scanning half a library as deleted is the costlier mistake.
 */
const MOST_GONE = 0.5;
/** A list that stays that small this long is the app's library as it now is: taken as the baseline, nothing queued. */
export const SHRUNK_TAKEN_MS = 24 * 3_600_000;
/**
 * The list is read at most this often, however short CATCH_UP_INTERVAL: it is the whole library, and what it finds
 * (a delete whose webhook was missed) loses nothing by waiting a minute, while an app asked every second for a list
 * of tens of MB would keep the relay busy reading it.
 */
export const LIST_EVERY_MS = 60_000;

export interface ItemDeletes {
  /** What the delete webhooks would have queued: one request per folder gone. */
  requests: ScanRequest[];
  /** The items gone: each one delete event caught up, as a history event is, even when a webhook asked for its folder. */
  items: number;
  /** When those folders were last listed (ms, the relay's clock): one a webhook asked for since is not queued again. */
  since: number;
  /** Keeps the new list: called once the requests are queued, so a queue that fails leaves them to the next catch-up. */
  commit(): void;
}

export interface DeletedItemsDeps {
  /** The ARR entry's NAME, under which the list is kept. */
  app: string;
  client: ArrClient;
  store: ItemFolders;
  clock: Clock;
  logger: Logger;
}

export class DeletedItems {
  /** The list failed last time: said once, and once when it reads again. */
  private listFailing = false;
  /** The last list was skipped unread (past its cap or its parse's weight), and why. */
  skipped: string | undefined;
  /** Since when the list has been too small to believe (ms, the relay's clock). */
  private shrunkSince: number | undefined;
  /** Since when the list has been more than half again as large as the one kept (ms, the relay's clock). */
  private grewSince: number | undefined;
  /** When the list was last asked for (ms, the relay's clock). */
  private askedAt = -Infinity;

  constructor(private readonly deps: DeletedItemsDeps) {}

  /** The folders gone since the last list, as requests; undefined when there is nothing to queue. Never throws. */
  async read(arr: ArrApp, source: Source): Promise<ItemDeletes | undefined> {
    const { app, client, store, clock, logger } = this.deps;
    const noun = arr.library.slice(1);
    if (clock.now() - this.askedAt < LIST_EVERY_MS) return undefined;
    this.askedAt = clock.now();
    let folders: string[];
    try {
      folders = await client.libraryFolders(arr.library);
    } catch (err) {
      this.skipped = err instanceof ApiRefusal && err.status === ANSWER_TOO_LARGE ? `its ${noun} list was skipped unread: ${(err as Error).message}` : undefined;
      if (!this.listFailing) {
        logger.warn({ app: client.who }, `Could not read ${client.who}'s ${noun} list: ${(err as Error).message}. What it deleted is compared with its last list when it answers; nothing is lost meanwhile.`);
      }
      this.listFailing = true;
      return undefined;
    }
    this.skipped = undefined;
    if (this.listFailing) logger.info({ app: client.who }, `${client.who}'s ${noun} list is read again.`);
    this.listFailing = false;
    const now = clock.now();
    const current: ItemFolderSet = { list: arr.library, folders: new Set(folders), readAt: now };
    const last = store.get(app);
    // The first list (or the first of another kind: a Whisparr now on v3) is where deletes are counted from.
    if (!last || last.list !== arr.library) return void store.set(app, current);
    const gone = [...last.folders].filter((f) => !current.folders.has(f));
    if (gone.length > 1 && gone.length > last.folders.size * MOST_GONE) return this.shrunk(arr, last, current, gone.length);
    if (this.shrunkSince !== undefined) logger.info({ app: client.who }, `${client.who}'s ${noun} list is whole again (${current.folders.size} folders).`);
    this.shrunkSince = undefined;
    // What the guard above counts against is the list kept. A list that grew by more than half at once (an import,
    // or folders an app invents to pad it) is kept only once it has held a day: else the next answer could drop the
    // real folders, fewer than half of the padded list, and have them all queued as deleted.
    const added = folders.reduce((n, f) => (last.folders.has(f) ? n : n + 1), 0);
    const grew = added > 1 && added > last.folders.size * MOST_GONE;
    if (grew) this.grewSince ??= now;
    else this.grewSince = undefined;
    const keep: ItemFolderSet = grew && now - this.grewSince! < SHRUNK_TAKEN_MS ? { ...last, folders: new Set([...last.folders].filter((f) => current.folders.has(f))), readAt: now } : current;
    if (keep === current) this.grewSince = undefined;
    if (gone.length === 0) {
      if (keep.folders.size === last.folders.size && keep === current) store.touch(app, now);
      else store.set(app, keep);
      return undefined;
    }
    return {
      requests: gone.flatMap((folder) => this.deleteRequests(arr, source, folder)),
      items: gone.length,
      since: last.readAt,
      commit: () => {
        store.set(app, keep);
        const shown = gone.slice(0, 3).join(', ') + (gone.length > 3 ? ', …' : '');
        logger.info({ app: client.who, count: gone.length }, `${client.who} no longer lists ${gone.length} ${noun} folder(s) (${shown}): queued as its ${arr.payload.ownerDelete} webhook would have.`);
      },
    };
  }

  /** The webhook's parser on the payload its delete event carries: the same mappings and coalescing as the webhook. */
  private deleteRequests(arr: ArrApp, source: Source, folder: string): ScanRequest[] {
    const p = arr.payload;
    const outcome = arr.parse({ [p.owner]: { [p.ownerFolder]: folder } }, p.ownerDelete, source);
    if (outcome.kind !== 'scan') return [];
    return outcome.requests.map((q) => ({ ...q, source: `${source}-history` as HistorySource }));
  }

  /** Most of the list gone at once: nothing queued, the last list kept; the new one taken once it has held a day. */
  private shrunk(arr: ArrApp, last: ItemFolderSet, current: ItemFolderSet, gone: number): undefined {
    const { app, client, store, clock, logger } = this.deps;
    const noun = arr.library.slice(1);
    const now = clock.now();
    if (this.shrunkSince === undefined) {
      this.shrunkSince = now;
      logger.warn(
        { app: client.who, had: last.folders.size, has: current.folders.size },
        `${client.who}'s ${noun} list lost ${gone} of its ${last.folders.size} folders at once: taken for an app restored from an empty database or a URL that points at another app, not for deletes. Nothing is queued for them and the last list is kept; should the app keep answering this list for ${SHRUNK_TAKEN_MS / 3_600_000} hours, it is taken as it is, still queuing nothing.`,
      );
    } else if (now - this.shrunkSince >= SHRUNK_TAKEN_MS) {
      this.shrunkSince = undefined;
      store.set(app, current);
      logger.info({ app: client.who }, `${client.who}'s ${noun} list has had ${current.folders.size} folders for ${SHRUNK_TAKEN_MS / 3_600_000} hours: taken as its library now; the ${gone} folders it lost were not queued.`);
    }
    return undefined;
  }
}
