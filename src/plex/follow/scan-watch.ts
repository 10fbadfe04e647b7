// What a Plex follower learns from the server's notification socket: which sections are scanning, each section
// scan's end with the items it touched, and whether the socket is connected at all (when it is not, the follower
// polls /activities instead). One per Plex server, shared by every follow-up of that server.
import type { Clock } from '../../clock.js';
import type { Logger } from '../../log.js';
import type { SocketStatus } from '../../scan.js';
import type { ItemCache } from './item-files.js';
import type { PlexNotifications } from './notifications.js';
import { SectionScans, type SectionScanEnded } from './scan-items.js';

export interface EndedScan extends SectionScanEnded {
  /** When the end arrived, on the follower's clock. */
  at: number;
  /** The files of its items, once read: a follow-up that arrives late reads none again. */
  items: ItemCache;
}

/**
 * Ends kept for follow-ups that arrive just after their scan ended (Plex can scan a small folder before the
 * delivery is even recorded as followed), and how many at most.
 */
const RECENT_MS = 60_000;
const RECENT_MAX = 256;

export class PlexScanWatch {
  private readonly scans: SectionScans;
  private readonly listeners = new Set<(scan: EndedScan) => void>();
  private readonly connectListeners = new Set<() => void>();
  private readonly recent: EndedScan[] = [];
  private unsubscribe?: () => void;
  /** Said once per outage, not once per retry. */
  private saidDown = false;
  /**
   * Set at each (re)connect: an `ended` may have been lost while the socket was down (or before it first
   * opened), so the follower asks /activities once before trusting the events alone.
   */
  pollDue = true;
  /** When the socket last opened; undefined while it is closed. */
  connectedSince?: number;

  constructor(
    private readonly notifications: PlexNotifications,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly where: string,
  ) {
    this.scans = new SectionScans((scan) => this.ended(scan));
  }

  get connected(): boolean {
    return this.notifications.connected;
  }

  start(): void {
    if (this.unsubscribe) return;
    this.unsubscribe = this.notifications.subscribe((e) => {
      this.scans.handle(e);
      if (e.kind !== 'connection') return;
      if (!e.connected) this.connectedSince = undefined;
      if (e.connected) {
        this.pollDue = true;
        this.connectedSince = this.clock.now();
        for (const fn of [...this.connectListeners]) fn();
        if (this.saidDown) this.logger.info(`Plex's notification socket at ${this.where} is open again; scans are followed through it.`);
        else this.logger.debug(`Plex's notification socket at ${this.where} is open.`);
        this.saidDown = false;
      } else if (!this.saidDown) {
        this.saidDown = true;
        this.logger.warn(`Plex's notification socket at ${this.where} is down (${e.why ?? 'no reason given'}); scans are followed by polling /activities until it reopens.`);
      }
    });
    this.notifications.start();
  }

  async stop(): Promise<void> {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    await this.notifications.stop();
  }

  /** The socket's state and when it last heard Plex (health). */
  status(): SocketStatus {
    return this.notifications.socket.status();
  }

  /** Scans became outstanding: the socket's life is checked at the busy pace at once. */
  heedNow(): void {
    this.notifications.socket.heedNow();
  }

  /** Sections with a scan running, as the events tell (trusted only while connected and no poll is due). */
  scanning(): Set<string> {
    return this.scans.scanning();
  }

  onEnded(fn: (scan: EndedScan) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  /** Called each time the socket (re)opens: ends heard before are no guide to what ended meanwhile. */
  onConnected(fn: () => void): () => void {
    this.connectListeners.add(fn);
    return () => this.connectListeners.delete(fn);
  }

  /** Scans of these sections that ended at or after `since` (and within the last minute), oldest first. */
  endedSince(sectionIds: ReadonlySet<string>, since: number): EndedScan[] {
    return this.recent.filter((s) => sectionIds.has(s.sectionId) && s.at >= since);
  }

  private ended(scan: SectionScanEnded): void {
    const e: EndedScan = { ...scan, at: this.clock.now(), items: new Map() };
    this.recent.push(e);
    const old = e.at - RECENT_MS;
    while (this.recent.length > RECENT_MAX || (this.recent.length && this.recent[0].at < old)) this.recent.shift();
    for (const fn of [...this.listeners]) fn(e);
  }
}
