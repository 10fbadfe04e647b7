// Plex's notification socket, /:/websockets/notifications: one per Plex server, shared by every follow-up. It reads
// each NotificationContainer into typed events (every entry of a frame, not only the first) and tells a follower
// which sections are scanning, each section scan's end with the items it touched (scan-items.ts), and whether the
// socket is connected at all (when it is not, the follower polls /activities instead; src/http/media-socket.ts).
// The frame formats and their sources are in docs/targets.md, "What the servers say after a scan".
import { withBasicAuth } from '../../../http/url-credentials.js';
import { MediaSocket, socketUrl, type MediaSocketOptions } from '../../../http/media-socket.js';
import { SectionScans, type ActivityEvent, type ItemCache, type SectionScanEnded, type TimelineEvent } from './scan-items.js';

/** The path python-plexapi (plexapi/alert.py) and Tautulli (plexpy/web_socket.py) open. */
export const NOTIFICATIONS_PATH = '/:/websockets/notifications';

/** Timeline entries of the library carry this identifier (DVR and others carry their own). */
export const LIBRARY_IDENTIFIER = 'com.plexapp.plugins.library';

const id = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : typeof v === 'number' && Number.isFinite(v) ? String(v) : undefined);
const num = (v: unknown): number | undefined => (typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v)) ? Number(v) : undefined);
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/**
 * The events of one frame. Unknown types (playing, reachability, …) and malformed entries give nothing, so a
 * new kind of message from a newer Plex never breaks the socket. Ids arrive as strings or numbers: both read.
 */
export function parseNotification(text: string): (ActivityEvent | TimelineEvent)[] {
  let frame: unknown;
  try {
    frame = JSON.parse(text);
  } catch {
    return [];
  }
  const container = (frame as { NotificationContainer?: Record<string, unknown> } | null)?.NotificationContainer;
  if (!container || typeof container !== 'object') return [];
  if (container.type === 'activity') return list(container.ActivityNotification).flatMap(activity);
  if (container.type === 'timeline') return list(container.TimelineEntry).flatMap(timeline);
  return [];
}

/** A timeline frame as Plex writes it (the container's type first); a frame of any other shape is parsed in full. */
const TIMELINE_FRAME = /^\s*\{\s*"NotificationContainer"\s*:\s*\{\s*"type"\s*:\s*"timeline"/;
/** Each entry's sectionID: a string, a number, or something else (then the frame is parsed). */
const SECTION_ID = /"sectionID"\s*:\s*(?:"([^"\\]*)"|(-?\d+)(?![\d.eE]))?/g;

/**
 * A timeline frame whose every entry names a section `keeps` refuses: dropped unread, for a tenth of what parsing
 * it costs. Plex sends such frames all day for its agents' and scheduled tasks' refreshes, a hostile one without
 * end. A frame of another shape, or with an entry whose section this cannot read, is parsed as usual.
 */
export function unwantedTimeline(text: string, keeps: (sectionId: string) => boolean): boolean {
  if (!TIMELINE_FRAME.test(text)) return false;
  let entries = 0;
  for (const m of text.matchAll(SECTION_ID)) {
    const section = m[1] ?? m[2];
    if (section === undefined || keeps(section)) return false;
    entries++;
  }
  return entries > 0;
}

const list = (v: unknown): Record<string, unknown>[] => (Array.isArray(v) ? v.filter((e): e is Record<string, unknown> => !!e && typeof e === 'object') : []);

function activity(entry: Record<string, unknown>): ActivityEvent[] {
  const event = entry.event;
  if (event !== 'started' && event !== 'updated' && event !== 'ended') return [];
  const act = (entry.Activity ?? {}) as Record<string, unknown>;
  const uuid = id(entry.uuid) ?? id(act.uuid);
  if (!uuid) return [];
  const context = (act.Context && typeof act.Context === 'object' ? act.Context : {}) as Record<string, unknown>;
  return [{ kind: 'activity', event, uuid, type: str(act.type) ?? '', sectionId: id(context.librarySectionID), progress: num(act.progress), subtitle: str(act.subtitle) }];
}

function timeline(entry: Record<string, unknown>): TimelineEvent[] {
  // Tautulli's rule (activity_handler.py): only library entries that name an item.
  if ((entry.identifier ?? LIBRARY_IDENTIFIER) !== LIBRARY_IDENTIFIER) return [];
  const itemId = id(entry.itemID);
  const sectionId = id(entry.sectionID);
  const state = num(entry.state);
  const type = num(entry.type);
  if (!itemId || !sectionId || Number(sectionId) <= 0 || state === undefined || type === undefined) return [];
  const [metadataState, mediaState, title] = [str(entry.metadataState), str(entry.mediaState), str(entry.title)];
  return [{ kind: 'timeline', itemId, sectionId, type, state, metadataState, mediaState, parentItemId: id(entry.parentItemID), rootItemId: id(entry.rootItemID), title }];
}

export interface PlexNotificationsOptions extends Omit<MediaSocketOptions, 'url' | 'headers'> {
  /** The server's base URL (http or https), as configured: a `user:pass@` in it goes as Basic auth, not in the URL. */
  url: string;
  token: string;
}

export interface EndedScan extends SectionScanEnded {
  /** When the end arrived, on the follower's clock. */
  at: number;
  /** The files of its items, once read: a follow-up that arrives late reads none again. */
  items: ItemCache;
  /** The follow-up whose scan this was, once its items showed it (scan-ends.ts): an end is one scan's. '': none may be told. */
  owner?: string;
}

/** Ends kept for follow-ups that arrive just after their scan ended (Plex can scan a small folder before the delivery is even recorded as followed), and how many at most. */
const RECENT_MS = 60_000;
const RECENT_MAX = 256;
/**
 * Items the kept ends hold in all (about 2 MB): a scan's end carries up to MAX_TOUCHED of them, and a server
 * that ends scan after scan of a followed section must not make 256 of those stay. The newest end is always kept.
 */
const RECENT_ITEMS = 20_000;
/**
 * How long a section's timeline entries are kept after a refresh of it was sent, before any follow-up of it is
 * recorded: Plex can scan a small folder before it answers the refresh, and the delivery is recorded within a
 * group commit; a minute is far past either.
 */
const EXPECTED_MS = 60_000;

export class PlexNotifications extends MediaSocket<ActivityEvent | TimelineEvent> {
  /** What the events tell of the sections' scans (scan-items.ts): which run is trusted only while connected and no poll is due. */
  readonly scans: SectionScans;
  private readonly listeners = new Set<(scan: EndedScan) => void>();
  private readonly recent: EndedScan[] = [];
  /** Items held by `recent`. */
  private recentItems = 0;
  /** Sections about to be scanned, with when they were named (at most the sections refreshes were sent to). */
  private readonly expected = new Map<string, number>();
  /** The follower's answer to "is a scan of this section followed"; until it says, every section is. */
  private followed: (sectionId: string) => boolean = () => true;
  /**
   * Set at each (re)connect: an `ended` may have been lost while the socket was down (or before it first
   * opened), so the follower asks /activities once before trusting the events alone.
   */
  pollDue = true;

  constructor(private readonly plex: PlexNotificationsOptions) {
    const { url, authorization } = socketUrl(plex.url, NOTIFICATIONS_PATH);
    // The token in a header, as Tautulli does, not in the URL as python-plexapi does: a URL ends up in logs.
    super({ ...plex, url: url.toString(), headers: withBasicAuth({ 'X-Plex-Token': plex.token, Accept: 'application/json' }, authorization) });
    this.scans = new SectionScans((scan) => this.ended(scan), { follows: (id) => this.keeps(id), now: () => plex.clock.now() });
    this.subscribe((e) => {
      this.scans.handle(e);
      if (e.kind === 'connection' && e.connected) this.pollDue = true;
    });
  }

  /** Only the timeline entries of sections the follower follows are kept (scan-items.ts). */
  followedBy(follows: (sectionId: string) => boolean): void {
    this.followed = follows;
  }

  /** Refreshes of these sections are about to be sent: their entries are kept from now, for EXPECTED_MS. */
  expect(sectionIds: readonly string[]): void {
    for (const id of sectionIds) this.expected.set(id, this.plex.clock.now());
  }

  /** What the socket holds now, for the bounds' tests (scan-items.ts's, and the ends kept here). */
  held(): ReturnType<SectionScans['held']> & { ends: number; endItems: number } {
    return { ...this.scans.held(), ends: this.recent.length, endItems: this.recentItems };
  }

  onEnded(fn: (scan: EndedScan) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  /** Scans of these sections that ended at or after `since` (and within the last minute), oldest first. */
  endedSince(sectionIds: ReadonlySet<string>, since: number): EndedScan[] {
    return this.recent.filter((s) => sectionIds.has(s.sectionId) && s.at >= since);
  }

  /** A scan of this section is followed, or a refresh of it was just sent: its entries are kept. */
  keeps(sectionId: string): boolean {
    if (this.followed(sectionId)) return true;
    const at = this.expected.get(sectionId);
    if (at === undefined) return false;
    if (this.plex.clock.now() - at < EXPECTED_MS) return true;
    this.expected.delete(sectionId);
    return false;
  }

  /** A frame of other sections' entries only is not even parsed; one that mixes them has the others dropped by `scans`. */
  protected read(text: string): void {
    if (unwantedTimeline(text, (id) => this.keeps(id))) return;
    for (const e of parseNotification(text)) this.emit(e);
  }

  private ended(scan: SectionScanEnded): void {
    const e: EndedScan = { ...scan, at: this.plex.clock.now(), items: new Map() };
    this.recent.push(e);
    this.recentItems += e.touched.length;
    const old = e.at - RECENT_MS;
    while (this.recent.length > 1 && (this.recent.length > RECENT_MAX || this.recentItems > RECENT_ITEMS || this.recent[0].at < old)) {
      this.recentItems -= this.recent.shift()!.touched.length;
    }
    for (const fn of [...this.listeners]) fn(e);
  }
}
