// What one section's scan did, from the notification events: the items its timeline entries created, updated
// or deleted, handed over when the section's scan activity ends; then the files of those items, one metadata
// request each: GET /library/metadata/{ratingKey} → Metadata[0].Media[].Part[].file (the absolute path as Plex
// sees it; python-plexapi plexapi/media.py MediaPart.file). One small answer per item, where the undocumented
// `/library/sections/{id}/all?file=` may answer with a whole section: a follower never lists a section for it.
import { PLEX_ITEM } from '../../../http/answer-caps.js';
import { ANSWER_TOO_LARGE, ApiRefusal } from '../../../http/api-call.js';
import type { ConnectionEvent } from '../../../http/media-socket.js';
import type { PlexApi } from '../api.js';

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

/** The activity of a library scan (a partial scan is one too); `library.refresh.items` is metadata work after it. */
export const SCAN_ACTIVITY = 'library.update.section';

/** Timeline states (python-plexapi plexapi/alert.py): 0 created … 5 processed; 9 deleted. */
export const STATE_CREATED = 0;
export const STATE_DELETED = 9;

/** Metadata types whose items hold files (Media → Part): movie, episode, clip, track, photo; shows, seasons, artists and albums do not. */
const TYPES_WITH_FILES = new Set([1, 4, 10, 12, 13]);

export interface TouchedItem {
  ratingKey: string;
  type: number;
  /** A state-0 entry was seen: new to the library, not an existing item processed again. */
  created: boolean;
}

export interface SectionScanEnded {
  sectionId: string;
  uuid: string;
  /** Items created or updated since the section's previous scan ended (or since watching began). */
  touched: TouchedItem[];
  /** Item ids a state-9 entry deleted in the same span. */
  deleted: string[];
  /** Its `started` or `updated` came through this socket: the scan began after the socket opened. */
  startSeen: boolean;
}

/** Items handed over as created, remembered so their later processing entries are not a second change. */
const REMEMBERED = 10_000;

/**
 * Items kept per followed section until its scan ends (past it, the first seen is dropped): about 0.5 MB. A partial
 * scan touches a few dozen at most, but the agents' refreshes in that section are kept too. A file among those
 * dropped is judged as any file the events did not show: by the database, or `scanned`.
 */
export const MAX_TOUCHED = 5_000;
/** Deleted ids kept per followed section (handed over, never looked up): the same reasoning, fewer needed. */
export const MAX_DELETED = 1_000;
/** Scan activities known to run, at most (Plex runs one per section at most); past it the oldest seen is forgotten. */
export const MAX_RUNNING = 64;
/**
 * A scan activity nothing was seen of for this long is forgotten: Plex sends `updated` with a scan's progress, so
 * one silent for ten minutes ended unseen, and its section must not look busy for ever (twice PLEX_CONFIRM_TIMEOUT's default).
 */
export const RUNNING_SILENT_MS = 10 * 60_000;

/**
 * Feed it every notification; it calls `ended` once per section scan that ends. A followed section's timeline
 * entries (`follows`; every section's by default) are kept until its next scan end, so entries before the scan's
 * `started` (or before Plex names the activity's section, a little into the scan) still count. Other sections' are
 * dropped as they come.
 */
export class SectionScans {
  /** Scan activities by uuid, with their section once a frame named it; oldest seen first. */
  private readonly activities = new Map<string, { section?: string; seenAt: number }>();
  private readonly pending = new Map<string, { touched: Map<string, TouchedItem>; deleted: Set<string> }>();
  /** Items handed over as created: Plex goes on processing them (states 1-5) after the scan ended. */
  private readonly reported = new Set<string>();

  constructor(
    private readonly ended: (scan: SectionScanEnded) => void,
    private readonly opts: { follows?: (sectionId: string) => boolean; now?: () => number } = {},
  ) {}

  /** Sections with a scan running now, as far as the events tell. */
  scanning(): Set<string> {
    this.forgetSilent();
    return new Set([...this.activities.values()].flatMap((a) => (a.section === undefined ? [] : [a.section])));
  }

  /** What is held now, for the bounds' tests: scans running, sections with entries, entries in all. */
  held(): { running: number; sections: number; entries: number } {
    let entries = 0;
    for (const p of this.pending.values()) entries += p.touched.size + p.deleted.size;
    return { running: this.activities.size, sections: this.pending.size, entries };
  }

  handle(e: PlexNotification): void {
    if (e.kind === 'connection') {
      // While the socket was down an `ended` may have been missed: forget what ran. The entries seen stay,
      // they are still what the server did; the follower asks /activities once to learn what ended meanwhile.
      if (!e.connected) this.activities.clear();
      return;
    }
    if (e.kind === 'timeline') return this.timeline(e);
    if (e.type !== SCAN_ACTIVITY) return;
    const seen = this.activities.get(e.uuid);
    const section = e.sectionId ?? seen?.section;
    this.activities.delete(e.uuid);
    if (e.event !== 'ended') {
      this.activities.set(e.uuid, { section, seenAt: (this.opts.now ?? Date.now)() });
      if (this.activities.size > MAX_RUNNING) this.activities.delete(this.activities.keys().next().value!);
      this.forgetSilent();
      return;
    }
    // An end whose section no frame ever named cannot be placed; the follower's timeout covers it.
    if (section === undefined) return;
    const p = this.pending.get(section);
    this.pending.delete(section);
    const touched = p ? [...p.touched.values()] : [];
    for (const t of touched.filter((t) => t.created)) {
      this.reported.add(t.ratingKey);
      if (this.reported.size > REMEMBERED) this.reported.delete(this.reported.values().next().value!);
    }
    this.ended({ sectionId: section, uuid: e.uuid, touched, deleted: p ? [...p.deleted] : [], startSeen: seen !== undefined });
  }

  private timeline(e: TimelineEvent): void {
    if (this.opts.follows?.(e.sectionId) === false) {
      // What was kept while a scan of it was followed is of no use any more either.
      this.pending.delete(e.sectionId);
      return;
    }
    let p = this.pending.get(e.sectionId);
    if (!p) this.pending.set(e.sectionId, (p = { touched: new Map(), deleted: new Set() }));
    if (e.state === STATE_DELETED) {
      p.deleted.add(e.itemId);
      if (p.deleted.size > MAX_DELETED) p.deleted.delete(p.deleted.values().next().value!);
      p.touched.delete(e.itemId);
      return;
    }
    const known = p.touched.get(e.itemId);
    // Matching and metadata of an item already handed over as new: not a change of its files.
    if (!known && e.state !== STATE_CREATED && this.reported.has(e.itemId)) return;
    const created = (known?.created ?? false) || e.state === STATE_CREATED || e.metadataState === 'created';
    p.touched.set(e.itemId, { ratingKey: e.itemId, type: e.type, created });
    if (p.touched.size > MAX_TOUCHED) p.touched.delete(p.touched.keys().next().value!);
  }

  /** Scans seen longest ago first: those silent past RUNNING_SILENT_MS are forgotten. */
  private forgetSilent(): void {
    const before = (this.opts.now ?? Date.now)() - RUNNING_SILENT_MS;
    for (const [uuid, a] of this.activities) {
      if (a.seenAt >= before) break;
      this.activities.delete(uuid);
    }
  }
}

/** A GET on the Plex server (token, timeout and redirects are the caller's): the status and the JSON body. */
export type PlexGet = (path: string) => Promise<{ status: number; body?: unknown }>;

export interface ItemFiles {
  ratingKey: string;
  type?: string;
  parentRatingKey?: string;
  sectionId?: string;
  files: string[];
}

/** The item's files, or 'gone' when Plex no longer has it (deleted between its timeline entry and now). */
export async function itemFiles(get: PlexGet, ratingKey: string): Promise<ItemFiles | 'gone'> {
  const res = await get(`/library/metadata/${encodeURIComponent(ratingKey)}`);
  if (res.status === 404) return 'gone';
  if (res.status < 200 || res.status >= 300) throw new Error(`GET /library/metadata/${ratingKey} answered ${res.status}`);
  const items = (res.body as { MediaContainer?: { Metadata?: unknown } } | undefined)?.MediaContainer?.Metadata;
  const item = (Array.isArray(items) ? items[0] : undefined) as Record<string, unknown> | undefined;
  if (!item) return 'gone';
  const media = Array.isArray(item.Media) ? (item.Media as { Part?: unknown }[]) : [];
  const files = media.flatMap((m) => (Array.isArray(m.Part) ? (m.Part as { file?: unknown }[]) : [])).flatMap((p) => (typeof p.file === 'string' ? [p.file] : []));
  const s = (v: unknown) => (v === undefined || v === null ? undefined : String(v));
  return { ratingKey: s(item.ratingKey) ?? ratingKey, type: s(item.type), parentRatingKey: s(item.parentRatingKey), sectionId: s(item.librarySectionID), files };
}

/** Answers already asked for, by ratingKey: a scan's items are read once however many follow-ups look at it. */
export type ItemCache = Map<string, Promise<ItemFiles | 'gone'>>;

/**
 * The delivered files scans put in the library, with the item holding each (an unchanged file makes no timeline
 * entry, so absence here is not proof of absence). The first scan's items are read first (the newest, for a
 * follow-up that looks back), the others' only while a delivered file is still not found, `concurrency` at a time;
 * an item several scans touched is read once. A failed read throws, once the others are done, only when a
 * delivered file is still not found.
 */
export async function itemsOfScans(
  get: PlexGet,
  scans: readonly { touched: readonly TouchedItem[]; items?: ItemCache }[],
  delivered: ReadonlySet<string>,
  concurrency = 8,
): Promise<Map<string, ItemFiles>> {
  const found = new Map<string, ItemFiles>();
  const seen = new Set<string>();
  // Taken one at a time as the lookups go, so a file found early leaves the older scans' items untouched.
  function* itemsOf(part: typeof scans): Generator<{ ratingKey: string; cache?: ItemCache }> {
    for (const scan of part) {
      for (const item of scan.touched) {
        if (!TYPES_WITH_FILES.has(item.type) || seen.has(item.ratingKey)) continue;
        seen.add(item.ratingKey);
        yield { ratingKey: item.ratingKey, cache: scan.items };
      }
    }
  }
  let failed: { err: unknown } | undefined;
  const read = async (part: typeof scans) => {
    const items = itemsOf(part);
    const worker = async () => {
      while (found.size < delivered.size) {
        const next = items.next();
        if (next.done) return;
        const { ratingKey, cache } = next.value;
        let asked = cache?.get(ratingKey);
        if (!asked) {
          asked = itemFiles(get, ratingKey);
          cache?.set(ratingKey, asked);
          // A failed read is not remembered: the next look asks again.
          asked.catch(() => cache?.delete(ratingKey));
        }
        let answer;
        try {
          answer = await asked;
        } catch (err) {
          failed ??= { err };
          continue;
        }
        if (answer === 'gone') continue;
        for (const f of answer.files) if (delivered.has(f) && !found.has(f)) found.set(f, answer);
      }
    };
    const most = part.reduce((n, scan) => n + scan.touched.length, 0);
    await Promise.all(Array.from({ length: Math.min(concurrency, most) }, worker));
  };
  await read(scans.slice(0, 1));
  if (found.size < delivered.size && scans.length > 1) await read(scans.slice(1));
  // A failed read matters only when it may have held a file not found elsewhere.
  if (failed && found.size < delivered.size) throw failed.err;
  return found;
}

/** A GET of one metadata item whose refusal is a status, as itemFiles reads it (404: gone), not an exception. */
export function plexGet(api: PlexApi): PlexGet {
  return async (path) => {
    try {
      const res = await api.request('GET', path, PLEX_ITEM);
      return { status: res.status, body: await res.json().catch(() => undefined) };
    } catch (err) {
      // An answer dropped for its size says more than its status would: it fails the read as it is.
      if (err instanceof ApiRefusal && err.status !== 0 && err.status !== ANSWER_TOO_LARGE) return { status: err.status };
      throw err;
    }
  };
}
