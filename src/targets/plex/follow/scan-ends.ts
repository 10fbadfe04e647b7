// What the socket's scan ends tell the follow-ups, as events. Each section's queue of scans at Plex is counted while
// the socket is open (ScanQueues): refreshes Plex took and ends it told of. Plex is assumed to run a section's scans
// one at a time in the order it took them (no Plex source says so: docs/targets.md), so a follow-up whose slot the
// count passed has had its scan end, whatever the scan's items said. An end's items are also read for the files
// waiting in its section (ScanEnds); a follow-up recorded after its scan ended (`late`) reads the ends of the last
// seconds the same way. An end whose items hold the file of a later slot, which the passed slot's folder does not
// cover (a scan merged, dropped or run out of turn), contradicts the count: the section's follow-ups are judged by
// their files, and the poll asks /activities until the section is idle, when the count is known again. An end with
// nothing of ours left to end is not counted.
import { randomUUID } from 'node:crypto';
import type { Clock } from '../../../clock.js';
import { ConditionLog } from '../../../log/condition.js';
import type { Logger } from '../../../log/logger.js';
import { isInside, parentFolder } from '../../../paths/folder.js';
import { acceptedAt, type PlexEvent, type PlexFollowUp, type PlexTicket } from './follow-up.js';
import type { EndedScan, PlexNotifications } from './notifications.js';
import { itemsOfScans, type ItemFiles, type PlexGet } from './scan-items.js';

/** A scan that ended this long before its delivery was recorded can still be the delivery's (clocks of one process). */
const RECENT_SLACK_MS = 5_000;

/** File lookups in flight at once: reads Plex answers from its database in milliseconds. */
export const LOOKUPS_AT_ONCE = 16;

/** A scan of ours Plex may still hold with no follow-up left to end (judged before its end was seen, or superseded). */
export interface Unfollowed {
  ticket: PlexTicket;
  at: number;
}

/** What the follower lends: its follow-ups, how they are told, the scans no follow-up waits for. */
export interface FollowUpBook {
  values(): PlexFollowUp[];
  tell(fs: PlexFollowUp | PlexFollowUp[], e: PlexEvent): void;
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
    private readonly track: (p: Promise<void>) => void,
  ) {
    this.said = new ConditionLog({ logger: opts.logger, clock: opts.clock, level: 'info' });
  }

  /** A section's scan ended (the socket's `ended`). */
  ended(scan: EndedScan): void {
    const id = scan.sectionId;
    const counted = this.queues.ended(id);
    if (!counted) this.opts.logger.debug(`Plex ended a scan of section ${id} while none of ours was left there (its own, or another tool's): not counted.`);
    const passedSlot = counted ? this.queues.lastPassed(id) : undefined;
    const inSection = this.book.values().filter((f) => f.ticket.sections.some((s) => s.id === id));
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
  private reordered(sectionId: string, why: string): void {
    this.queues.distrust(sectionId);
    this.book.tell(
      this.book.values().filter((f) => f.ticket.sections.some((s) => s.id === sectionId)),
      { kind: 'reordered' },
    );
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
    this.book.tell(waiting, { kind: 'reading' });
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
      this.book.tell(waiting, { kind: 'read', found });
    };
    this.track(reads());
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
    const scans: Claim[] = [
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

/** A scan of ours an end may be: a follow-up's, or one no follow-up waits for. */
type Claim = Unfollowed & { f?: PlexFollowUp };

/** The folder the scan was of (its file's, for an old ticket). */
const folderOf = (t: PlexTicket): string => t.folder ?? (t.file ? parentFolder(t.file) : '');

/** Plex's order of taking two refreshes of a section: their slots when one count gave both, else when taken. */
function queueOrder(a: Unfollowed, b: Unfollowed, sectionId: string): number {
  const pa = a.ticket.accepted?.seq[sectionId];
  const pb = b.ticket.accepted?.seq[sectionId];
  if (pa !== undefined && pb !== undefined && a.ticket.accepted!.run === b.ticket.accepted!.run) return pa - pb;
  return a.at - b.at;
}

type Placed = PlexTicket['accepted'] & {};

/** A delivery is recorded within a group commit (milliseconds); a minute is far past any. */
const UNRECORDED_MS = 60_000;

/** Per section: refreshes Plex took, and scan ends the socket told of, counted in the same queue. */
interface SectionQueue {
  accepted: number;
  ended: number;
  /**
   * Slots given out whose follow-ups are not known yet, with when: between Plex's answer and the delivery's record
   * a scan is in no follow-up, and a socket opening then must not count it as ended (see `recorded`).
   */
  unrecorded: Map<number, number>;
  /** The first slot the count can vouch for: slots before it were given while the count was not trusted. */
  trustedFrom: number;
}

export class ScanQueues {
  private readonly queues = new Map<string, SectionQueue>();
  /** Slots of the scans Plex took whose follow-ups were superseded: outstanding until passed. */
  private unfollowed: Record<string, number>[] = [];
  /** Names this count in the tickets it placed; made at the first (node:crypto waits until a scan is sent). */
  private runId?: string;

  private get run(): string {
    return (this.runId ??= randomUUID());
  }

  constructor(private readonly opts: { clock: Clock; watch?: PlexNotifications }) {}

  get superseded(): number {
    return this.unfollowed.length;
  }

  /** Sections whose count is not trusted, waiting for /activities to show them idle. */
  get untrusted(): string[] {
    return [...this.queues].filter(([, q]) => q.trustedFrom === Infinity).map(([id]) => id);
  }

  /**
   * Plex took a refresh of the section: its slot in the section's queue. While the socket is open the n-th end it
   * tells of ends the n-th refresh taken, so a follow-up whose file the scan did not change learns that its scan
   * ended without waiting for the section to go idle, which under a steady load it never does.
   */
  accepted(sectionId: string): Placed {
    const queue = this.queueOf(sectionId);
    const at = this.opts.clock.now();
    queue.unrecorded.set(++queue.accepted, at);
    return { run: this.run, at, seq: { [sectionId]: queue.accepted } };
  }

  /** The scans of these slots are followed, superseded, or have nothing to follow: no longer unrecorded. */
  recorded(accepted: PlexTicket['accepted']): void {
    if (accepted?.run !== this.run) return;
    for (const [id, n] of Object.entries(accepted.seq)) this.queues.get(id)?.unrecorded.delete(n);
  }

  /** The ticket's slot, only when this count gave it, no end was missed since Plex took it, and no section of it was untrusted since. */
  slotOf(accepted: PlexTicket['accepted']): Record<string, number> | undefined {
    const since = this.opts.watch?.connectedSince;
    if (accepted?.run !== this.run || since === undefined || since > accepted.at) return undefined;
    return Object.entries(accepted.seq).every(([id, n]) => n >= (this.queues.get(id)?.trustedFrom ?? 1)) ? accepted.seq : undefined;
  }

  /** A scan Plex took whose follow-up is superseded is outstanding until the count passes it (not counted without a slot). */
  supersededScan(accepted: PlexTicket['accepted']): void {
    this.recorded(accepted);
    const seq = this.slotOf(accepted);
    if (seq && !this.passedSlot(seq)) this.unfollowed.push(seq);
  }

  /**
   * The socket told of a scan end in the section. False when nothing counted is left to end there (Plex's own scan,
   * another tool's): not counted, and nothing of ours to distrust. A queue is begun only for a section the socket
   * keeps entries of: a server ending scans of other sections, or of made-up ones, adds none.
   */
  ended(sectionId: string): boolean {
    const queue = this.queues.get(sectionId) ?? (this.opts.watch?.keeps(sectionId) ? this.queueOf(sectionId) : undefined);
    if (!queue || queue.ended >= queue.accepted) return false;
    queue.ended++;
    if (this.unfollowed.length) this.unfollowed = this.unfollowed.filter((seq) => !this.passedSlot(seq));
    return true;
  }

  /** The follow-ups whose slots the count has passed (in every section of theirs). */
  passed(candidates: Iterable<PlexFollowUp>): PlexFollowUp[] {
    const passed: PlexFollowUp[] = [];
    for (const f of candidates) {
      if (f.ended || !f.slot) continue;
      if (f.ticket.sections.every((s) => f.slot![s.id] !== undefined) && this.passedSlot(f.slot)) passed.push(f);
    }
    return passed;
  }

  /** The slot the section's latest end passed, when the count vouches for it. */
  lastPassed(sectionId: string): number | undefined {
    const queue = this.queues.get(sectionId);
    return queue && queue.ended >= queue.trustedFrom ? queue.ended : undefined;
  }

  /** Plex's events contradicted the section's count: no slot of it proves anything until it is counted again. */
  distrust(sectionId: string): void {
    this.queueOf(sectionId).trustedFrom = Infinity;
  }

  /** /activities, asked when the section had taken `acceptedBefore` refreshes, shows it idle: the count starts again from there, exact. */
  recount(sectionId: string, acceptedBefore: number): void {
    const queue = this.queueOf(sectionId);
    queue.ended = Math.max(queue.ended, acceptedBefore);
    queue.trustedFrom = acceptedBefore + 1;
    this.unfollowed = this.unfollowed.filter((seq) => !this.passedSlot(seq));
  }

  acceptedSoFar(sectionId: string): number {
    return this.queues.get(sectionId)?.accepted ?? 0;
  }

  /**
   * The socket (re)opened: ends may have been missed. Every scan taken before is counted as still ahead while its
   * follow-up has not ended (no later one is judged before its turn), as is one whose delivery is being recorded;
   * those with nothing to follow are counted as ended (one still queued would let a later follow-up pass early).
   */
  rebase(followed: Iterable<PlexFollowUp>): void {
    // Ends were missed: the superseded scans' slots can no longer be told.
    this.unfollowed = [];
    const all = [...followed];
    const now = this.opts.clock.now();
    for (const [id, queue] of this.queues) {
      // A slot left unrecorded this long lost its record to an exit not seen here (the relay stopping).
      for (const [n, at] of queue.unrecorded) if (now - at > UNRECORDED_MS) queue.unrecorded.delete(n);
      let ahead = queue.unrecorded.size;
      for (const f of all) if (!f.ended && f.ticket.sections.some((s) => s.id === id)) ahead++;
      queue.ended = queue.accepted - ahead;
    }
  }

  /** The count has passed this slot in every section of it. */
  private passedSlot(seq: Record<string, number>): boolean {
    return Object.entries(seq).every(([id, n]) => n <= (this.queues.get(id)?.ended ?? 0));
  }

  private queueOf(sectionId: string): SectionQueue {
    let queue = this.queues.get(sectionId);
    if (!queue) this.queues.set(sectionId, (queue = { accepted: 0, ended: 0, unrecorded: new Map(), trustedFrom: 1 }));
    return queue;
  }
}
