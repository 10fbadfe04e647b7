// Follows the scans one Jellyfin or Emby server accepted, to say what came of each delivered file. Two ways:
//  - the socket: when the token belongs to a user, the server sends LibraryChanged about 30 s after its last
//    change; an added or updated item whose Path is the file confirms it at once;
//  - the listing: an API key's socket hears no LibraryChanged (docs/targets.md), the socket may be down, or the
//    message may not come: once the refresh is over (the library's RefreshStatus is no longer Active or Queued,
//    and the server's own delays have passed), the refreshed folder is listed.
// A file missing is no verdict while the server's queue is busy (a library Active or Queued, or a targeted refresh
// of ours not yet seen to run: its queue is not first in first out, so ours may still wait behind a walk): the
// folder is listed again later, and past the time limit the follow-up says `scanned`, never `not-found`.
// A deleted folder's follow-up looks for its item's removal instead: in ItemsRemoved, or looked up by id.
// Outcomes go to the follow-up stage, which stores the ticket, so a restart resumes every follow-up here.
import type { ApiCaller } from '../../http/api-call.js';
import type { Clock } from '../../clock.js';
import type { Logger } from '../../log/logger.js';
import { reportFollowUp } from '../../follow/report.js';
import type { Follower, FollowItem, FollowResult, SocketStatus } from '../../scan.js';
import { sameForm, trimTrailingSeparator } from '../../paths/folder.js';
import { holdsFile, listFolder, pathsOfItems, readRefreshStates, stillListed, type Listed } from './confirm.js';
import type { Located } from './locate.js';
import type { RefreshWatch } from './refresh-watch.js';
import { FollowSocket } from './follow-socket.js';
import { FOLLOW_TIMINGS, type FollowTimings } from './follow-timings.js';
import { keyOf, type Followed } from './followed.js';
import type { LibraryChangedEvent, MediaBrowserSocket } from './socket.js';
import { isTicket, mediaBrowserVerdict, type MediaBrowserTicket, type Seen } from './verdict.js';

export interface MediaBrowserFollowerOptions {
  /** "Jellyfin" or "Emby", for details. */
  server: string;
  api: ApiCaller;
  clock: Clock;
  logger: Logger;
  /** The library list whose RefreshStatus says when a library's refresh is over (Jellyfin's /Library/VirtualFolders). */
  librariesPath: string;
  /** The deepest folder item holding a folder, asked now (the target's locator). */
  locate(folder: string): Promise<Located | undefined>;
  socket?: MediaBrowserSocket;
  /** Does the token belong to a user (Jellyfin: GET /Users/Me)? Undefined: cannot tell before a LibraryChanged comes. */
  tokenHasUser?: () => Promise<boolean | undefined>;
  timings?: Partial<FollowTimings>;
  /** The target's targeted refreshes not yet seen to run (mediabrowser/refresh-watch.ts). */
  watch?: Pick<RefreshWatch, 'busy' | 'check' | 'observed'>;
  /** When a change under these libraries last went to the library monitor (media-updated): each restarts its timer. */
  lastMonitorChange?: (libraries: string[]) => number | undefined;
}

/**
 * Item ids of LibraryChanged waiting while their paths are read, at most (100 requests of IDS_PER_REQUEST): the
 * server batches a library's changes over 30 s, so a real message names a few dozen. Past it, ids are dropped
 * (about 0.3 MB held), and a file among them is confirmed by the listing, as when no message comes at all.
 */
const CHANGED_IDS_WAITING = 5_000;

export class MediaBrowserFollower implements Follower {
  private readonly items = new Map<string, Followed>();
  private readonly t: FollowTimings;
  private readonly pending = new Set<Promise<void>>();
  /** Ids LibraryChanged named, waiting for the read under way: one read at a time, however fast messages come. */
  private readonly changed = new Set<string>();
  private readingChanged = false;
  private done?: (item: FollowItem, result: FollowResult) => Promise<void>;
  private running = false;
  private loopDone?: Promise<void>;
  private wakeUp?: () => void;
  private stopping = new AbortController();
  private readonly socket: FollowSocket;
  private finishing = 0;
  /** When start() was called: a delivery made before it was made by an earlier run, while no socket listened. */
  private startedAt = -Infinity;

  constructor(private readonly opts: MediaBrowserFollowerOptions) {
    this.t = { ...FOLLOW_TIMINGS, ...opts.timings };
    this.socket = new FollowSocket({ ...opts, onChanged: (e) => this.onChanged(e) });
  }

  get size(): number {
    return this.items.size + this.finishing;
  }

  /** Its websocket's state, unless the token is known to be an API key's (never opened then) (health). */
  socketStatus(): SocketStatus | undefined {
    return this.socket.usable ? this.opts.socket?.status() : undefined;
  }

  start(done: (item: FollowItem, result: FollowResult) => Promise<void>): void {
    this.done = done;
    if (this.running) return;
    this.running = true;
    this.startedAt = this.opts.clock.now();
    this.stopping = new AbortController();
    this.loopDone = this.loop();
    if (this.items.size) this.openSocket();
  }

  follow(item: FollowItem): void {
    if (!isTicket(item.ticket)) {
      // A ticket this version cannot read (written by another one): nothing to follow, the scan stands.
      this.record(item, { state: 'scanned', detail: `${this.opts.server} took the scan; its follow-up could not be read.` });
      return;
    }
    const key = keyOf(item);
    this.items.set(key, { key, item, ticket: item.ticket, followedAt: this.opts.clock.now(), listing: false });
    this.openSocket();
    this.wakeUp?.();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.stopping.abort();
    this.wakeUp?.();
    await this.socket.close();
    await this.loopDone;
    while (this.pending.size) await Promise.allSettled([...this.pending]);
  }

  /** The server's item at a folder about to be deleted (its own, not an ancestor's): what a delete's follow-up looks for. */
  async itemsAt(folder: string): Promise<string[]> {
    const located = await this.opts.locate(folder).catch(() => undefined);
    return located && !located.isLibraryRoot && sameForm(trimTrailingSeparator(located.item.path), trimTrailingSeparator(folder), folder) ? [located.item.id] : [];
  }

  /** The socket is open only while follow-ups wait (mediabrowser/follow-socket.ts). */
  private openSocket(): void {
    this.socket.open(() => this.running && this.items.size > 0);
  }

  /**
   * The socket watches this follow-up: the token may hear LibraryChanged, and the socket has been open since before
   * the message could go out (LibraryUpdateDuration after the refresh's last change, so never sooner than that
   * after the refresh began). A follow-up resumed after a restart is not watched: the message may have gone out
   * while nothing listened. Only how long the listing waits for the message depends on it.
   */
  private watched(f: Followed): boolean {
    const since = this.socket.connectedSince;
    if (!this.socket.usable || since === undefined) return false;
    return f.item.deliveredAt >= this.startedAt && since <= this.refreshFrom(f) + this.t.libraryUpdateMs;
  }

  /**
   * When the server has started the refresh: at once, or LibraryMonitorDelay after the last change nearby, since
   * every change to the same path, a child, a parent or a sibling restarts the monitor's timer (LibraryMonitor.cs
   * L383-425, FileRefresher.cs L63-86): counted from the last change we sent under the follow-up's libraries.
   */
  private refreshFrom(f: Followed): number {
    if (f.ticket.via !== 'monitor') return f.item.deliveredAt;
    return Math.max(f.item.deliveredAt, this.opts.lastMonitorChange?.(f.ticket.libraries) ?? -Infinity) + this.t.monitorDelayMs;
  }

  private listFrom(f: Followed): number {
    return this.refreshFrom(f) + (this.watched(f) ? this.t.libraryUpdateMs + this.t.socketGraceMs : this.t.settleMs);
  }

  private async loop(): Promise<void> {
    while (this.running) {
      if (this.items.size === 0) {
        await new Promise<void>((resolve) => (this.wakeUp = resolve));
        this.wakeUp = undefined;
        continue;
      }
      await this.pause(this.t.pollMs);
      if (!this.running) return;
      try {
        await this.pass();
      } catch (err) {
        this.opts.logger.error({ err: String(err) }, `following ${this.opts.server} scans failed (${String(err)}); trying again at the next look`);
      }
    }
  }

  /** Ends at once on stop(), even on a clock that does not heed the signal. */
  private pause(ms: number): Promise<void> {
    const signal = this.stopping.signal;
    return new Promise<void>((resolve) => {
      // Removed when the pause ends: a listener per pause would pile up on the signal for as long as we follow.
      const done = () => (signal.removeEventListener('abort', done), resolve());
      signal.addEventListener('abort', done, { once: true });
      void this.opts.clock.sleep(ms, signal).then(done);
    });
  }

  /** One look: the follow-ups whose refresh is over are listed, one folder each. */
  private async pass(): Promise<void> {
    const now = this.opts.clock.now();
    const due = [...this.items.values()].filter((f) => !f.listing && now >= this.listFrom(f));
    if (due.length === 0) return;
    const states = await readRefreshStates(this.opts.api, this.opts.librariesPath);
    const queueBusy = !!states && [...states.values()].some((s) => s !== 'Idle');
    for (const f of due) {
      const busy = states && f.ticket.libraries.some((id) => states.get(id) !== undefined && states.get(id) !== 'Idle');
      const late = now - f.item.deliveredAt >= this.t.timeoutMs;
      if (busy && !late) continue;
      f.listing = true;
      const waited = `the ${f.busySince === undefined ? 'library' : "server's refresh queue"} was still ${f.busySince === undefined ? 'refreshing' : 'busy'} after ${Math.round(this.t.timeoutMs / 1000)} s`;
      this.track(this.list(f, late ? waited : undefined, queueBusy));
    }
  }



  /** `queueBusy`: the server's queue may still hold this refresh, so a missing file is listed again later. */
  private async list(f: Followed, late: string | undefined, queueBusy: boolean): Promise<void> {
    let listed: Listed;
    try {
      const removed = f.ticket.removed?.ids;
      // A delete's: is the item still there (GET /Items?Ids=…)? Gone confirms; still there is no problem yet.
      if (removed) {
        const left = await stillListed(this.opts.api, removed);
        return this.finish(f, left === undefined ? { how: 'removed', by: 'lookup' } : { how: 'still-listed', path: left }, late);
      }
      const located = await this.opts.locate(f.ticket.folder);
      listed = await listFolder(this.opts.api, located, f.ticket.file);
      // Missing (or, for a folder with no item of its own, not among the newest): is a refresh still waiting in the
      // server's queue, perhaps this one behind it? A walk the monitor queued reads Idle until it runs (J6), but
      // whatever it waits behind shows.
      const missing = listed.state === 'absent' || (listed.state === 'unknown' && located?.isLibraryRoot === true);
      if (missing && !late && (queueBusy || (await this.watchBusy()))) {
        f.busySince ??= this.opts.clock.now();
        f.listing = false;
        return;
      }
    } catch (err) {
      f.lastError = String((err as Error).message ?? err);
      f.listing = false;
      if (this.opts.clock.now() - f.item.deliveredAt < this.t.timeoutMs) return; // asked again at the next look
      listed = { state: 'unknown', why: `the server did not answer the listing: ${f.lastError}` };
    }
    this.finish(f, { how: 'listing', listed }, late);
  }

  private async watchBusy(): Promise<boolean> {
    await this.opts.watch?.check().catch(() => undefined);
    return this.opts.watch?.busy() ?? false;
  }

  private onChanged(e: LibraryChangedEvent): void {
    const removed = new Set(e.removed);
    for (const f of [...this.items.values()]) if (f.ticket.removed?.ids.some((id) => removed.has(id))) this.finish(f, { how: 'removed', by: 'socket' });
    if (!this.items.size) return;
    for (const id of [...e.added, ...e.updated]) {
      if (this.changed.size >= CHANGED_IDS_WAITING) break;
      this.changed.add(id);
    }
    if (this.changed.size && !this.readingChanged) this.track(this.readChanged());
  }

  /** The ids heard so far, in batches, until none wait or nothing is followed any more. */
  private async readChanged(): Promise<void> {
    this.readingChanged = true;
    try {
      while (this.changed.size && this.items.size) {
        const ids = [...this.changed];
        this.changed.clear();
        await this.confirmFromSocket(ids);
      }
    } finally {
      this.changed.clear();
      this.readingChanged = false;
    }
  }

  private async confirmFromSocket(ids: string[]): Promise<void> {
    let paths: Map<string, string>;
    try {
      paths = await pathsOfItems(this.opts.api, ids);
    } catch (err) {
      this.opts.logger.warn({ err: String(err) }, `could not read the paths of the items ${this.opts.server} said changed (${String(err)}); their files are confirmed by listing`);
      return;
    }
    const found = [...paths.values()];
    for (const f of [...this.items.values()]) {
      if (found.some((p) => holdsFile(p, f.ticket.file))) this.finish(f, { how: 'socket' });
    }
  }

  /** Ends a follow-up once, by whichever way came first. */
  private finish(f: Followed, seen: Seen, late?: string): void {
    if (this.items.get(f.key) !== f) return;
    this.items.delete(f.key);
    if (seen.how === 'socket' || (seen.how === 'listing' && seen.listed.state === 'found')) this.opts.watch?.observed(f.ticket.file);
    if (this.items.size === 0) void this.socket.close(() => this.running && this.items.size > 0);
    this.record(f.item, mediaBrowserVerdict(this.opts.server, this.opts.clock.now() - f.item.deliveredAt, seen, late));
  }

  private record(item: FollowItem, result: FollowResult): void {
    this.finishing++;
    this.track(reportFollowUp(this.done, item, result, this.opts.logger).finally(() => this.finishing--));
  }

  private track(p: Promise<void>): void {
    const guarded = p.catch((err: unknown) => this.opts.logger.error({ err: String(err) }, `following a ${this.opts.server} scan failed: ${String(err)}`));
    this.pending.add(guarded);
    void guarded.finally(() => this.pending.delete(guarded));
  }
}
