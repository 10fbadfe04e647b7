// Follows the scans one Plex server accepted. Through its notification socket when it is open: a section scan's
// end confirms at once the delivered files among the items it created or updated (one metadata request per
// item, src/plex/item-files.ts). When the socket is down, one /activities poll per interval for every section
// followed. Either way, per section that went idle, one batch for what is left: the database when readable, the
// recently added items only when the socket did not watch either; then empty the trash once, analyze each item once.
// With the socket, each section's line at Plex is counted (src/plex/section-line.ts): a follow-up whose place was
// passed has had its scan end, whatever the scan's items said, and no longer counts as outstanding.
import type { Follower, FollowItem, FollowResult, SocketStatus } from '../scan.js';
import { trashWanted } from './after-scan.js';
import { FINISHED_TOGETHER, LOOKUPS_AT_ONCE, type Finished, type Followed, type PlexFollowerOptions, type PlexTicket } from './follow-state.js';
import { FollowOutcomes } from './follow-outcomes.js';
import { itemsOfScans, plexGet, type PlexGet } from './item-files.js';
import { IdleSections, lookUp } from './idle-sections.js';
import { FollowPoll } from './poll.js';
import type { EndedScan } from './scan-watch.js';
import { SectionLines } from './section-line.js';
import { secs, verdict } from './verdict.js';

/** A scan that ended this long before its delivery was recorded can still be the delivery's (clocks of one process). */
const RECENT_SLACK_MS = 5_000;

export class PlexFollower implements Follower {
  private readonly items = new Map<string, Followed>();
  private readonly idle: IdleSections;
  private readonly polling: FollowPoll;
  private readonly outcomes: FollowOutcomes;
  private running = false;
  private loopDone?: Promise<void>;
  private wakeUp?: () => void;
  private polls = 0;
  private lastPollAt = -Infinity;
  private unwatch?: () => void;
  private watching = false;
  private stopping = new AbortController();
  private readonly get: PlexGet;
  private readonly line: SectionLines;

  constructor(private readonly opts: PlexFollowerOptions) {
    this.polling = new FollowPoll(opts);
    this.get = opts.get ?? plexGet(opts.api);
    this.outcomes = new FollowOutcomes(opts);
    this.line = new SectionLines(opts);
    this.idle = new IdleSections(opts);
  }

  /** Scans Plex accepted that are not yet seen ended: what MAX_OUTSTANDING caps (the processor's dispatch). */
  outstanding(): number {
    let n = this.line.moot;
    for (const f of this.items.values()) if (!f.scanEnded) n++;
    return n;
  }

  /** A scan Plex took whose follow-up is moot (its folder asked again meanwhile): outstanding until the line passes it. */
  moot(ticket: unknown): void {
    this.line.mootScan((ticket as PlexTicket | undefined)?.accepted);
  }

  /**
   * A scan is about to be sent, or a follow-up begins: Plex's notification socket opens with the first and stays
   * open. A relay that has sent Plex nothing holds no socket (ws and node:crypto stay unloaded, 1.5 MB of an idle
   * relay on Node 24) and runs no reconnect loop against a Plex it has nothing to ask. A scan that begins before
   * the socket is open is caught by the /activities poll every (re)connect asks for (scan-watch.ts, pollDue).
   */
  watchScans(): void {
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
    return this.items.size + this.outcomes.finishing;
  }

  start(done: (item: FollowItem, result: FollowResult) => Promise<void>): void {
    this.outcomes.recordTo(done);
    if (this.running) return;
    this.running = true;
    if (this.opts.watch) {
      const ended = this.opts.watch.onEnded((scan) => this.scanEnded(scan));
      const connected = this.opts.watch.onConnected(() => this.line.rebase(this.items.values()));
      this.unwatch = () => (ended(), connected());
    }
    this.loopDone = this.loop();
  }

  follow(item: FollowItem): void {
    // Follow-ups restored at start (scans sent before a restart) need the socket as much as new scans do.
    this.watchScans();
    this.opts.watch?.heedNow();
    const ticket = item.ticket as PlexTicket;
    const key = `${item.ref.folderId}:${item.ref.generation}`;
    const followed: Followed = { item, ticket, addedAtPoll: this.polls, seenRunning: false, followedAt: this.opts.clock.now() };
    this.line.recorded(ticket.accepted);
    const seq = this.line.placeOf(ticket.accepted);
    if (seq) followed.seq = seq;
    this.items.set(key, followed);
    const now = this.opts.clock.now();
    // A small folder can be scanned before its delivery is recorded as followed: its scan's end is still here.
    // The ends are looked through newest first, once, stopping at the file: under load there are hundreds of
    // them, and one lookup each for every follow-up was most of the relay's CPU per scan.
    let confirming: Promise<void> | undefined;
    if (ticket.file && this.opts.watch) {
      const ends = this.opts.watch.endedSince(new Set(ticket.sections.map((s) => s.id)), item.deliveredAt - RECENT_SLACK_MS);
      if (ends.length) confirming = followed.looking = this.confirmFromScans(ends.reverse(), [followed]);
    }
    const passed = this.line.passedInLine([followed]);
    if (passed.length || confirming) this.track((confirming ?? Promise.resolve()).then(() => this.judgePassed(passed)));
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
      if (this.items.size === 0 || clock.now() < this.lastPollAt + pollMs) {
        const wait = this.items.size === 0 ? undefined : this.lastPollAt + pollMs - clock.now();
        await new Promise<void>((resolve) => {
          this.wakeUp = resolve;
          if (wait !== undefined) void clock.sleep(wait, this.stopping.signal).then(resolve);
        });
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

  /** One look at Plex for every followed section, then the batches of the sections that are idle. */
  private async poll(): Promise<void> {
    const { clock } = this.opts;
    const started = clock.now();
    const poll = ++this.polls;
    const answer = await this.polling.ask([...this.items.values()], started);
    if ('unreachable' in answer) return this.expire(clock.now(), `Plex did not say whether the scan ended (${answer.unreachable})`);
    const { running, released } = answer;
    this.idle.seen(this.items.values(), running, started);
    const judged: Followed[] = [];
    // Plex runs a section's scans in the order it took them: one behind an earlier scan still followed waits.
    const ahead = new Set<string>();
    for (const f of this.items.values()) {
      const first = f.ticket.sections.every((s) => !ahead.has(s.id));
      for (const s of f.ticket.sections) ahead.add(s.id);
      if (f.addedAtPoll >= poll) continue;
      if (f.ticket.sections.some((s) => running.has(s.id)) && !released.has(f)) {
        f.seenRunning = true;
        if (first) f.startedAt ??= started;
      } else {
        // Plex took the refresh before this poll and its sections are idle now: the scan is over, so it stops
        // counting against the cap here, not after the grace (which waits for what Plex may still write).
        f.scanEnded = true;
        judged.push(f);
      }
    }
    const together = trashWanted(this.opts.after) ? judged.length : FINISHED_TOGETHER;
    const ended = new Set<Followed>();
    // Shared by the parts of this batch, so each item (or parent) is analyzed once for all of them.
    const analyses = new Map<string, Promise<string[]>>();
    for (let i = 0; i < judged.length; i += together) {
      const finished = await this.idle.judge(judged.slice(i, i + together), clock.now());
      for (const r of finished) ended.add(r.followed);
      if (finished.length) this.finishBatch(finished, analyses);
    }
    this.expire(clock.now(), undefined, ended);
  }

  /**
   * A section's scan ended: its delivered files among the items the scan created or updated are confirmed now;
   * the follow-ups whose place in the line it passed are judged once that is done.
   */
  private scanEnded(scan: EndedScan): void {
    this.polling.heard();
    this.line.ended(scan.sectionId);
    const inSection = [...this.items.values()].filter((f) => f.ticket.sections.some((s) => s.id === scan.sectionId));
    const waiting = inSection.filter((f) => f.ticket.file !== undefined);
    for (const f of waiting) f.seenRunning = true;
    const passed = this.line.passedInLine(inSection);
    const confirming = waiting.length ? this.confirmFromScans([scan], waiting) : Promise.resolve();
    for (const f of waiting) f.looking = f.looking ? Promise.all([f.looking, confirming]).then(() => undefined) : confirming;
    this.track(passed.length ? confirming.then(() => this.judgePassed(passed)) : confirming);
  }

  /**
   * Follow-ups whose scans ended: those an earlier scan's items confirmed end so; for the others, whose file the
   * scan did not add or change, the database settles it when readable; otherwise Plex finished the scan and
   * nothing can tell more (`scanned`). A file the database does not have stays followed (no longer outstanding)
   * and is judged when its section is idle, as any not-found is.
   */
  private async judgePassed(passed: Followed[]): Promise<void> {
    // A read of an earlier end's items may still find the file: the database or "scanned" only after it.
    await Promise.allSettled(passed.map((f) => f.looking));
    const left = passed.filter((f) => this.items.get(keyOf(f.item)) === f);
    if (!left.length) return;
    const withFile = left.filter((f) => f.ticket.file !== undefined && f.last?.state !== 'confirmed');
    if (withFile.length) await lookUp(this.opts, withFile, () => false);
    const now = this.opts.clock.now();
    const finished: Finished[] = [];
    for (const f of left) {
      if (this.items.get(keyOf(f.item)) !== f || f.last?.state === 'not-found') continue;
      finished.push({ followed: f, ...verdict({ file: f.ticket.file, waitedMs: now - f.item.deliveredAt, seenRunning: true, last: f.last }) });
    }
    if (finished.length) this.finishBatch(finished, new Map());
  }

  /** Confirms the waiting files among the items of these ended scans (newest first: the first found is kept). */
  private async confirmFromScans(scans: EndedScan[], waiting: Followed[]): Promise<void> {
    let found;
    try {
      found = await itemsOfScans(this.get, scans, new Set(waiting.map((f) => f.ticket.file!)), LOOKUPS_AT_ONCE);
    } catch (err) {
      // What is left is judged as usual once its section is idle.
      this.opts.logger.warn({ err: String(err) }, `could not read the items of a Plex scan of section ${scans[0].sectionId} (${String(err)}); its files are judged when the section is idle`);
      return;
    }
    const now = this.opts.clock.now();
    const finished: Finished[] = [];
    for (const f of waiting) {
      const item = found.get(f.ticket.file!);
      if (!item || this.items.get(keyOf(f.item)) !== f) continue;
      f.last = { state: 'confirmed', via: 'notifications', ratingKey: item.ratingKey, parentRatingKey: item.parentRatingKey };
      // In the library already, by an earlier scan of its folder; its own scan is still in Plex's line, and it is
      // finished (and its folder may be sent again) when that scan ends.
      if (f.seq && !f.scanEnded) continue;
      finished.push({ followed: f, ...verdict({ file: f.ticket.file, waitedMs: now - f.item.deliveredAt, seenRunning: true, last: f.last }) });
    }
    if (finished.length) this.finishBatch(finished, new Map());
  }

  /** Items followed for longer than PLEX_CONFIRM_TIMEOUT end unconfirmed. */
  private expire(now: number, why?: string, skip = new Set<Followed>()): void {
    const expired: { followed: Followed; result: FollowResult }[] = [];
    for (const f of this.items.values()) {
      // A scan still queued in Plex has not started, so its timeout has not begun (unreachable: from acceptance).
      const from = why ? f.item.deliveredAt : f.startedAt;
      if (skip.has(f) || from === undefined || now - from < this.opts.timeoutMs) continue;
      const detail = why ?? `Plex was still scanning after ${secs(now - f.item.deliveredAt)} s (PLEX_CONFIRM_TIMEOUT)`;
      expired.push({ followed: f, result: { state: 'unconfirmed', detail: `${detail}; not confirmed, trash and analyze skipped.` } });
    }
    for (const e of expired) this.items.delete(keyOf(e.followed.item));
    this.outcomes.plain(expired.map((e) => ({ item: e.followed.item, ticket: e.followed.ticket, result: e.result })));
  }

  private finishBatch(all: Finished[], analyses: Map<string, Promise<string[]>>): void {
    // An item confirmed by its scan's end while a poll judged it is finished once, by whichever came first.
    const finished = all.filter((f) => this.items.get(keyOf(f.followed.item)) === f.followed);
    for (const f of finished) this.items.delete(keyOf(f.followed.item));
    if (finished.length) this.outcomes.afterScan(finished.map((f) => ({ ...f, item: f.followed.item, ticket: f.followed.ticket })), analyses);
  }

  private track(p: Promise<void>): void {
    this.outcomes.track(p);
  }
}

function keyOf(item: FollowItem): string {
  return `${item.ref.folderId}:${item.ref.generation}`;
}

