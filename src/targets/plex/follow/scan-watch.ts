// What a Plex follower learns from the server's notification socket: which sections are scanning, each section
// scan's end with the items it touched, and whether the socket is connected at all (when it is not, the follower
// polls /activities instead). One per Plex server, shared by every follow-up of that server.
import type { Clock } from '../../../clock.js';
import type { SocketStatus } from '../../../scan.js';
import type { ItemCache } from './item-files.js';
import type { PlexNotifications } from './notifications.js';
import { SectionScans, type SectionScanEnded } from './scan-items.js';

export interface EndedScan extends SectionScanEnded {
  /** When the end arrived, on the follower's clock. */
  at: number;
  /** The files of its items, once read: a follow-up that arrives late reads none again. */
  items: ItemCache;
  /** The follow-up whose scan this was, once its items showed it (scan-ends.ts): an end is one scan's. '': none may be told. */
  owner?: string;
}

/**
 * Ends kept for follow-ups that arrive just after their scan ended (Plex can scan a small folder before the
 * delivery is even recorded as followed), and how many at most.
 */
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

export class PlexScanWatch {
  private readonly scans: SectionScans;
  private readonly listeners = new Set<(scan: EndedScan) => void>();
  private readonly connectListeners = new Set<() => void>();
  private readonly recent: EndedScan[] = [];
  /** Items held by `recent`. */
  private recentItems = 0;
  /** Sections about to be scanned, with when they were named (at most the sections refreshes were sent to). */
  private readonly expected = new Map<string, number>();
  /** The follower's answer to "is a scan of this section followed"; until it says, every section is. */
  private followed: (sectionId: string) => boolean = () => true;
  private unsubscribe?: () => void;
  /**
   * Set at each (re)connect: an `ended` may have been lost while the socket was down (or before it first
   * opened), so the follower asks /activities once before trusting the events alone.
   */
  pollDue = true;

  constructor(
    private readonly notifications: PlexNotifications,
    private readonly clock: Clock,
  ) {
    this.scans = new SectionScans((scan) => this.ended(scan), { follows: (id) => this.keeps(id), now: () => clock.now() });
    // A frame of other sections' entries is not even parsed; one that mixes them has the others dropped by `scans`.
    notifications.keepTimelineOf((id) => this.keeps(id));
  }

  get connected(): boolean {
    return this.notifications.connected;
  }

  /** When the socket last opened; undefined while it is closed. */
  get connectedSince(): number | undefined {
    return this.notifications.connectedSince;
  }

  start(): void {
    if (this.unsubscribe) return;
    this.unsubscribe = this.notifications.subscribe((e) => {
      this.scans.handle(e);
      if (e.kind !== 'connection' || !e.connected) return;
      this.pollDue = true;
      for (const fn of [...this.connectListeners]) fn();
    });
    this.notifications.start();
  }

  async stop(): Promise<void> {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    await this.notifications.stop();
  }

  /** The socket's state and when it last had a frame from Plex (health). */
  status(): SocketStatus {
    return this.notifications.status();
  }

  /** Scans became outstanding: the socket's life is checked at the busy pace at once. */
  heedNow(): void {
    this.notifications.heedNow();
  }

  /** Sections with a scan running, as the events tell (trusted only while connected and no poll is due). */
  scanning(): Set<string> {
    return this.scans.scanning();
  }

  /** The follower says which sections it follows: only their timeline entries are kept (scan-items.ts). */
  followedBy(follows: (sectionId: string) => boolean): void {
    this.followed = follows;
  }

  /** Refreshes of these sections are about to be sent: their entries are kept from now, for EXPECTED_MS. */
  expect(sectionIds: readonly string[]): void {
    for (const id of sectionIds) this.expected.set(id, this.clock.now());
  }

  /** What the socket holds now, for the bounds' tests (scan-items.ts's, and the ends kept here). */
  held(): ReturnType<SectionScans['held']> & { ends: number; endItems: number } {
    return { ...this.scans.held(), ends: this.recent.length, endItems: this.recentItems };
  }

  onEnded(fn: (scan: EndedScan) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  /** Called each time the socket (re)opens: ends seen before are no guide to what ended meanwhile. */
  onConnected(fn: () => void): () => void {
    this.connectListeners.add(fn);
    return () => this.connectListeners.delete(fn);
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
    if (this.clock.now() - at < EXPECTED_MS) return true;
    this.expected.delete(sectionId);
    return false;
  }

  private ended(scan: SectionScanEnded): void {
    const e: EndedScan = { ...scan, at: this.clock.now(), items: new Map() };
    this.recent.push(e);
    this.recentItems += e.touched.length;
    const old = e.at - RECENT_MS;
    while (this.recent.length > 1 && (this.recent.length > RECENT_MAX || this.recentItems > RECENT_ITEMS || this.recent[0].at < old)) {
      this.recentItems -= this.recent.shift()!.touched.length;
    }
    for (const fn of [...this.listeners]) fn(e);
  }
}
