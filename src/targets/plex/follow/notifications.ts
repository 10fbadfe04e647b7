// Plex's notification socket, /:/websockets/notifications: one per Plex server, shared by every follow-up.
// It reads each NotificationContainer into typed events (every entry of a frame, not only the first) for its
// subscribers, who are also told when it opens and closes (src/http/media-socket.ts), so a follower knows when to
// fall back to polling /activities. The frame formats and their sources are in docs/targets.md, "What the servers say after a scan".
import { withBasicAuth } from '../../../http/url-credentials.js';
import type { Clock } from '../../../clock.js';
import { MediaSocket, socketUrl, type ConnectionEvent, type Dial, type Liveness, type MediaSocketOptions } from '../../../http/media-socket.js';

/** The path python-plexapi (plexapi/alert.py) and Tautulli (plexpy/web_socket.py) open. */
export const NOTIFICATIONS_PATH = '/:/websockets/notifications';

/** Timeline entries of the library carry this identifier (DVR and others carry their own). */
export const LIBRARY_IDENTIFIER = 'com.plexapp.plugins.library';

/** A scan activity: `started`, `updated` (progress), `ended`. The section id may be missing from the first. */
export interface ActivityEvent {
  kind: 'activity';
  event: 'started' | 'updated' | 'ended';
  uuid: string;
  /** e.g. library.update.section (a scan), library.refresh.items. */
  type: string;
  sectionId?: string;
  progress?: number;
  subtitle?: string;
}

/** One TimelineEntry of the library: an item created, processed or deleted. */
export interface TimelineEvent {
  kind: 'timeline';
  itemId: string;
  sectionId: string;
  /** Plex's metadata type: 1 movie, 2 show, 3 season, 4 episode, 8 artist, 9 album, 10 track, 13 photo. */
  type: number;
  /** 0 created, 1 processing (the last state without an agent), 2 matching, 3-4 metadata, 5 processed, 9 deleted. */
  state: number;
  metadataState?: string;
  mediaState?: string;
  parentItemId?: string;
  rootItemId?: string;
  title?: string;
}

export type PlexNotification = ActivityEvent | TimelineEvent | ConnectionEvent;

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
  return [
    {
      kind: 'timeline',
      itemId,
      sectionId,
      type,
      state,
      metadataState: str(entry.metadataState),
      mediaState: str(entry.mediaState),
      parentItemId: id(entry.parentItemID),
      rootItemId: id(entry.rootItemID),
      title: str(entry.title),
    },
  ];
}

export interface PlexNotificationsOptions {
  /** The server's base URL (http or https), as configured: a `user:pass@` in it goes as Basic auth, not in the URL. */
  url: string;
  token: string;
  clock: Clock;
  dial?: Dial;
  firstBackoffMs?: number;
  maxBackoffMs?: number;
  /** How the socket's life is checked (src/http/media-socket.ts LIVENESS by default). */
  liveness?: Partial<Liveness>;
  /** Scans are outstanding: the socket's life is checked at the busy pace. */
  busy?: () => boolean;
  say?: MediaSocketOptions['say'];
}

/** The notification socket of one Plex server: open while anyone may need it, shared by all subscribers. */
export class PlexNotifications extends MediaSocket<ActivityEvent | TimelineEvent> {
  /** Sections whose timeline entries a subscriber wants; unset, every frame is read. */
  private keeps?: (sectionId: string) => boolean;

  constructor(opts: PlexNotificationsOptions) {
    const { url, authorization } = socketUrl(opts.url, NOTIFICATIONS_PATH);
    // The token in a header, as Tautulli does, not in the URL as python-plexapi does: a URL ends up in logs.
    super({ ...opts, url: url.toString(), headers: withBasicAuth({ 'X-Plex-Token': opts.token, Accept: 'application/json' }, authorization) });
  }

  /** From now on, timeline frames that name only sections `keeps` refuses are dropped before they are read. */
  keepTimelineOf(keeps: (sectionId: string) => boolean): void {
    this.keeps = keeps;
  }

  protected read(text: string): void {
    if (this.keeps && unwantedTimeline(text, this.keeps)) return;
    for (const e of parseNotification(text)) this.emit(e);
  }
}
