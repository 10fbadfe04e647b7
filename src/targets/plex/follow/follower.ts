// Follows the scans one Plex server accepted, on the follow-up engine (src/follow/engine.ts): this is its observer,
// which turns what Plex says into events for the follow-ups and decides nothing (when to wait, poll, look or judge
// is follow-up.ts's `nextStep`). What it hears:
//  - the socket's scan ends (scan-ends.ts): an end moves its section's queue of scans (scan-queue.ts), which ends
//    the follow-ups whose slots it passed, and its items confirm the files waiting there;
//  - its looks: 'look', the library asked about the files of scans seen ended (the database, the recently added
//    items, the items of the ends seen lately), and 'poll', once per interval for every section followed: which
//    sections are scanning, and the cross-check (running-sections.ts).
// The verdicts of one step are finished together: the trash emptied once per section, each item analyzed once,
// the outcomes recorded in one commit.
import { FollowEngine, type Moment, type Verdict } from '../../../follow/engine.js';
import type { FollowItem, SocketStatus } from '../../../scan.js';
import { afterBatch, trashWanted, type AfterScanSettings, type BatchContext } from '../after-scan.js';
import { confirmBatch, type BatchConfirmation, type FileInLibrary } from '../confirm.js';
import { acceptedAt, apply, foundAmong, nextStep, sawAll, verdictOf, type PlexEvent, type PlexFollowUp, type PlexMoment, type PlexTicket } from './follow-up.js';
import type { PlexNotifications } from './notifications.js';
import { RunningSections } from './running-sections.js';
import { LOOKUPS_AT_ONCE, ScanEnds, type FollowUpBook, type Unfollowed } from './scan-ends.js';
import { ScanQueues } from './scan-queue.js';
import { itemsOfScans, plexGet, type PlexGet } from './scan-items.js';

/**
 * Between two polls of /activities while no socket can tell of scan ends and a scan sent lately is outstanding: Plex
 * gets at most PLEX_MAX_OUTSTANDING scans per poll then, and a poll that lands on a scan frees none.
 */
export const BLIND_POLL_MS = 100;
/** Partial scans take 0.1-1 s: one still outstanding this long after Plex took it is a long one, polled at the interval. */
export const BLIND_FAST_MS = 5_000;

export interface PlexFollowerOptions extends Omit<BatchContext, 'settings' | 'items' | 'said' | 'analyses'> {
  /** PLEX_FOLLOW_INTERVAL in ms: one /activities request per interval, whatever the number of folders. */
  pollMs: number;
  /** How long a section must stay idle before a file that is still not in the library is judged (per section). */
  graceMs: number;
  /** PLEX_CONFIRM_TIMEOUT in ms: the longest a scan is followed. */
  timeoutMs: number;
  after: AfterScanSettings;
  fileInLibrary?: FileInLibrary;
  /** A scan outstanding this long with its sections idle in /activities is over, whatever the socket says (running-sections.ts). */
  releaseAfterMs?: number;
  /** The server's notification socket; without it, scans are followed by polling /activities alone. */
  watch?: PlexNotifications;
  /** GET on Plex for the items' files; through `api` by default. */
  get?: PlexGet;
}

/**
 * The files of a batch are looked up and finished this many at a time unless the trash is to be emptied (once per
 * section, after the whole batch): the oldest are judged first, not after the lookups of the whole batch.
 */
export const FINISHED_TOGETHER = LOOKUPS_AT_ONCE * 4;

/** Scans remembered with no follow-up left, at most (the oldest forgotten first): an end of theirs must not end a later follow-up. */
const UNFOLLOWED_KEPT = 256;

export class PlexFollower extends FollowEngine<PlexFollowUp, PlexEvent, PlexMoment, 'poll' | 'look'> {
  /** Each section's queue of scans at Plex: the target places each refresh Plex took there (`accepted`), and says when one will have no follow-up (`recorded`). */
  readonly queues: ScanQueues;
  private readonly ends: ScanEnds;
  private readonly scanning: RunningSections;
  private readonly get: PlexGet;
  /**
   * The sections followed: how many follow-ups wait on each (the socket keeps the timeline entries of those with
   * any), when each went idle as the polls saw it, and its latest request: its grace counts from the later.
   */
  private readonly sections = new Map<string, { waiting: number; idleSince?: number; askedAt: number }>();
  /** Scans Plex may still hold that no follow-up waits for: the end of one is no follow-up's. */
  private readonly unfollowed: Unfollowed[] = [];
  private readonly said = { deep: false };
  /** The look whose poll is under way or done: one /activities request per look. */
  private polledLook = -1;
  /** Analyses shared by the parts of one batch of lookups, so an item or season is analyzed once for all of them. */
  private sharing?: Map<string, Promise<string[]>>;
  private unwatch?: () => void;
  private watching = false;

  constructor(private readonly opts: PlexFollowerOptions) {
    super({ server: 'Plex', clock: opts.clock, logger: opts.logger, intervalMs: opts.pollMs, judge: { apply, nextStep, verdict: verdictOf } });
    this.get = opts.get ?? plexGet(opts.api);
    this.scanning = new RunningSections(opts);
    this.queues = new ScanQueues({ ...opts, reordered: (id, why) => this.ends.reordered(id, why) });
    const book: FollowUpBook = { values: () => this.values(), tell: (fs, e) => void this.tell(fs, e), track: (p) => void this.track(p), unfollowed: this.unfollowed };
    this.ends = new ScanEnds(opts, this.get, this.queues, book);
    opts.watch?.followedBy((id) => (this.sections.get(id)?.waiting ?? 0) > 0);
  }

  /**
   * Without a socket that answers, only a poll sees a scan end, and the slots under PLEX_MAX_OUTSTANDING stay taken
   * until one does: a Plex that finishes its partial scans in tens of ms sat idle for the rest of each interval. So
   * while a scan taken less than BLIND_FAST_MS ago is outstanding, /activities is asked every BLIND_POLL_MS.
   */
  protected interval(): number {
    if (this.opts.watch?.connected) return this.opts.pollMs;
    const now = this.opts.clock.now();
    const young = this.values().some((f) => !f.ended && now - acceptedAt(f) < BLIND_FAST_MS);
    return young ? Math.min(this.opts.pollMs, BLIND_POLL_MS) : this.opts.pollMs;
  }

  /** Scans Plex accepted that are not yet seen ended: what MAX_OUTSTANDING caps (the processor's dispatch). */
  outstanding(): number {
    return this.queues.superseded + this.values().filter((f) => !f.ended).length;
  }

  /** A scan Plex took whose follow-up is superseded (its folder asked again meanwhile): outstanding until the count passes it. */
  superseded(ticket: unknown): void {
    const t = ticket as PlexTicket | undefined;
    this.queues.supersededScan(t?.accepted);
    if (t) this.unfollowedScan({ ticket: t, at: t.accepted?.at ?? this.opts.clock.now() });
  }

  /**
   * A scan is about to be sent, or a follow-up begins: the socket opens with the first and stays open; a relay that
   * has sent Plex nothing holds none (ws stays unloaded). A scan that begins before it is open is caught by the poll
   * every (re)connect asks for (pollDue). `sections`: about to be asked, their timeline entries kept from now.
   */
  watchScans(sections: readonly string[] = []): void {
    this.opts.watch?.expect(sections);
    if (!this.running || this.watching || !this.opts.watch) return;
    this.watching = true;
    this.opts.watch.start();
  }

  /** Its notification socket's state, once opened (health). */
  socketStatus(): SocketStatus | undefined {
    return this.watching ? this.opts.watch?.status() : undefined;
  }

  protected begin(item: FollowItem, key: string, m: Moment): PlexFollowUp {
    // Follow-ups restored at start (scans sent before a restart) need the socket as much as new scans do.
    this.watchScans();
    this.opts.watch?.heedNow();
    const ticket = item.ticket as PlexTicket;
    this.queues.recorded(ticket.accepted);
    const slot = this.queues.slotOf(ticket.accepted);
    return { key, item, ticket, followedAt: m.now, polled: m.look, seenRunning: false, looking: 0, ...(slot ? { slot } : {}) };
  }

  protected followed(f: PlexFollowUp): void {
    for (const s of f.ticket.sections) {
      const section = this.sections.get(s.id);
      // A scan of the section was handed over to be followed: its grace starts again.
      this.sections.set(s.id, { ...section, waiting: (section?.waiting ?? 0) + 1, askedAt: f.followedAt });
    }
    // A small folder can be scanned before its delivery is recorded as followed: its scan's end is still here.
    this.ends.late(f);
  }

  protected ended(f: PlexFollowUp): void {
    for (const s of f.ticket.sections) this.sections.get(s.id)!.waiting--;
    if (!f.ended) this.unfollowedScan({ ticket: f.ticket, at: acceptedAt(f) });
  }

  protected open(): void {
    const watch = this.opts.watch;
    if (!watch) return;
    const ended = watch.onEnded((scan) => {
      this.scanning.seenEnd();
      this.ends.ended(scan);
    });
    // Each (re)open: ends seen before are no guide to what ended meanwhile, and /activities is asked now, not at the
    // next interval: a section found idle makes its count exact again (a Plex back from an outage ends at once scans
    // it took before the socket opened).
    const connected = watch.subscribe((e) => {
      if (e.kind !== 'connection' || !e.connected) return;
      this.queues.rebase(this.values());
      this.lookNow();
    });
    this.unwatch = () => (ended(), connected());
  }

  protected async close(): Promise<void> {
    this.unwatch?.();
    this.unwatch = undefined;
    await this.opts.watch?.stop();
  }

  protected moment(m: Moment): PlexMoment {
    const graceOver = (f: PlexFollowUp) =>
      f.ticket.sections.every((s) => {
        const section = this.sections.get(s.id);
        return section?.idleSince !== undefined && m.now - Math.max(section.idleSince, section.askedAt) >= this.opts.graceMs;
      });
    return { ...m, timeoutMs: this.opts.timeoutMs, graceOver, socketSince: this.opts.watch?.connectedSince };
  }

  /** Told a scan's end before it is judged: its slot at Plex is free, whatever judging is left. */
  protected tell(told: PlexFollowUp | PlexFollowUp[], e: PlexEvent): Promise<void> {
    const outstanding = (Array.isArray(told) ? told : [told]).filter((f) => !f.ended);
    const stepped = super.tell(told, e);
    if (outstanding.some((f) => f.ended)) this.freed?.();
    return stepped;
  }

  /** A batch whose scans ended: the after-scan steps, then every outcome at once (one commit); those expired as they are. */
  protected async finish(verdicts: Verdict<PlexFollowUp>[]): Promise<void> {
    const judged = verdicts.filter((v) => v.step === 'judge');
    const expired = verdicts.filter((v) => v.step === 'expire').map((v) => this.report(v.f.item, v.result));
    if (!judged.length) return void (await Promise.all(expired));
    const notes = await afterBatch({
      ...this.opts,
      settings: this.opts.after,
      said: this.said,
      analyses: this.sharing ?? new Map(),
      items: judged.map(({ f }) => {
        const found = f.evidence?.state === 'confirmed' ? f.evidence : undefined;
        return { sections: f.ticket.sections, event: f.item.event, file: f.ticket.file, ids: f.ticket.ids, ratingKey: found?.ratingKey, parentRatingKey: found?.parentRatingKey };
      }),
    }).catch((err: unknown) => {
      this.opts.logger.error({ err: String(err) }, `the after-scan steps of a batch failed (${String(err)}); recording the outcomes without them`);
      return judged.map(() => [] as string[]);
    });
    const recorded = judged.map(({ f, result }, i) => this.report(f.item, { ...result, detail: [result.detail, ...notes[i]].join(' ') }));
    await Promise.all([...expired, ...recorded]);
  }

  /** One look at what Plex runs for every followed section: follow-ups of sections seen idle (or freed by the cross-check) ended. */
  private async poll(m: PlexMoment): Promise<void> {
    if (this.polledLook === m.look) return;
    this.polledLook = m.look;
    // A section whose count is not trusted is counted again only once /activities shows it idle: asked each interval until then.
    const untrusted = this.queues.untrusted;
    if (untrusted.size && this.opts.watch) this.opts.watch.pollDue = true;
    const answer = await this.scanning.ask(this.values(), m.now);
    // Those followed now, but not those that came while Plex was asked (only a later poll can find them idle).
    const followed = this.values().filter((f) => f.polled < m.look);
    if ('unreachable' in answer) return this.tell(followed, { kind: 'polled', look: m.look, unreachable: answer.unreachable });
    const { running, freed, idle } = answer;
    if (idle) for (const [id, acceptedBefore] of untrusted) if (idle(id)) this.ends.recounted(id, acceptedBefore);
    // What it saw running (from when it began); sections no longer followed are forgotten.
    for (const [id, section] of this.sections) {
      if (section.waiting <= 0) this.sections.delete(id);
      else if (running.has(id)) section.idleSince = undefined;
      else section.idleSince ??= m.now;
    }
    // Plex runs a section's scans in the order it took them: one behind an earlier scan still followed has not started.
    const ahead = new Set<string>();
    const behind = new Set<string>();
    for (const f of this.values()) {
      if (f.ticket.sections.some((s) => ahead.has(s.id))) behind.add(f.key);
      for (const s of f.ticket.sections) ahead.add(s.id);
    }
    return this.tell(followed, { kind: 'polled', look: m.look, at: m.now, running, freed, behind });
  }

  /**
   * 'poll': what Plex runs. 'look': the library asked about these files, oldest first, a part at a time (all at once
   * when the trash is to be emptied, once per section after the whole batch): those that waited longest are recorded
   * before the rest are looked up. The database when readable (the only source that can say not-found), the recently
   * added items where the socket cannot vouch for the scan, and, for a file still without a sign, the items of the
   * scan ends seen lately (an earlier scan of its folder may have added it).
   */
  protected async look(kind: 'poll' | 'look', fs: PlexFollowUp[], m: PlexMoment): Promise<void> {
    if (kind === 'poll') return this.poll(m);
    await this.tell(fs, { kind: 'looking' });
    const together = trashWanted(this.opts.after) ? fs.length : FINISHED_TOGETHER;
    const analyses = new Map<string, Promise<string[]>>();
    for (let i = 0; i < fs.length; i += together) {
      const part = fs.slice(i, i + together);
      const evidence = await this.evidenceOf(part).catch((err: unknown) => {
        this.opts.logger.warn({ err: String(err) }, `could not ask Plex's library about ${part.length} file(s) (${String(err)}); judged on what is known`);
        return new Map<string, BatchConfirmation>();
      });
      this.sharing = analyses;
      const stepped = this.tell(part, { kind: 'looked', evidence, library: true });
      this.sharing = undefined;
      await stepped;
    }
  }

  private async evidenceOf(fs: PlexFollowUp[]): Promise<Map<string, BatchConfirmation>> {
    const withFile = fs.filter((f) => f.ticket.file !== undefined);
    const evidence = new Map<string, BatchConfirmation>();
    if (!withFile.length) return evidence;
    const m = this.moment({ now: this.opts.clock.now(), look: 0 });
    const answers = await confirmBatch({
      api: this.opts.api,
      files: withFile.map((f) => ({ file: f.ticket.file!, sections: f.ticket.sections, listing: !sawAll(f, m) || !!f.unseen, sentAt: acceptedAt(f) })),
      fileInLibrary: this.opts.fileInLibrary,
      wantItem: this.opts.analyze && this.opts.after.analyze !== 'off',
      concurrency: LOOKUPS_AT_ONCE,
    });
    withFile.forEach((f, i) => evidence.set(f.key, answers[i]));
    // No sign of these files yet: the items of every scan end of their sections seen lately, newest first.
    const unknown = withFile.filter((f) => evidence.get(f.key)!.state === 'unknown' && f.evidence?.state !== 'confirmed');
    const ends = unknown.length && this.opts.watch ? this.opts.watch.endedSince(new Set(unknown.flatMap((f) => f.ticket.sections.map((s) => s.id))), -Infinity).reverse() : [];
    if (!ends.length) return evidence;
    const found = await itemsOfScans(this.get, ends, new Set(unknown.map((f) => f.ticket.file!)), LOOKUPS_AT_ONCE).catch(() => new Map());
    return new Map([...evidence, ...foundAmong(unknown, found)]);
  }

  private unfollowedScan(u: Unfollowed): void {
    this.unfollowed.push(u);
    if (this.unfollowed.length > UNFOLLOWED_KEPT) this.unfollowed.shift();
  }
}
