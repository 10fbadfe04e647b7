// Each section's queue of scans at Plex, counted while the socket is open: the refreshes Plex took and the ends it
// told of. Plex is assumed to run a section's scans one at a time in the order it took them (no Plex source says
// so: docs/targets.md), so a follow-up whose slot the count passed has had its scan end.
import { randomUUID } from 'node:crypto';
import { timeoutSignal, type Clock } from '../../../clock.js';
import type { PlexFollowUp, PlexTicket } from './follow-up.js';
import type { PlexNotifications } from './notifications.js';

/** Plex answers a refresh in milliseconds: one not answered by then no longer holds back the next of its section. */
const ANSWER_WAIT_MS = 1_000;
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
  /** Scans were counted as still ahead at a (re)open, though some may have ended unseen: the count may lag. */
  guessed: boolean;
  /** When /activities last made the count exact. */
  recountedAt?: number;
  /** Refreshes being sent, one at a time (`send`), how many, and whether an end came meanwhile with nothing else to end. */
  sending: Promise<unknown>;
  toSend: number;
  early: boolean;
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

  /** `reordered`: Plex's order is not known any more (the follower's, which also undoes the section's slots and says so); `distrust` alone without it. */
  constructor(private readonly opts: { clock: Clock; watch?: PlexNotifications; reordered?: (sectionId: string, why: string) => void }) {}

  get superseded(): number {
    return this.unfollowed.length;
  }

  /** Sections whose count is not trusted or may lag (guessed at a reopen), waiting for /activities to show them idle: the refreshes each took so far. */
  get untrusted(): Map<string, number> {
    return new Map([...this.queues].filter(([, q]) => q.trustedFrom === Infinity || q.guessed).map(([id, q]) => [id, q.accepted]));
  }

  /**
   * Plex took a refresh of the section: its slot in the section's queue. While the socket is open the n-th end it
   * tells of ends the n-th refresh taken, so a follow-up whose file the scan did not change learns that its scan
   * ended without waiting for the section to go idle, which under a steady load it never does.
   */
  accepted(sectionId: string): NonNullable<PlexTicket['accepted']> {
    const queue = this.queueOf(sectionId);
    const at = this.opts.clock.now();
    queue.unrecorded.set(++queue.accepted, at);
    // Plex can scan a small folder before it answers the refresh: an end heard while it was being sent was this one's.
    if (queue.early) [queue.early, queue.ended] = [false, queue.ended + 1];
    return { run: this.run, at, seq: { [sectionId]: queue.accepted } };
  }

  /**
   * Sends a refresh of the section (`refresh`) and places it in the queue once Plex took it. While the socket is open
   * (the count gives slots only then), one at a time per section: two refreshes in flight can be answered in the other
   * order than Plex took them, and the count would pass the wrong slot. A refresh not answered within ANSWER_WAIT_MS
   * lets the next go, and when its answer comes, which Plex took first is not known: the section is distrusted.
   */
  send(sectionId: string, refresh: () => Promise<unknown>): Promise<NonNullable<PlexTicket['accepted']>> {
    const queue = this.queueOf(sectionId);
    const counted = this.opts.watch?.connected === true;
    const before = counted ? queue.sending : Promise.resolve();
    let next!: () => void;
    if (counted) queue.sending = new Promise<void>((r) => (next = r));
    queue.toSend++;
    return before.then(async () => {
      const late = counted ? timeoutSignal(this.opts.clock, ANSWER_WAIT_MS) : undefined;
      late?.addEventListener('abort', next, { once: true });
      try {
        await refresh();
        if (late?.aborted && queue.toSend > 1) {
          const why = 'a refresh was answered after the next one of the section had gone';
          (this.opts.reordered ?? ((id: string) => this.distrust(id)))(sectionId, why);
        }
        return this.accepted(sectionId);
      } finally {
        if (counted) next();
        [queue.toSend, queue.early] = [queue.toSend - 1, false];
      }
    });
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
   * keeps entries of: a server ending scans of other sections, or of made-up ones, adds none. Nor is the end of a
   * scan that began before the socket opened (`startSeen` false) once /activities recounted the section since: that
   * scan was counted then, and its end, on its way meanwhile, would pass a later slot.
   */
  ended(sectionId: string, startSeen = true): boolean {
    const queue = this.queues.get(sectionId) ?? (this.opts.watch?.keeps(sectionId) ? this.queueOf(sectionId) : undefined);
    if (!queue || queue.ended >= queue.accepted) {
      if (queue) queue.early = queue.toSend > 0;
      return false;
    }
    const since = this.opts.watch?.connectedSince;
    if (!startSeen && since !== undefined && (queue.recountedAt ?? -Infinity) >= since) return false;
    queue.ended++;
    if (this.unfollowed.length) this.unfollowed = this.unfollowed.filter((seq) => !this.passedSlot(seq));
    return true;
  }

  /** The follow-ups whose slots the count has passed (in every section of theirs). */
  passed(candidates: PlexFollowUp[]): PlexFollowUp[] {
    return candidates.filter((f) => !f.ended && f.slot && f.ticket.sections.every((s) => f.slot![s.id] !== undefined) && this.passedSlot(f.slot));
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
    queue.guessed = false;
    queue.recountedAt = this.opts.clock.now();
    this.unfollowed = this.unfollowed.filter((seq) => !this.passedSlot(seq));
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
      // An end missed while the socket was down makes every later slot pass one end late: exact again at idle.
      queue.guessed ||= ahead > 0;
    }
  }

  /** The count has passed this slot in every section of it. */
  private passedSlot(seq: Record<string, number>): boolean {
    return Object.entries(seq).every(([id, n]) => n <= (this.queues.get(id)?.ended ?? 0));
  }

  private queueOf(sectionId: string): SectionQueue {
    let queue = this.queues.get(sectionId);
    if (!queue) this.queues.set(sectionId, (queue = { accepted: 0, ended: 0, unrecorded: new Map(), trustedFrom: 1, guessed: false, sending: Promise.resolve(), toSend: 0, early: false }));
    return queue;
  }
}
