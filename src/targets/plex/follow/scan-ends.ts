// What the socket's scan ends tell the follow-ups, as events. An end moves its section's queue of scans
// (scan-queue.ts), which ends the follow-ups whose slots it passed, whatever the scan's items said. An end's items
// are also read for the files waiting in its section; a follow-up recorded after its scan ended (`late`) reads the
// ends of the last seconds the same way. An end whose items hold the file of a later slot, which the passed slot's
// folder does not cover (a scan merged, dropped or run out of turn), contradicts the count: the section's
// follow-ups are judged by their files, and the poll asks /activities until the section is idle, when the count is
// known again. An end with nothing of ours left to end is not counted.
import type { Clock } from '../../../clock.js';
import { ConditionLog } from '../../../log/condition.js';
import type { Logger } from '../../../log/logger.js';
import { isInside, parentFolder } from '../../../paths/folder.js';
import { acceptedAt, foundAmong, type PlexEvent, type PlexFollowUp, type PlexTicket } from './follow-up.js';
import type { EndedScan, PlexNotifications } from './notifications.js';
import { itemsOfScans, type ItemFiles, type PlexGet } from './scan-items.js';
import type { ScanQueues } from './scan-queue.js';

/** A scan that ended this long before its delivery was recorded can still be the delivery's (clocks of one process). */
const RECENT_SLACK_MS = 5_000;

/** File lookups in flight at once: reads Plex answers from its database in milliseconds. */
export const LOOKUPS_AT_ONCE = 16;

/** A scan of ours Plex may still hold with no follow-up left to end (judged before its end was seen, or superseded). */
export interface Unfollowed {
  ticket: PlexTicket;
  at: number;
}

/** What the follower lends: its follow-ups, how they are told, its reads kept until they settle, the scans no follow-up waits for. */
export interface FollowUpBook {
  values(): PlexFollowUp[];
  tell(fs: PlexFollowUp | PlexFollowUp[], e: PlexEvent): void;
  track(p: Promise<void>): void;
  readonly unfollowed: Unfollowed[];
}

export class ScanEnds {
  private readonly said: ConditionLog;
  /** Follow-ups an end was attributed to: a scan has one end. */
  private readonly owned = new WeakSet<PlexFollowUp>();

  constructor(
    private readonly opts: { clock: Clock; logger: Logger; watch?: PlexNotifications },
    private readonly get: PlexGet,
    private readonly queues: ScanQueues,
    private readonly book: FollowUpBook,
  ) {
    this.said = new ConditionLog({ logger: opts.logger, clock: opts.clock, level: 'info' });
  }

  /** A section's scan ended (the socket's `ended`). */
  ended(scan: EndedScan): void {
    const id = scan.sectionId;
    const counted = this.queues.ended(id, scan.startSeen);
    if (!counted) this.opts.logger.debug(`Plex ended a scan of section ${id} while none of ours was left there (its own, or another tool's): not counted.`);
    const passedSlot = counted ? this.queues.lastPassed(id) : undefined;
    const inSection = ofSection(this.book.values(), id);
    const waiting = inSection.filter((f) => f.ticket.file !== undefined && f.evidence?.state !== 'confirmed');
    if (waiting.length) this.read([scan], waiting, { ends: [scan], candidates: inSection }, passedSlot === undefined ? undefined : { id, slot: passedSlot, followUps: inSection });
    this.book.tell(this.queues.passed(inSection), { kind: 'ended', by: 'queue' });
  }

  /** A follow-up recorded just now: ends seen in the seconds before may be its scan's, and its slot may be passed. */
  late(f: PlexFollowUp): void {
    // The ends are looked through newest first, once, stopping at the file: under load there are hundreds of
    // them, and one lookup each for every follow-up was most of the relay's CPU per scan.
    const ends = f.ticket.file && this.opts.watch ? this.opts.watch.endedSince(new Set(f.ticket.sections.map((s) => s.id)), f.item.deliveredAt - RECENT_SLACK_MS) : [];
    if (ends.length) this.read([...ends].reverse(), [f], { ends, candidates: [f] });
    this.book.tell(this.queues.passed([f]), { kind: 'ended', by: 'queue' });
  }

  /** /activities showed an untrusted section idle: its count is exact again. */
  recounted(sectionId: string, acceptedBefore: number): void {
    this.queues.recount(sectionId, acceptedBefore);
    this.said.ends(`reordered:${sectionId}`, `Plex's scans of section ${sectionId} are counted again (it was idle)`);
  }

  /** Plex's events contradict the section's count: its slots prove nothing until the section is idle. */
  reordered(sectionId: string, why: string): void {
    this.queues.distrust(sectionId);
    this.book.tell(ofSection(this.book.values(), sectionId), { kind: 'reordered' });
    if (this.opts.watch) this.opts.watch.pollDue = true;
    this.said.holds(
      `reordered:${sectionId}`,
      `Plex's scans of section ${sectionId} did not run as counted (${why}): its follow-ups are judged by their files, not by their slot in its queue, until /activities shows the section idle.`,
    );
  }

  /**
   * Reads the items of these ends (newest first) for the waiting files; an end whose items hold one is the scan of
   * one of `owners.candidates`. `check`: the slot this end passed, to see whether its items belong to a later slot.
   */
  private read(scans: EndedScan[], waiting: PlexFollowUp[], owners: { ends: EndedScan[]; candidates: PlexFollowUp[] }, check?: { id: string; slot: number; followUps: PlexFollowUp[] }): void {
    this.book.tell(waiting, { kind: 'looking' });
    const reads = async () => {
      let found = new Map<string, ItemFiles>();
      try {
        found = await itemsOfScans(this.get, scans, new Set(waiting.map((f) => f.ticket.file!)), LOOKUPS_AT_ONCE);
        for (const end of owners.ends) this.attribute(end, found, owners.candidates);
        const seen = waiting.filter((f) => found.has(f.ticket.file!));
        if (check && outOfTurn(check, seen)) this.reordered(check.id, `a scan's items held the file of a later one`);
      } catch (err) {
        // What is left is judged as usual once its section is idle.
        this.opts.logger.warn({ err: String(err) }, `could not read the items of a Plex scan of section ${scans[0].sectionId} (${String(err)}); its files are judged when the section is idle`);
      }
      this.book.tell(waiting, { kind: 'looked', evidence: foundAmong(waiting, found), library: false });
    };
    this.book.track(reads());
  }

  /**
   * An end is one scan's: of the scans of ours Plex took before the end whose folder holds a file its items hold,
   * the one it took first, which has ended by the items' own files, whatever the count. It may be a scan no
   * follow-up waits for any more: then none is told, so a later scan of the same folder is not taken for ended.
   */
  private attribute(end: EndedScan, found: ReadonlyMap<string, ItemFiles>, candidates: PlexFollowUp[]): void {
    if (end.owner !== undefined) return;
    const keys = new Set(end.touched.map((t) => t.ratingKey));
    const files = [...found].filter(([, item]) => keys.has(item.ratingKey)).map(([file]) => file);
    if (!files.length) return;
    const holds = (ticket: PlexTicket, at: number) =>
      at < end.at && ticket.sections.length === 1 && ticket.sections[0].id === end.sectionId && files.some((file) => isInside(file, folderOf(ticket)));
    // The scans of ours this end may be: a follow-up's, or one no follow-up waits for.
    const scans: (Unfollowed & { f?: PlexFollowUp })[] = [
      ...candidates.filter((f) => !this.owned.has(f) && holds(f.ticket, acceptedAt(f))).map((f) => ({ ticket: f.ticket, at: acceptedAt(f), f })),
      ...this.book.unfollowed.filter((u) => holds(u.ticket, u.at)),
    ];
    const first = scans.sort((a, b) => queueOrder(a, b, end.sectionId))[0];
    if (!first) return;
    if (!first.f) {
      this.book.unfollowed.splice(this.book.unfollowed.indexOf(first), 1);
      end.owner = '';
      return;
    }
    end.owner = first.f.key;
    this.owned.add(first.f);
    this.book.tell(first.f, { kind: 'ended', by: 'items' });
  }
}

/**
 * The end passed `slot`, yet its items hold the file of a follow-up placed later, under a folder the passed slot's
 * scan does not cover: that later scan is what ran (the passed one was dropped, merged or run out of turn). An
 * earlier scan of a parent folder, or of the same folder, adding a later delivery's file is no contradiction.
 */
function outOfTurn(check: { id: string; slot: number; followUps: PlexFollowUp[] }, seen: PlexFollowUp[]): boolean {
  const passed = check.followUps.find((f) => f.slot?.[check.id] === check.slot);
  const folder = passed && folderOf(passed.ticket);
  if (!folder) return false;
  return seen.some((f) => {
    const slot = f.slot?.[check.id];
    return slot !== undefined && slot > check.slot && !isInside(f.ticket.file!, folder);
  });
}

const ofSection = (fs: PlexFollowUp[], sectionId: string): PlexFollowUp[] => fs.filter((f) => f.ticket.sections.some((s) => s.id === sectionId));

/** The folder the scan was of (its file's, for an old ticket). */
const folderOf = (t: PlexTicket): string => t.folder ?? (t.file ? parentFolder(t.file) : '');

/** Plex's order of taking two refreshes of a section: their slots when one count gave both, else when taken. */
function queueOrder(a: Unfollowed, b: Unfollowed, sectionId: string): number {
  const pa = a.ticket.accepted?.seq[sectionId];
  const pb = b.ticket.accepted?.seq[sectionId];
  if (pa !== undefined && pb !== undefined && a.ticket.accepted!.run === b.ticket.accepted!.run) return pa - pb;
  return a.at - b.at;
}
