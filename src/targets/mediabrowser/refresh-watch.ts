// Our targeted refreshes of one Jellyfin or Emby server that have not yet been seen to run. The server's refresh
// queue is a .NET PriorityQueue (jellyfin@v10.11.11 MediaBrowser.Providers/Manager/ProviderManager.cs:63): among
// equal priorities the newest waiting entry runs next, so a library refresh sent while season refreshes still wait
// runs before most of them. And the server says nothing of a season's or series' refresh (RefreshStatus covers
// library folders only). So each refresh of ours is watched by what it must change: the files the request named
// appear below the refreshed item, the deleted ones leave it (GET /Items?ParentId=<item>&Recursive=true, paged).
// The library-root hold waits until none is pending (mediabrowser/root-hold.ts); the follower does not call a file
// missing while one is (mediabrowser/follower.ts). A refresh with nothing to watch for (a folder scanned without a
// file) is not watched. The refreshes watched are of seasons, series and folders, which never show in RefreshStatus
// (jellyfin@v10.11.11 LibraryManager.cs L1335 reads the libraries' own folders; Folder.cs L333-336): a library
// reading Idle says nothing of a backlog of them, each as slow as the first refresh of the new episode it finds
// (a probe and the remote metadata). So while several of ours wait, each is judged by its files alone; the last
// one left is given up on once no library has been refreshing for IDLE_GRACE_MS or twice the longest one of ours
// took to be seen (it ran and did not take its file in), and any of them after WATCH_LIMIT_MS.
import { MEDIABROWSER_ITEMS_PAGE } from '../../http/answer-caps.js';
import type { ApiCaller } from '../../http/api-call.js';
import type { Clock } from '../../clock.js';
import { lookupCandidates } from '../../paths/sidecar.js';
import { fileItemsQuery } from './items.js';
import type { FolderItem } from './locate.js';
import type { RefreshState } from './confirm.js';

/** A refresh not seen to run after this is given up on: the server may have dropped it, or be stuck for long. */
export const WATCH_LIMIT_MS = 10 * 60_000;
/** A refresh not seen to run while no library of the server refreshes for this long has run and missed its file. */
export const IDLE_GRACE_MS = 30_000;
/** After a refresh of ours is seen to run, the others may be a moment behind it: looked at again before judging. */
export const WATCH_SETTLE_MS = 2_000;
const PAGE = 500;

interface Watched {
  item: FolderItem;
  /** Files that must be below the item once its refresh ran, and files that must not. */
  present: string[];
  absent: string[];
  sentAt: number;
  /** Since when no library of the server has been seen refreshing while this one waited. */
  idleSince?: number;
}

export class RefreshWatch {
  private readonly watched = new Map<string, Watched>();
  private lastSeenAt = -Infinity;
  /** The longest wait, so far, between a refresh of ours going out (or the one before it being seen) and its being seen. */
  private longestRun = 0;
  private checking?: Promise<void>;

  constructor(private readonly opts: { api: ApiCaller; clock: Clock; states: () => Promise<Map<string, RefreshState> | undefined> }) {}

  /** A refresh of `item` was accepted; it has run once `present` are below it and `absent` are not. */
  sent(item: FolderItem, present: string[], absent: string[]): void {
    if (present.length === 0 && absent.length === 0) return;
    const was = this.watched.get(item.id);
    this.watched.set(item.id, { item, present: [...new Set([...(was?.present ?? []), ...present])], absent: [...new Set([...(was?.absent ?? []), ...absent])], sentAt: this.opts.clock.now() });
  }

  /** A follow-up saw `file` in the library: the refresh that watched for it (and only for it) has run. */
  observed(file: string): void {
    for (const w of [...this.watched.values()]) {
      if (!w.present.includes(file)) continue;
      w.present = w.present.filter((p) => p !== file);
      if (w.present.length === 0 && w.absent.length === 0) this.seen(w);
    }
  }

  /** Refreshes of ours not yet seen to run. */
  pending(): number {
    return this.watched.size;
  }

  /**
   * The queue may still hold refreshes of ours, a follow-up's own included (a missing file then says nothing yet):
   * one is pending, or one was seen to run a moment ago (the next may be about to).
   */
  busy(): boolean {
    return this.pending() > 0 || this.opts.clock.now() - this.lastSeenAt < WATCH_SETTLE_MS;
  }

  /** Looks once at every pending refresh (one listing each); concurrent callers share the look. */
  check(): Promise<void> {
    this.checking ??= this.look().finally(() => (this.checking = undefined));
    return this.checking;
  }

  /** Resolves once no refresh of ours is pending, looking every `pollMs`, or after `limitMs`: false then. */
  async clear(pollMs: number, limitMs: number): Promise<boolean> {
    const until = this.opts.clock.now() + limitMs;
    for (;;) {
      await this.check().catch(() => undefined);
      if (this.pending() === 0) return true;
      if (this.opts.clock.now() >= until) return false;
      await this.opts.clock.sleep(pollMs);
    }
  }

  private async look(): Promise<void> {
    if (this.watched.size === 0) return;
    const states = await this.opts.states().catch(() => undefined);
    const walking = states !== undefined && [...states.values()].some((s) => s !== 'Idle');
    const now = this.opts.clock.now();
    for (const w of [...this.watched.values()]) {
      const below = await this.filesBelow(w.item.id);
      const there = (f: string) => lookupCandidates(f).some((c) => below.has(c));
      if (w.present.every(there) && !w.absent.some(there)) {
        this.seen(w);
        continue;
      }
      // A backlog of ours is judged by its files: the server shows nothing of season refreshes waiting.
      w.idleSince = walking || this.watched.size > 1 ? undefined : (w.idleSince ?? now);
      const grace = Math.max(IDLE_GRACE_MS, 2 * this.longestRun);
      if (now - w.sentAt >= WATCH_LIMIT_MS || (w.idleSince !== undefined && now - w.idleSince >= grace)) this.watched.delete(w.item.id);
    }
  }

  private seen(w: Watched): void {
    const now = this.opts.clock.now();
    this.longestRun = Math.max(this.longestRun, now - Math.max(w.sentAt, this.lastSeenAt));
    this.watched.delete(w.item.id);
    this.lastSeenAt = now;
  }

  private async filesBelow(itemId: string): Promise<Set<string>> {
    const paths = new Set<string>();
    for (let start = 0; ; start += PAGE) {
      const page = await this.opts.api.json<{ Items?: { Path?: unknown }[]; TotalRecordCount?: unknown }>('GET', '/Items', { cap: MEDIABROWSER_ITEMS_PAGE, query: fileItemsQuery(itemId, start, PAGE) });
      const items = Array.isArray(page?.Items) ? page.Items : [];
      for (const i of items) if (typeof i.Path === 'string') paths.add(i.Path);
      const total = typeof page?.TotalRecordCount === 'number' ? page.TotalRecordCount : start + items.length;
      if (items.length < PAGE || start + items.length >= total) return paths;
    }
  }
}
