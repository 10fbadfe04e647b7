// What one section's scan did, from the notification events: the items its timeline entries created, updated
// or deleted, handed over when the section's scan activity ends. A follower then needs one metadata request per
// new item (src/plex/follow/item-files.ts) to confirm the delivered files, and never lists a section.
import type { PlexNotification } from './notifications.js';

/** The activity of a library scan (a partial scan is one too); `library.refresh.items` is metadata work after it. */
export const SCAN_ACTIVITY = 'library.update.section';

/** Timeline states (python-plexapi plexapi/alert.py): 0 created … 5 processed; 9 deleted. */
export const STATE_CREATED = 0;
export const STATE_DELETED = 9;

/** Metadata types whose items hold files (Media → Part): movie, episode, clip, track, photo. */
const TYPES_WITH_FILES = new Set([1, 4, 10, 12, 13]);

export interface TouchedItem {
  ratingKey: string;
  type: number;
  /** A state-0 entry was seen: new to the library, not an existing item processed again. */
  created: boolean;
}

export interface SectionScanEnded {
  sectionId: string;
  /** The scan activity that ended. */
  uuid: string;
  /** Items created or updated since the section's previous scan ended (or since watching began). */
  touched: TouchedItem[];
  /** Item ids a state-9 entry deleted in the same span. */
  deleted: string[];
}

/** Whether an item of this type can hold a delivered file (shows, seasons, artists and albums do not). */
export const holdsFiles = (item: TouchedItem): boolean => TYPES_WITH_FILES.has(item.type);

/** Items handed over as created, remembered so their later processing entries are not a second change. */
const REMEMBERED = 10_000;

interface Pending {
  touched: Map<string, TouchedItem>;
  deleted: Set<string>;
}

/**
 * Feed it every notification; it calls `ended` once per section scan that ends. Timeline entries are kept per
 * section until that section's next scan end, so entries that arrive before the scan's `started` (or while the
 * activity's section id is not known yet: Plex adds Context.librarySectionID a little into the scan) still count.
 */
export class SectionScans {
  /** Scan activities by uuid, with their section once a frame named it. */
  private readonly activities = new Map<string, string | undefined>();
  private readonly pending = new Map<string, Pending>();
  /** Items handed over as created: Plex goes on processing them (states 1-5) after the scan ended. */
  private readonly reported = new Set<string>();

  constructor(private readonly ended: (scan: SectionScanEnded) => void) {}

  /** Sections with a scan running now, as far as the events tell. */
  scanning(): Set<string> {
    return new Set([...this.activities.values()].filter((s): s is string => s !== undefined));
  }

  handle(e: PlexNotification): void {
    if (e.kind === 'connection') {
      // While the socket was down an `ended` may have been missed: forget what ran. The entries seen stay,
      // they are still what the server did; the follower asks /activities once to learn what ended meanwhile.
      if (!e.connected) this.activities.clear();
      return;
    }
    if (e.kind === 'timeline') {
      const p = this.pendingOf(e.sectionId);
      if (e.state === STATE_DELETED) {
        p.deleted.add(e.itemId);
        p.touched.delete(e.itemId);
        return;
      }
      const known = p.touched.get(e.itemId);
      // Matching and metadata of an item already handed over as new: not a change of its files.
      if (!known && e.state !== STATE_CREATED && this.reported.has(e.itemId)) return;
      const created = (known?.created ?? false) || e.state === STATE_CREATED || e.metadataState === 'created';
      p.touched.set(e.itemId, { ratingKey: e.itemId, type: e.type, created });
      return;
    }
    if (e.type !== SCAN_ACTIVITY) return;
    const section = e.sectionId ?? this.activities.get(e.uuid);
    if (e.event !== 'ended') {
      this.activities.set(e.uuid, section);
      return;
    }
    this.activities.delete(e.uuid);
    // An end whose section no frame ever named cannot be placed; the follower's timeout covers it.
    if (section === undefined) return;
    const p = this.pending.get(section);
    this.pending.delete(section);
    const touched = p ? [...p.touched.values()] : [];
    for (const t of touched) if (t.created) this.remember(t.ratingKey);
    this.ended({ sectionId: section, uuid: e.uuid, touched, deleted: p ? [...p.deleted] : [] });
  }

  private remember(ratingKey: string): void {
    this.reported.add(ratingKey);
    if (this.reported.size > REMEMBERED) this.reported.delete(this.reported.values().next().value!);
  }

  private pendingOf(section: string): Pending {
    let p = this.pending.get(section);
    if (!p) this.pending.set(section, (p = { touched: new Map(), deleted: new Set() }));
    return p;
  }
}
