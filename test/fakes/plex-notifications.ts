// The fake Plex's notification socket, /:/websockets/notifications, on the fake's own HTTP server (its `upgrade`
// event). When the fake's scan starts it sends an `activity` started (without the section, as Plex does at
// first) and an `updated` naming it; when the scan ends, a `timeline` frame with one `TimelineEntry` per item the
// scan added (state 0, "created"), the `activity` ended, then the items' state-5 entries. Frame shapes follow
// test/fixtures/plex/notifications (sources in test/fixtures/README.md). The added items also answer
// GET /library/metadata/{ratingKey} with their file (Media → Part → file), through the fake's metadata routes.
//
// It hooks the fake from outside, through its public members (the `activities` and `finishedScans` arrays and
// addToLibrary), so FakePlex itself needs no change beyond its server being reachable.
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import type { FakeActivity, FakePlex, LibraryItem } from './plex.js';

export const NOTIFICATIONS_PATH = '/:/websockets/notifications';

/** Plex's metadata type numbers (python-plexapi plexapi/utils.py SEARCHTYPES) for the fake's section types. */
const ITEM_TYPE: Record<string, { number: number; name: 'movie' | 'episode' }> = {
  movie: { number: 1, name: 'movie' },
  show: { number: 4, name: 'episode' },
};

export interface UpgradeSeen {
  path: string;
  /** How the token came: the X-Plex-Token header, the query string, or not at all. */
  tokenVia: 'header' | 'query' | 'none';
  accepted: boolean;
}

type Outgoing = { kind: 'start'; activity: FakeActivity } | { kind: 'end'; activity: FakeActivity; items: LibraryItem[] };

export class FakePlexNotifications {
  readonly upgrades: UpgradeSeen[] = [];
  /** Every frame sent to the open sockets, in order. */
  readonly frames: string[] = [];
  /** Bytes of the frames sent (each frame counted once per socket it went to). */
  bytesSent = 0;
  /** Answer upgrades with this status instead (a proxy that drops websockets). */
  refuseUpgrades?: number;
  /**
   * Send a scan's `updated` (the first frame naming its section) this many ms after its `started`: between two
   * of a section's scans the events then show it idle for that long, as when Plex takes a moment to announce the
   * next scan (its `started` names no section either).
   */
  sectionNamedAfterMs = 0;
  /**
   * Send a scan's state-5 ("processed") entries this many ms after its end, as a real Plex does once its agents
   * have matched and read the new items (the state codes: python-plexapi plexapi/alert.py L17-27); 0: at once.
   */
  processedAfterMs = 0;
  private readonly wss = new WebSocketServer({ noServer: true });
  /** Sockets made silent (silence()): they hear nothing and answer no ping. */
  private readonly muted = new WeakSet<WebSocket>();
  private muteNew = false;
  private pongsWhileMuted = false;
  private readonly running: FakeActivity[] = [];
  private outbox: Outgoing[] = [];
  private ending?: Outgoing & { kind: 'end' };
  private flushQueued = false;

  constructor(private readonly plex: FakePlex) {
    if (!plex.server) throw new Error('start the fake Plex before attaching its notification socket');
    plex.server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => this.upgrade(req, socket, head));
    const activities = plex.activities;
    const push = activities.push.bind(activities);
    activities.push = (...started: FakeActivity[]) => {
      for (const a of started) this.started(a);
      return push(...started);
    };
    const finished = plex.finishedScans;
    const pushFinished = finished.push.bind(finished);
    finished.push = (...ended: { section: string; path: string }[]) => {
      for (const e of ended) this.ended(e);
      return pushFinished(...ended);
    };
    const add = plex.addToLibrary.bind(plex);
    plex.addToLibrary = (file: string, parentRatingKey?: string) => {
      const item = add(file, parentRatingKey);
      this.added(item);
      return item;
    };
  }

  /** Sockets open now. */
  get clients(): number {
    return this.wss.clients.size;
  }

  /**
   * A fault injected, not Plex's normal behaviour: the sockets open now stay connected but hear nothing and answer
   * no ping, as when a NAT or proxy dropped the flow, Plex's notifier hung or a laptop slept. `reconnects`: what
   * a socket opened later does: as silent (the notifier still hung), or as a live Plex's (the flow was the fault).
   * `pings: 'answered'`: the network layer still answers pings (a notifier that hung in a live server).
   */
  silence(reconnects: 'silent' | 'live' = 'silent', pings: 'unanswered' | 'answered' = 'unanswered'): void {
    this.pongsWhileMuted = pings === 'answered';
    for (const ws of this.wss.clients) this.mute(ws);
    this.muteNew = reconnects === 'silent';
  }

  /** Sockets the server holds open, silent ones included. */
  get silentClients(): number {
    return [...this.wss.clients].filter((ws) => this.muted.has(ws)).length;
  }

  /** Drops every socket at once, as a Plex restart or a proxy timeout does. */
  dropAll(): void {
    for (const ws of this.wss.clients) ws.terminate();
  }

  /**
   * Sends a frame of the test's own to every open socket (a chatty or hostile Plex), not kept in `frames`: a
   * flood of them would hold the test's memory. Resolves once the socket has handed it to the kernel, so a
   * sender that awaits each frame is paced by the reader.
   */
  sendRaw(frame: string): Promise<void> {
    const sent = [...this.wss.clients].filter((ws) => ws.readyState === ws.OPEN).map((ws) => new Promise<void>((resolve) => ws.send(frame, () => resolve())));
    return Promise.all(sent).then(() => undefined);
  }

  async close(): Promise<void> {
    this.dropAll();
    await new Promise<void>((resolve) => this.wss.close(() => resolve()));
  }

  private upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const u = new URL(req.url ?? '/', 'http://x');
    const header = req.headers['x-plex-token'] as string | undefined;
    const query = u.searchParams.get('X-Plex-Token') ?? undefined;
    const tokenVia = header !== undefined ? 'header' : query !== undefined ? 'query' : 'none';
    const refuse = (status: number, text: string) => {
      this.upgrades.push({ path: u.pathname, tokenVia, accepted: false });
      socket.end(`HTTP/1.1 ${status} ${text}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
    };
    if (this.refuseUpgrades) return refuse(this.refuseUpgrades, 'Refused');
    if (u.pathname !== NOTIFICATIONS_PATH) return refuse(404, 'Not Found');
    if ((header ?? query) !== this.plex.token) return refuse(401, 'Unauthorized');
    this.upgrades.push({ path: u.pathname, tokenVia, accepted: true });
    this.wss.handleUpgrade(req, socket, head, (ws: WebSocket) => {
      ws.on('error', () => ws.terminate());
      if (this.muteNew) this.mute(ws);
    });
  }

  /** Sends it nothing, and reads nothing more from it (so no ping is answered) unless pongs go on. */
  private mute(ws: WebSocket): void {
    this.muted.add(ws);
    if (!this.pongsWhileMuted) ws.pause();
  }

  private started(activity: FakeActivity): void {
    this.running.push(activity);
    this.ending = undefined;
    this.queue({ kind: 'start', activity });
  }

  private ended(scan: { section: string; path: string }): void {
    const i = this.running.findIndex((a) => a.section === scan.section && a.path === scan.path);
    if (i < 0) return;
    const [activity] = this.running.splice(i, 1);
    // The items the fake adds next, in the same turn, are this scan's.
    this.ending = { kind: 'end', activity, items: [] };
    this.queue(this.ending);
  }

  private added(item: LibraryItem): void {
    const section = this.ending?.activity.section ?? this.sectionOf(item.file);
    const type = ITEM_TYPE[this.plex.sections.find((s) => s.key === section)?.type ?? 'movie'] ?? ITEM_TYPE.movie;
    this.plex.meta.addMetadata({ ratingKey: item.ratingKey, type: type.name, title: titleOf(item.file), guid: `plex://${type.name}/${item.ratingKey}`, files: [item.file], parentRatingKey: item.parentRatingKey });
    this.ending?.items.push(item);
  }

  private sectionOf(file: string): string | undefined {
    return this.plex.sections.find((s) => s.locations.some((l) => file.startsWith(l.endsWith('/') ? l : `${l}/`)))?.key;
  }

  /** Frames go out at the end of the turn, in order, once the ending scan's items are all known. */
  private queue(o: Outgoing): void {
    this.outbox.push(o);
    if (this.flushQueued) return;
    this.flushQueued = true;
    queueMicrotask(() => this.flush());
  }

  private flush(): void {
    this.flushQueued = false;
    this.ending = undefined;
    const out = this.outbox;
    this.outbox = [];
    for (const o of out) {
      const a = o.activity;
      if (o.kind === 'start') {
        this.send(activityFrame('started', a, this.title(a), 0, false));
        const updated = activityFrame('updated', a, this.title(a), 1, true);
        if (this.sectionNamedAfterMs > 0) setTimeout(() => this.running.includes(a) && this.send(updated), this.sectionNamedAfterMs);
        else this.send(updated);
        continue;
      }
      const type = ITEM_TYPE[this.plex.sections.find((s) => s.key === a.section)?.type ?? 'movie'] ?? ITEM_TYPE.movie;
      if (o.items.length) this.send(timelineFrame(a.section, type.number, o.items, 0));
      this.send(activityFrame('ended', a, this.title(a), 100, true));
      if (!o.items.length) continue;
      const processed = timelineFrame(a.section, type.number, o.items, 5);
      if (this.processedAfterMs > 0) setTimeout(() => this.send(processed), this.processedAfterMs);
      else this.send(processed);
    }
  }

  private title(a: FakeActivity): string {
    return `Scanning ${this.plex.sections.find((s) => s.key === a.section)?.title ?? ''}`;
  }

  private send(frame: string): void {
    this.frames.push(frame);
    for (const ws of this.wss.clients) {
      if (ws.readyState !== ws.OPEN || this.muted.has(ws)) continue;
      this.bytesSent += Buffer.byteLength(frame);
      ws.send(frame);
    }
  }
}

/** Attaches the notification socket to a started FakePlex. */
export function attachPlexNotifications(plex: FakePlex): FakePlexNotifications {
  return new FakePlexNotifications(plex);
}

function activityFrame(event: 'started' | 'updated' | 'ended', a: FakeActivity, title: string, progress: number, withContext: boolean): string {
  const Activity = {
    uuid: a.uuid,
    type: a.type,
    cancellable: false,
    userID: 1,
    title,
    subtitle: event === 'started' ? '' : a.path.slice(a.path.lastIndexOf('/') + 1),
    progress,
    ...(withContext ? { Context: { accessible: true, analyzed: false, exists: true, key: `/library/sections/${a.section}`, librarySectionID: a.section, refreshed: false } } : {}),
  };
  return JSON.stringify({ NotificationContainer: { type: 'activity', size: 1, ActivityNotification: [{ event, uuid: a.uuid, Activity }] } });
}

function timelineFrame(section: string, type: number, items: LibraryItem[], state: 0 | 5): string {
  const updatedAt = Math.floor(Date.now() / 1000);
  const TimelineEntry = items.map((i) => ({
    identifier: 'com.plexapp.plugins.library',
    sectionID: section,
    itemID: i.ratingKey,
    ...(i.parentRatingKey ? { parentItemID: i.parentRatingKey } : {}),
    type,
    title: titleOf(i.file),
    state,
    ...(state === 0 ? { metadataState: 'created' } : {}),
    updatedAt,
  }));
  return JSON.stringify({ NotificationContainer: { type: 'timeline', size: TimelineEntry.length, TimelineEntry } });
}

const titleOf = (file: string): string => file.slice(file.lastIndexOf('/') + 1).replace(/\.[^.]+$/, '');
