// Counts each section's line at Plex while the notification socket is open: refreshes Plex took and scan ends it
// told of. Plex runs a section's scans one at a time in the order it took them, so a follow-up whose place the
// line passed has had its scan end, whatever the scan's items said, and no longer counts as outstanding.
import type { Followed, PlexFollowerOptions, PlexTicket } from './follow-state.js';

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
   * Taken off when followed, moot or known to have nothing to follow (`recorded`).
   */
  unrecorded: Map<number, number>;
}

export class SectionLines {
  private readonly lines = new Map<string, SectionLine>();
  /** Scans Plex took whose follow-ups were moot, by their places in the line: outstanding until passed. */
  private unfollowed: Record<string, number>[] = [];
  /** Names this count in the tickets it placed; made at the first (node:crypto waits until a scan is sent). */
  private runId?: string;

  private get run(): string {
    return (this.runId ??= process.getBuiltinModule('node:crypto').randomUUID());
  }

  constructor(private readonly opts: Pick<PlexFollowerOptions, 'clock' | 'watch'>) {}

  /** Moot scans Plex still holds. */
  get moot(): number {
    return this.unfollowed.length;
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

  /** The scans of these places are followed, moot, or have nothing to follow: no longer unrecorded. */
  recorded(accepted: PlexTicket['accepted']): void {
    if (accepted?.run !== this.run) return;
    for (const [id, n] of Object.entries(accepted.seq)) this.lines.get(id)?.unrecorded.delete(n);
  }

  /**
   * The ticket's place, only when this count placed it and the socket has been open since before Plex took it:
   * no end was missed.
   */
  placeOf(accepted: PlexTicket['accepted']): Record<string, number> | undefined {
    const since = this.opts.watch?.connectedSince;
    if (accepted?.run !== this.run || since === undefined || since > accepted.at) return undefined;
    return accepted.seq;
  }

  /**
   * A scan Plex took whose follow-up is moot: Plex still holds it, so it counts as outstanding until the line
   * passes it. Without a place in the line it cannot be told apart from the others and is not counted.
   */
  mootScan(accepted: PlexTicket['accepted']): void {
    this.recorded(accepted);
    const seq = this.placeOf(accepted);
    if (seq && !this.passed(seq)) this.unfollowed.push(seq);
  }

  /** The socket told of a scan end in the section. */
  ended(sectionId: string): void {
    // A line is begun only for a section a refresh is about to be sent to or a follow-up waits on (what the socket
    // keeps entries of): Plex may end our first scan of it before it answers the refresh, but a server ending
    // scans of other sections, or of made-up ones, adds no line.
    const line = this.lines.get(sectionId) ?? (this.opts.watch?.keeps(sectionId) ? this.lineOf(sectionId) : undefined);
    if (line) line.ended++;
    if (this.unfollowed.length) this.unfollowed = this.unfollowed.filter((seq) => !this.passed(seq));
  }

  /** Follow-ups whose scans the line says ended (in every section of theirs): marked so, no longer outstanding. */
  passedInLine(candidates: Followed[]): Followed[] {
    const passed: Followed[] = [];
    for (const f of candidates) {
      if (f.scanEnded || !f.seq) continue;
      if (!f.ticket.sections.every((s) => f.seq![s.id] !== undefined) || !this.passed(f.seq)) continue;
      f.scanEnded = true;
      f.seenRunning = true;
      passed.push(f);
    }
    return passed;
  }

  /**
   * The socket (re)opened: ends may have been missed while it was closed. Every scan taken before is counted as
   * still ahead in the line while its follow-up has not passed, so no later follow-up is judged before its turn
   * (those that ended unheard make later ones wait longer); so is a scan Plex took whose delivery is still being
   * recorded. Scans taken before with nothing to follow (no file) are counted as ended: one still queued at Plex
   * would let a later follow-up pass one scan early.
   */
  rebase(followed: Iterable<Followed>): void {
    // Ends were missed: the moot scans' places can no longer be told.
    this.unfollowed = [];
    const all = [...followed];
    const now = this.opts.clock.now();
    for (const [id, line] of this.lines) {
      // A place left unrecorded this long lost its record to an exit not seen here (the relay stopping).
      for (const [n, at] of line.unrecorded) if (now - at > UNRECORDED_MS) line.unrecorded.delete(n);
      let ahead = line.unrecorded.size;
      for (const f of all) if (!f.scanEnded && f.ticket.sections.some((s) => s.id === id)) ahead++;
      line.ended = line.accepted - ahead;
    }
  }

  /** The line has passed this place in every section of it. */
  private passed(seq: Record<string, number>): boolean {
    return Object.entries(seq).every(([id, n]) => n <= (this.lines.get(id)?.ended ?? 0));
  }

  private lineOf(sectionId: string): SectionLine {
    let line = this.lines.get(sectionId);
    if (!line) this.lines.set(sectionId, (line = { accepted: 0, ended: 0, unrecorded: new Map() }));
    return line;
  }
}
