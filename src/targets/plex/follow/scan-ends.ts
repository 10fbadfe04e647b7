// What the socket's scan ends tell the follow-ups, as events: an end moves its section's line, which ends the
// follow-ups whose places it passed, and its items are read for the files waiting in that section. The late path
// is the same read for a follow-up recorded after its scan ended (the ends of the last seconds). An end whose
// items hold the file of a later place, which the passed place's folder does not cover (a scan merged, dropped
// or run out of turn), contradicts the line and doubts the section: its follow-ups are judged by their files,
// and the poll asks /activities until the section is idle to count again. An end with nothing of ours left to
// end is not counted (section-line.ts).
import { ConditionLog } from '../../../log/condition.js';
import { isInside, parentFolder } from '../../../paths/folder.js';
import type { FollowUp } from './follow-up.js';
import type { FollowUps, Unfollowed } from './follow-ups.js';
import { LOOKUPS_AT_ONCE, type PlexFollowerOptions, type PlexTicket } from './follow-state.js';
import { itemsOfScans, plexGet, type ItemFiles, type PlexGet } from './item-files.js';
import type { Judge } from './judge.js';
import { acceptedAt } from './poll.js';
import type { EndedScan } from './scan-watch.js';
import type { SectionLines } from './section-line.js';

/** A scan that ended this long before its delivery was recorded can still be the delivery's (clocks of one process). */
const RECENT_SLACK_MS = 5_000;

export class ScanEnds {
  private readonly get: PlexGet;
  private readonly said: ConditionLog;
  /** Follow-ups an end was attributed to: a scan has one end. */
  private readonly owned = new WeakSet<FollowUp>();

  constructor(
    private readonly opts: PlexFollowerOptions,
    private readonly record: FollowUps,
    private readonly line: SectionLines,
    private readonly judge: Judge,
    private readonly track: (p: Promise<void>) => void,
  ) {
    this.get = opts.get ?? plexGet(opts.api);
    this.said = new ConditionLog({ logger: opts.logger, clock: opts.clock, level: 'info' });
  }

  /** A section's scan ended (the socket's `ended`). */
  ended(scan: EndedScan): void {
    const id = scan.sectionId;
    const counted = this.line.ended(id);
    if (!counted) this.opts.logger.debug(`Plex ended a scan of section ${id} while none of ours was left there (its own, or another tool's): not counted.`);
    const passedPlace = counted ? this.line.lastPassed(id) : undefined;
    const inSection = this.record.inSection(id);
    const passed = this.line.passedInLine(inSection);
    this.record.tell(passed, { kind: 'ended', by: 'line' });
    const waiting = inSection.filter((f) => f.ticket.file !== undefined && f.evidence?.state !== 'confirmed');
    if (waiting.length) this.read([scan], waiting, { ends: [scan], candidates: inSection }, passedPlace === undefined ? undefined : { id, place: passedPlace, followUps: inSection });
    this.track(this.settleAfterReads([...new Set([...passed, ...waiting])]));
  }

  /** A follow-up recorded just now: ends heard in the seconds before may be its scan's, and its place may be passed. */
  late(f: FollowUp): void {
    const passed = this.line.passedInLine([f]);
    this.record.tell(passed, { kind: 'ended', by: 'line' });
    // The ends are looked through newest first, once, stopping at the file: under load there are hundreds of
    // them, and one lookup each for every follow-up was most of the relay's CPU per scan.
    const ends = f.ticket.file && this.opts.watch ? this.opts.watch.endedSince(new Set(f.ticket.sections.map((s) => s.id)), f.item.deliveredAt - RECENT_SLACK_MS) : [];
    if (ends.length) this.read(ends.reverse(), [f], { ends, candidates: [f] });
    if (passed.length || ends.length) this.track(this.settleAfterReads([f]));
  }

  /** /activities showed a uncertain section idle: its count is exact again. */
  resynced(sectionId: string, acceptedBefore: number): void {
    this.line.resync(sectionId, acceptedBefore);
    this.said.ends(`doubt:${sectionId}`, `Plex's scans of section ${sectionId} are counted again (it was idle)`);
  }

  /** Plex's events contradict the section's line: its places prove nothing until the section is idle. */
  private doubt(sectionId: string, why: string): void {
    this.line.doubt(sectionId);
    this.record.tell(this.record.inSection(sectionId), { kind: 'uncertain' });
    if (this.opts.watch) this.opts.watch.pollDue = true;
    this.said.holds(
      `doubt:${sectionId}`,
      `Plex's scans of section ${sectionId} did not run as counted (${why}): its follow-ups are judged by their files, not by their place in line, until /activities shows the section idle.`,
    );
  }

  /**
   * Reads the items of these ends (newest first: the first found is kept) for the waiting files; each file found is
   * evidence, and an end whose items hold it is the scan of one of `owners.candidates` (attribute). `check`: the
   * place this end passed, to see whether its items belong to a later place.
   */
  private read(scans: EndedScan[], waiting: FollowUp[], owners: { ends: EndedScan[]; candidates: FollowUp[] }, check?: { id: string; place: number; followUps: FollowUp[] }): void {
    const reads = (async () => {
      let found;
      try {
        found = await itemsOfScans(this.get, scans, new Set(waiting.map((f) => f.ticket.file!)), LOOKUPS_AT_ONCE);
      } catch (err) {
        // What is left is judged as usual once its section is idle.
        this.opts.logger.warn({ err: String(err) }, `could not read the items of a Plex scan of section ${scans[0].sectionId} (${String(err)}); its files are judged when the section is idle`);
        return;
      }
      const seen: FollowUp[] = [];
      for (const f of waiting) {
        const item = found.get(f.ticket.file!);
        if (!item) continue;
        this.record.tell(f, { kind: 'evidence', evidence: { state: 'confirmed', via: 'notifications', ratingKey: item.ratingKey, parentRatingKey: item.parentRatingKey } });
        seen.push(f);
      }
      for (const end of owners.ends) this.attribute(end, found, owners.candidates);
      if (check && outOfTurn(check, seen)) this.doubt(check.id, `a scan's items held the file of a later one`);
    })();
    this.record.tell(waiting, { kind: 'reading', reads });
  }

  /**
   * An end is one scan's: of the scans of ours Plex took before the end was heard whose folder holds a file its items
   * hold, the one it took first. That scan has ended, by the items' own files, whatever the line's count (which
   * missed the ends told while the socket was down, and counts a scan Plex merged or reordered): a follow-up's place
   * is given back now. The first may be a scan no follow-up waits for any more (judged before its end was seen, or
   * superseded): then no follow-up is told, so a later scan of the same folder is not taken for ended.
   */
  private attribute(end: EndedScan, found: ReadonlyMap<string, ItemFiles>, candidates: FollowUp[]): void {
    if (end.owner !== undefined) return;
    const keys = new Set(end.touched.map((t) => t.ratingKey));
    const files = [...found].filter(([, item]) => keys.has(item.ratingKey)).map(([file]) => file);
    if (!files.length) return;
    const holds = (ticket: PlexTicket, at: number) =>
      at < end.at && ticket.sections.length === 1 && ticket.sections[0].id === end.sectionId && files.some((file) => isInside(file, folderOf(ticket)));
    const scans: Claim[] = [
      ...candidates.filter((f) => !this.owned.has(f) && holds(f.ticket, acceptedAt(f))).map((f) => ({ ticket: f.ticket, at: acceptedAt(f), f })),
      ...this.record.unfollowed.filter((u) => holds(u.ticket, u.at)),
    ];
    const first = scans.sort((a, b) => lineOrder(a, b, end.sectionId))[0];
    if (!first) return;
    if (!first.f) {
      this.record.unfollowed.splice(this.record.unfollowed.indexOf(first), 1);
      end.owner = '';
      return;
    }
    end.owner = first.f.key;
    this.owned.add(first.f);
    this.record.tell(first.f, { kind: 'ended', by: 'items' });
  }

  /** Once the reads under way for them are done (an earlier end's items may still find a file), as far as they may go. */
  private async settleAfterReads(list: FollowUp[]): Promise<void> {
    for (let pending = list.filter((f) => f.reading); pending.length; pending = list.filter((f) => f.reading)) {
      await Promise.allSettled(pending.map((f) => f.reading));
    }
    await this.judge.settle(list.filter((f) => this.record.holds(f)));
  }
}

/**
 * The end passed `place`, yet its items hold the file of a follow-up placed later, under a folder the passed
 * place's scan does not cover: that later scan is what ran (the passed one was dropped, merged or run out of turn).
 * An earlier scan of a parent folder, or of the same folder, adding a later delivery's file is no contradiction.
 */
function outOfTurn(check: { id: string; place: number; followUps: FollowUp[] }, seen: FollowUp[]): boolean {
  const passed = check.followUps.find((f) => f.place?.[check.id] === check.place);
  const folder = passed && folderOf(passed.ticket);
  if (!folder) return false;
  return seen.some((f) => {
    const place = f.place?.[check.id];
    return place !== undefined && place > check.place && !isInside(f.ticket.file!, folder);
  });
}

/** A scan of ours an end may be: a follow-up's, or one no follow-up waits for. */
type Claim = Unfollowed & { f?: FollowUp };

/** The folder the scan was of (its file's, for an old ticket). */
const folderOf = (t: PlexTicket): string => t.folder ?? (t.file ? parentFolder(t.file) : '');

/** Plex's order of taking two refreshes of a section: their places when one count gave both, else when taken. */
function lineOrder(a: Unfollowed, b: Unfollowed, sectionId: string): number {
  const pa = a.ticket.accepted?.seq[sectionId];
  const pb = b.ticket.accepted?.seq[sectionId];
  if (pa !== undefined && pb !== undefined && a.ticket.accepted!.run === b.ticket.accepted!.run) return pa - pb;
  return a.at - b.at;
}
