// Counts each section's line at Plex while the notification socket is open: refreshes Plex took and scan ends it
// told of. Plex is assumed to run a section's scans one at a time in the order it took them (no Plex source says
// so: docs/targets.md), so a follow-up whose place the line passed has had its scan end, whatever the scan's
// items said. When Plex's events contradict the count (an end with nothing counted; a scan's items under
// another's place, as scan-ends.ts reads them), the section's places are uncertain and prove nothing until
// /activities shows the section idle, when the count is known again.
import { randomUUID } from 'node:crypto';
import type { FollowUp } from './follow-up.js';
import type { PlexFollowerOptions, PlexTicket } from './follow-state.js';

type Placed = PlexTicket['accepted'] & {};

/** A delivery is recorded within a group commit (milliseconds); a minute is far past any. */
const UNRECORDED_MS = 60_000;

/** Per section: refreshes Plex took, and scan ends the socket heard, counted in the same line. */
interface SectionLine {
  accepted: number;
  ended: number;
  /**
   * Places given out whose follow-ups are not known yet, with when: between Plex's answer and the delivery's
   * record (a group commit) a scan is in no follow-up, and a socket opening then must not count it as ended.
   * Taken off when followed, superseded or known to have nothing to follow (`recorded`).
   */
  unrecorded: Map<number, number>;
  /** The first place the count can vouch for: places before it were given while the line was uncertain. */
  trustedFrom: number;
}

export class SectionLines {
  private readonly lines = new Map<string, SectionLine>();
  /** Scans Plex took whose follow-ups were superseded, by their places in the line: outstanding until passed. */
  private unfollowed: Record<string, number>[] = [];
  /** Names this count in the tickets it placed; made at the first (node:crypto waits until a scan is sent). */
  private runId?: string;

  private get run(): string {
    return (this.runId ??= randomUUID());
  }

  constructor(private readonly opts: Pick<PlexFollowerOptions, 'clock' | 'watch'>) {}

  /** Superseded scans Plex still holds. */
  get superseded(): number {
    return this.unfollowed.length;
  }

  /** Sections whose count is uncertain, waiting for /activities to show them idle. */
  get uncertain(): string[] {
    return [...this.lines].filter(([, l]) => l.trustedFrom === Infinity).map(([id]) => id);
  }

  /**
   * Plex took a refresh of the section (its answer just came): its place in the section's line. While the socket
   * is open the n-th scan end it tells of is the end of the n-th refresh taken. A follow-up whose file the scan
   * did not add or change (an unchanged file, or one an earlier scan of its folder already added) learns this way
   * that its scan ended, without waiting for the section to go idle, which under a steady load it never does.
   */
  accepted(sectionId: string): Placed {
    const line = this.lineOf(sectionId);
    const at = this.opts.clock.now();
    line.unrecorded.set(++line.accepted, at);
    return { run: this.run, at, seq: { [sectionId]: line.accepted } };
  }

  /** The scans of these places are followed, superseded, or have nothing to follow: no longer unrecorded. */
  recorded(accepted: PlexTicket['accepted']): void {
    if (accepted?.run !== this.run) return;
    for (const [id, n] of Object.entries(accepted.seq)) this.lines.get(id)?.unrecorded.delete(n);
  }

  /**
   * The ticket's place, only when this count placed it, the socket has been open since before Plex took it (no
   * end was missed) and no section of it was uncertain since.
   */
  placeOf(accepted: PlexTicket['accepted']): Record<string, number> | undefined {
    const since = this.opts.watch?.connectedSince;
    if (accepted?.run !== this.run || since === undefined || since > accepted.at) return undefined;
    return this.trusts(accepted.seq) ? accepted.seq : undefined;
  }

  /**
   * A scan Plex took whose follow-up is superseded: Plex still holds it, so it counts as outstanding until the line
   * passes it. Without a place in the line it cannot be told apart from the others and is not counted.
   */
  mootScan(accepted: PlexTicket['accepted']): void {
    this.recorded(accepted);
    const seq = this.placeOf(accepted);
    if (seq && !this.passed(seq)) this.unfollowed.push(seq);
  }

  /**
   * The socket told of a scan end in the section. False when nothing counted is left to end there (a scan someone
   * else asked for: Plex's own, another tool's): the count cannot go below nothing, so it is not counted, and with
   * nothing of ours waiting there is nothing to doubt. A line is begun only for a section a refresh is about to be
   * sent to or a follow-up waits on (what the socket keeps entries of): a server ending scans of other sections,
   * or of made-up ones, adds no line.
   */
  ended(sectionId: string): boolean {
    const line = this.lines.get(sectionId) ?? (this.opts.watch?.keeps(sectionId) ? this.lineOf(sectionId) : undefined);
    if (!line || line.ended >= line.accepted) return false;
    line.ended++;
    if (this.unfollowed.length) this.unfollowed = this.unfollowed.filter((seq) => !this.passed(seq));
    return true;
  }

  /** The follow-ups whose places the line has passed (in every section of theirs). */
  passedInLine(candidates: Iterable<FollowUp>): FollowUp[] {
    const passed: FollowUp[] = [];
    for (const f of candidates) {
      if (f.ended || !f.place) continue;
      if (f.ticket.sections.every((s) => f.place![s.id] !== undefined) && this.passed(f.place)) passed.push(f);
    }
    return passed;
  }

  /** The place the section's latest end passed, when the count vouches for it. */
  lastPassed(sectionId: string): number | undefined {
    const line = this.lines.get(sectionId);
    return line && line.ended >= line.trustedFrom ? line.ended : undefined;
  }

  /** Plex's events contradicted the section's count: no place of it proves anything until it is resynchronised. */
  doubt(sectionId: string): void {
    this.lineOf(sectionId).trustedFrom = Infinity;
  }

  /**
   * /activities, asked when the section had taken `acceptedBefore` refreshes, shows it idle: every one of those is
   * over (run, merged or dropped). The count starts again from there, exact.
   */
  resync(sectionId: string, acceptedBefore: number): void {
    const line = this.lineOf(sectionId);
    line.ended = Math.max(line.ended, acceptedBefore);
    line.trustedFrom = acceptedBefore + 1;
    this.unfollowed = this.unfollowed.filter((seq) => !this.passed(seq));
  }

  /** How many refreshes of the section Plex took so far (for a resync). */
  acceptedSoFar(sectionId: string): number {
    return this.lines.get(sectionId)?.accepted ?? 0;
  }

  /**
   * The socket (re)opened: ends may have been missed while it was closed. Every scan taken before is counted as
   * still ahead in the line while its follow-up has not ended (so no later follow-up is judged before its turn;
   * those that ended unheard make later ones wait longer), as is a scan Plex took whose delivery is still being
   * recorded. Scans taken before with nothing to follow (no file) are counted as ended: one still queued at Plex
   * would let a later follow-up pass one scan early.
   */
  rebase(followed: Iterable<FollowUp>): void {
    // Ends were missed: the superseded scans' places can no longer be told.
    this.unfollowed = [];
    const all = [...followed];
    const now = this.opts.clock.now();
    for (const [id, line] of this.lines) {
      // A place left unrecorded this long lost its record to an exit not seen here (the relay stopping).
      for (const [n, at] of line.unrecorded) if (now - at > UNRECORDED_MS) line.unrecorded.delete(n);
      let ahead = line.unrecorded.size;
      for (const f of all) if (!f.ended && f.ticket.sections.some((s) => s.id === id)) ahead++;
      line.ended = line.accepted - ahead;
    }
  }

  /** The line has passed this place in every section of it. */
  private passed(seq: Record<string, number>): boolean {
    return Object.entries(seq).every(([id, n]) => n <= (this.lines.get(id)?.ended ?? 0));
  }

  private trusts(seq: Record<string, number>): boolean {
    return Object.entries(seq).every(([id, n]) => n >= (this.lines.get(id)?.trustedFrom ?? 1));
  }

  private lineOf(sectionId: string): SectionLine {
    let line = this.lines.get(sectionId);
    if (!line) this.lines.set(sectionId, (line = { accepted: 0, ended: 0, unrecorded: new Map(), trustedFrom: 1 }));
    return line;
  }
}
