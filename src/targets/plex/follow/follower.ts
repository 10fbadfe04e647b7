// Follows the scans one Plex server accepted: the Follower the follow-up stage drives. Each follow-up is a small
// state machine (follow-up.ts) in one record (follow-ups.ts); four entry points feed it events and none decides:
//  - the socket's scan ends and the section line (scan-ends.ts): a section's end passes places in its line and
//    its items confirm the files waiting there, one metadata request per item;
//  - the late path (scan-ends.ts): a follow-up recorded after its scan ended finds that end among the last ones;
//  - the poll, one per interval for every section followed (poll.ts): the socket's events while they can be
//    trusted, else /activities, and the cross-check that cannot stall; it ends the follow-ups of idle sections.
// What may be judged, and how, is the judge's (judge.ts) through follow-up.ts's `nextStep`; what follows a verdict
// (trash, analyze, the outcome recorded) is follow-outcomes.ts's.
import type { Follower, FollowItem, FollowResult, SocketStatus } from '../../../scan.js';
import type { FollowUp } from './follow-up.js';
import { FollowUps } from './follow-ups.js';
import type { PlexFollowerOptions, PlexTicket } from './follow-state.js';
import { FollowOutcomes } from './follow-outcomes.js';
import { IdleSections } from './idle-sections.js';
import { Judge } from './judge.js';
import { FollowPoll } from './poll.js';
import { ScanEnds } from './scan-ends.js';
import { SectionLines } from './section-line.js';

export class PlexFollower implements Follower {
  private readonly record = new FollowUps();
  private readonly idle: IdleSections;
  private readonly polling: FollowPoll;
  private readonly outcomes: FollowOutcomes;
  private readonly line: SectionLines;
  private readonly judge: Judge;
  private readonly ends: ScanEnds;
  private running = false;
  private loopDone?: Promise<void>;
  private wakeUp?: () => void;
  private polls = 0;
  private lastPollAt = -Infinity;
  private unwatch?: () => void;
  private watching = false;
  private stopping = new AbortController();

  constructor(private readonly opts: PlexFollowerOptions) {
    this.polling = new FollowPoll(opts);
    this.outcomes = new FollowOutcomes(opts);
    this.line = new SectionLines(opts);
    this.idle = new IdleSections(opts);
    this.judge = new Judge(opts, this.record, this.idle, this.outcomes);
    this.ends = new ScanEnds(opts, this.record, this.line, this.judge, (p) => this.outcomes.track(p));
    opts.watch?.followedBy((id) => this.record.follows(id));
  }

  /** Scans Plex accepted that are not yet seen ended: what MAX_OUTSTANDING caps (the processor's dispatch). */
  outstanding(): number {
    return this.line.superseded + this.record.outstanding();
  }

  /** A scan Plex took whose follow-up is superseded (its folder asked again meanwhile): outstanding until the line passes it. */
  superseded(ticket: unknown): void {
    const t = ticket as PlexTicket | undefined;
    this.line.mootScan(t?.accepted);
    if (t) this.record.unfollowedScan({ ticket: t, at: t.accepted?.at ?? this.opts.clock.now() });
  }

  /**
   * A scan is about to be sent, or a follow-up begins: Plex's notification socket opens with the first and stays
   * open. A relay that has sent Plex nothing holds no socket (ws stays unloaded) and runs no reconnect loop against
   * a Plex it has nothing to ask. A scan that begins before the socket is open is caught by the /activities poll every (re)connect asks for (scan-watch.ts, pollDue).
   * `sections`: those about to be asked, whose timeline entries are kept before any follow-up of them exists.
   */
  watchScans(sections: readonly string[] = []): void {
    this.opts.watch?.expect(sections);
    if (!this.running || this.watching || !this.opts.watch) return;
    this.watching = true;
    this.opts.watch.start();
  }

  /** Plex took a refresh of the section: its place in the section's line, for the ticket. */
  accepted(sectionId: string): PlexTicket['accepted'] & {} {
    return this.line.accepted(sectionId);
  }

  /** Scans Plex took that will have no follow-up (nothing to confirm, or the delivery failed after them). */
  noFollowUp(accepted: PlexTicket['accepted']): void {
    this.line.recorded(accepted);
  }

  /** Its notification socket's state, once opened (health). */
  socketStatus(): SocketStatus | undefined {
    return this.watching ? this.opts.watch?.status() : undefined;
  }

  /** Followed, or judged and still being finished (trash, analyze, recording). */
  get size(): number {
    return this.record.size + this.outcomes.finishing;
  }

  start(done: (item: FollowItem, result: FollowResult) => Promise<void>, freed?: () => void): void {
    this.outcomes.recordTo(done);
    this.record.onEnded = freed;
    if (this.running) return;
    this.running = true;
    if (this.opts.watch) {
      const ended = this.opts.watch.onEnded((scan) => (this.polling.heard(), this.ends.ended(scan)));
      const connected = this.opts.watch.onConnected(() => this.line.rebase(this.record.values()));
      this.unwatch = () => (ended(), connected());
    }
    this.loopDone = this.loop();
  }

  follow(item: FollowItem): void {
    // Follow-ups restored at start (scans sent before a restart) need the socket as much as new scans do.
    this.watchScans();
    this.opts.watch?.heedNow();
    const ticket = item.ticket as PlexTicket;
    const now = this.opts.clock.now();
    this.line.recorded(ticket.accepted);
    const f = this.record.add(item, ticket, { now, poll: this.polls }, this.line.placeOf(ticket.accepted));
    // A small folder can be scanned before its delivery is recorded as followed: its scan's end is still here.
    this.ends.late(f);
    this.idle.requested(ticket.sections, now);
    this.wakeUp?.();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.stopping.abort();
    this.wakeUp?.();
    this.unwatch?.();
    this.unwatch = undefined;
    await this.opts.watch?.stop();
    await this.loopDone;
    await this.outcomes.settled();
  }

  private async loop(): Promise<void> {
    const { clock, pollMs } = this.opts;
    this.stopping = new AbortController();
    while (this.running) {
      if (this.record.size === 0 || clock.now() < this.lastPollAt + pollMs) {
        const wait = this.record.size === 0 ? undefined : this.lastPollAt + pollMs - clock.now();
        // A wait of its own: a wake-up ends its sleep (and the listener the sleep holds), so waits woken early do
        // not pile listeners on one signal until their timers run out.
        const waiting = new AbortController();
        const stop = () => waiting.abort();
        this.stopping.signal.addEventListener('abort', stop, { once: true });
        await new Promise<void>((resolve) => {
          this.wakeUp = resolve;
          if (wait !== undefined) void clock.sleep(wait, waiting.signal).then(resolve);
        });
        waiting.abort();
        this.stopping.signal.removeEventListener('abort', stop);
        this.wakeUp = undefined;
        continue;
      }
      this.lastPollAt = clock.now();
      try {
        await this.poll();
      } catch (err) {
        this.opts.logger.error({ err: String(err) }, `following Plex scans failed (${String(err)}); trying again at the next poll`);
      }
    }
  }

  /**
   * One look at Plex for every followed section: the follow-ups of sections seen scanning are running, those of
   * idle ones (or released by the cross-check) ended, and those are judged in batches.
   */
  private async poll(): Promise<void> {
    const started = this.opts.clock.now();
    const poll = ++this.polls;
    // A uncertain section is counted again only once /activities shows it idle: asked each interval until then.
    const uncertain = new Map(this.line.uncertain.map((id) => [id, this.line.acceptedSoFar(id)]));
    if (uncertain.size && this.opts.watch) this.opts.watch.pollDue = true;
    const answer = await this.polling.ask(this.record.values(), started);
    // Those followed now: some may have come while Plex was asked (only a later poll can find them idle).
    const followed = this.record.values();
    if ('unreachable' in answer) return this.judge.settle(followed, { unreachable: answer.unreachable, look: false });
    const { running, released, quiet } = answer;
    if (quiet) for (const [id, acceptedBefore] of uncertain) if (quiet(id)) this.ends.resynced(id, acceptedBefore);
    this.idle.seen(followed, running, started);
    const ended: FollowUp[] = [];
    // Plex runs a section's scans in the order it took them: one behind an earlier scan still followed has not started.
    const ahead = new Set<string>();
    for (const f of followed) {
      const first = f.ticket.sections.every((s) => !ahead.has(s.id));
      for (const s of f.ticket.sections) ahead.add(s.id);
      if (f.addedAtPoll >= poll) continue;
      if (released.has(f)) this.record.tell(f, { kind: 'ended', by: 'released' });
      else if (f.ticket.sections.some((s) => running.has(s.id))) {
        this.record.tell(f, { kind: 'running', at: started, first });
        continue;
      }
      // Plex took the refresh before this poll and its sections are idle now: the scan is over, so it stops
      // counting against the cap here, not after the grace (which waits for what Plex may still write).
      else this.record.tell(f, { kind: 'ended', by: 'idle' });
      ended.push(f);
    }
    await this.judge.settle(ended);
    // The others only for their timeout.
    const idle = new Set(ended);
    await this.judge.settle(followed.filter((f) => !idle.has(f)), { look: false });
  }
}
