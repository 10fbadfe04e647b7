// Follows the scans one Jellyfin or Emby server accepted, on the follow-up engine (src/follow/engine.ts): this is
// its observer, which turns what the server says into events and decides nothing (follow-up.ts's `nextStep` does):
//  - the socket: when the token belongs to a user, the server sends LibraryChanged about 30 s after its last
//    change; an added or updated item whose Path is the file confirms it, an item removed a deleted folder's;
//  - its looks: the libraries' RefreshStatus, then the refreshed folder listed (a deleted folder's item looked up).
import { MEDIABROWSER_USER } from '../../http/answer-caps.js';
import type { ApiCaller } from '../../http/api-call.js';
import type { Clock } from '../../clock.js';
import type { Logger } from '../../log/logger.js';
import { FollowEngine, type Moment } from '../../follow/engine.js';
import type { FollowItem, Library } from '../../scan.js';
import { sameForm, trimTrailingSeparator } from '../../paths/folder.js';
import { version } from '../../version.js';
import type { LibraryList } from '../library-list.js';
import { holdsFile, listFolder, pathsOfItems, readRefreshStates, stillListed } from './confirm.js';
import { apply, FOLLOW_TIMINGS, nextStep, verdictOf, type MediaBrowserEvent, type MediaBrowserFollowUp, type MediaBrowserMoment } from './follow-up.js';
import type { Located } from './locate.js';
import type { MediaBrowserScans } from './scan.js';
import { MediaBrowserSocket, serverName, type LibraryChangedEvent, type MediaBrowserKind } from './socket.js';
import { isTicket } from './verdict.js';

export interface MediaBrowserFollowerOptions {
  server: string;
  api: ApiCaller;
  clock: Clock;
  logger: Logger;
  /** The library list whose RefreshStatus says when a library's refresh is over (Jellyfin's /Library/VirtualFolders). */
  librariesPath: string;
  /** The deepest folder item holding a folder, asked now (the target's locator). */
  locate(folder: string): Promise<Located | undefined>;
  socket?: MediaBrowserSocket;
  /** The target's scans: its targeted refreshes not yet seen to run (`watch`), when a change under some libraries last went to the library monitor (media-updated: each restarts its timer). */
  scans?: Pick<MediaBrowserScans, 'watch' | 'lastMonitorChange'>;
}

/**
 * Item ids of LibraryChanged waiting while their paths are read, at most (a real message names a few dozen): past
 * it, ids are dropped, and a file among them is confirmed by the listing, as when no message comes at all.
 */
const CHANGED_IDS_WAITING = 5_000;

export class MediaBrowserFollower extends FollowEngine<MediaBrowserFollowUp, MediaBrowserEvent, MediaBrowserMoment, 'ask' | 'list'> {
  /** Ids LibraryChanged named, waiting for the read under way: one read at a time, however fast messages come. */
  private readonly changed = new Set<string>();
  private readingChanged = false;

  constructor(private readonly opts: MediaBrowserFollowerOptions) {
    super({ server: opts.server, clock: opts.clock, logger: opts.logger, intervalMs: FOLLOW_TIMINGS.pollMs, judge: { apply, nextStep, verdict: (f, m) => verdictOf(opts.server, f, m) } });
    opts.socket?.subscribe((e) => e.kind === 'library-changed' && this.onChanged(e));
  }

  /** The server's item at a folder about to be deleted (its own, not an ancestor's): what a delete's follow-up looks for. */
  async itemsAt(folder: string): Promise<string[]> {
    const located = await this.opts.locate(folder).catch(() => undefined);
    return located && !located.isLibraryRoot && sameForm(trimTrailingSeparator(located.item.path), trimTrailingSeparator(folder), folder) ? [located.item.id] : [];
  }

  /** Its websocket's state, unless the token is known to be an API key's (never opened then) (health). */
  socketStatus() {
    return this.opts.socket?.usable ? this.opts.socket.status() : undefined;
  }

  protected begin(item: FollowItem, key: string, { now }: Moment): MediaBrowserFollowUp | { state: 'scanned'; detail: string } {
    // A ticket this version cannot read (written by another one): nothing to follow, the scan stands.
    if (!isTicket(item.ticket)) return { state: 'scanned', detail: `${this.opts.server} took the scan; its follow-up could not be read.` };
    return { key, item, ticket: item.ticket, followedAt: now };
  }

  protected moment(m: Moment): MediaBrowserMoment {
    const socketSince = this.opts.socket?.usable ? this.opts.socket.connectedSince : undefined;
    return { ...m, timings: FOLLOW_TIMINGS, startedAt: this.startedAt, socketSince, lastMonitorChange: (libraries) => this.opts.scans?.lastMonitorChange(libraries) };
  }

  protected followed(): void {
    this.opts.socket?.openWhile(() => this.following);
  }

  protected open(): void {
    if (this.values().length) this.followed();
  }

  protected ended(f: MediaBrowserFollowUp, left: number): void {
    const seen = f.seen;
    if (seen?.how === 'socket' || (seen?.how === 'listing' && seen.listed.state === 'found')) this.opts.scans?.watch.observed(f.ticket.file);
    if (left === 0) void this.opts.socket?.closeUnless(() => this.following);
  }

  protected async close(): Promise<void> {
    await this.opts.socket?.closeUnless();
  }

  protected async look(kind: 'ask' | 'list', followUps: MediaBrowserFollowUp[], m: MediaBrowserMoment): Promise<void> {
    if (kind === 'list') return void (await Promise.all(followUps.map((f) => this.list(f, m))));
    // Active while one of its folders is validated, Queued while its item waits in the refresh queue.
    const states = await readRefreshStates(this.opts.api, this.opts.librariesPath);
    const queueBusy = !!states && [...states.values()].some((s) => s !== 'Idle');
    for (const f of followUps) {
      const busy = !!states && f.ticket.libraries.some((id) => states.get(id) !== undefined && states.get(id) !== 'Idle');
      this.tell(f, { kind: 'refresh', look: m.look, busy, queueBusy });
    }
  }

  /** Lists the refreshed folder once (a delete's: is the item still there, GET /Items?Ids=…). */
  private async list(f: MediaBrowserFollowUp, m: MediaBrowserMoment): Promise<void> {
    this.tell(f, { kind: 'looking', look: m.look, at: m.now });
    try {
      const removed = f.ticket.removed?.ids;
      if (removed) {
        const left = await stillListed(this.opts.api, removed);
        return this.tell(f, { kind: 'seen', seen: left === undefined ? { how: 'removed', by: 'lookup' } : { how: 'still-listed', path: left } });
      }
      const located = await this.opts.locate(f.ticket.folder);
      const listed = await listFolder(this.opts.api, located, f.ticket.file);
      // Missing (or, for a folder with no item of its own, not among the newest): a refresh may still wait in the
      // server's queue, perhaps this one behind it. A walk the monitor queued reads Idle until it runs (J6), but
      // whatever it waits behind shows, and so do our targeted refreshes not yet seen to run.
      const missing = listed.state === 'absent' || (listed.state === 'unknown' && located?.isLibraryRoot === true);
      if (missing && !f.refresh?.queueBusy) await this.opts.scans?.watch.check().catch(() => undefined);
      const queueBusy = missing && (!!f.refresh?.queueBusy || !!this.opts.scans?.watch.busy());
      this.tell(f, { kind: 'seen', seen: { how: 'listing', listed }, missing, queueBusy });
    } catch (err) {
      this.tell(f, { kind: 'failed', error: String((err as Error).message ?? err), at: this.opts.clock.now() });
    }
  }

  private onChanged(e: LibraryChangedEvent): void {
    const removed = new Set(e.removed);
    for (const f of this.values()) if (f.ticket.removed?.ids.some((id) => removed.has(id))) this.tell(f, { kind: 'seen', seen: { how: 'removed', by: 'socket' } });
    if (!this.values().length) return;
    for (const id of [...e.added, ...e.updated]) {
      if (this.changed.size >= CHANGED_IDS_WAITING) break;
      this.changed.add(id);
    }
    if (this.changed.size && !this.readingChanged) this.track(this.readChanged());
  }

  /** The ids named so far, in batches, until none wait or nothing is followed any more. */
  private async readChanged(): Promise<void> {
    this.readingChanged = true;
    try {
      while (this.changed.size && this.values().length) {
        const ids = [...this.changed];
        this.changed.clear();
        const paths = await pathsOfItems(this.opts.api, ids).catch((err: unknown) => {
          this.opts.logger.warn({ err: String(err) }, `could not read the paths of the items ${this.opts.server} said changed (${String(err)}); their files are confirmed by listing`);
          return new Map<string, string>();
        });
        const found = [...paths.values()];
        for (const f of this.values()) if (found.some((p) => holdsFile(p, f.ticket.file))) this.tell(f, { kind: 'seen', seen: { how: 'socket' } });
      }
    } finally {
      this.changed.clear();
      this.readingChanged = false;
    }
  }
}

/** The follower of a Jellyfin or Emby target, from its own parts: the listing finds the refreshed folder's item as the scan did. */
export function mediaBrowserFollower(server: { kind: MediaBrowserKind; librariesPath: string; name: string; url: string; token: string }, parts: { api: ApiCaller; clock: Clock; log: Logger; scans: MediaBrowserScans; list: LibraryList<Library> }): MediaBrowserFollower {
  const { api, clock, log: logger, scans, list } = parts;
  const name = serverName(server.kind);
  const say = { logger, name: `${name}'s websocket`, meanwhile: 'delivered files are confirmed by listing their folder' };
  const tokenHasUser = server.kind === 'jellyfin' ? () => jellyfinTokenHasUser(api) : undefined;
  // deviceId: stable per target, the server keys the socket's session on it, across our restarts too.
  const socket = new MediaBrowserSocket({ kind: server.kind, url: server.url, token: server.token, deviceId: `scanrelay-${server.name}`, version, clock, say, tokenHasUser });
  const locate = async (folder: string) => scans.locateFolder((await list.get({ holding: folder })).map((l) => ({ id: l.id, name: l.title, locations: l.locations })), folder);
  return new MediaBrowserFollower({ server: name, api, clock, logger, librariesPath: server.librariesPath, locate, socket, scans });
}

/**
 * Jellyfin's GET /Users/Me answers the token's user, and 400 "Token is not owned by a user" for an API key
 * (jellyfin@c3ed140 Jellyfin.Api/Controllers/UserController.cs L575-600). Anything else: not known.
 */
export async function jellyfinTokenHasUser(api: ApiCaller): Promise<boolean | undefined> {
  const answer = await api.call('GET', '/Users/Me', { cap: MEDIABROWSER_USER, anyStatus: true });
  await answer.body?.cancel();
  if (answer.status >= 200 && answer.status < 300) return true;
  return answer.status === 400 ? false : undefined;
}
