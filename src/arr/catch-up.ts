// One app's catch-up: its history since the cursor, page by page (history-read.ts: a minute of overlap,
// deduplicated by the app's event ids), each page turned into the scans its webhooks would have asked for
// (history.ts) and handed to the intake in bounded chunks, the cursor saved after each. At start, every CATCH_UP_INTERVAL while the app
// answers, and sooner while it does not: the first answer after silence catches up at once. Then the series, movies,
// artists or authors deleted since the last catch-up, which the history cannot tell (deleted-items.ts).
import type { Clock } from '../clock.js';
import type { ArrEntry } from '../config/arr-schema.js';
import type { Intake } from '../intake/intake.js';
import type { Logger } from '../log/logger.js';
import type { ScanRequest, Source } from '../request.js';
import type { Payload } from '../triggers/payload.js';
import { arrApp, type ArrApp } from './apps.js';
import type { AskedFolders } from './asked.js';
import { queueCaughtUp, type CaughtUpBatch } from './caught-up-queue.js';
import type { AppStatus, ArrClient } from './client.js';
import type { ArrCursors } from './cursors.js';
import { DeletedItems } from './deleted-items.js';
import { historyScans, type HistoryScan } from './history.js';
import type { ItemFolders } from './item-folders.js';
import { AppLink } from './link.js';
import { cursorAfter, nextTurn, openHistory, type HistoryPages, type HistoryRead } from './history-read.js';
import type { HistoryRecord } from './records.js';

/** How often an app that does not answer is asked again (or CATCH_UP_INTERVAL, when shorter). */
export const RETRY_MS = 30_000;

export interface CatchUpDeps {
  entry: ArrEntry;
  client: ArrClient;
  cursors: ArrCursors;
  /** The folders of each app's items as last listed: where missed deletes are found. */
  folders: ItemFolders;
  asked: AskedFolders;
  intake: Intake;
  clock: Clock;
  logger: Logger;
  /** SERVER_SCAN_DELAY (ms) and SERVER_SCAN_DELAYS: what a caught-up request waits (caught-up-queue.ts). */
  scanDelayMs: number;
  scanDelays?: Record<string, number>;
  /** The most requests handed to the intake at once (SERVER_MAX_REQUEST_PATHS or less). */
  chunk: number;
  /** Events caught up (metrics): history events and items found deleted, as `caughtUp` counts them. */
  onCaughtUp?: (app: string, events: number) => void;
}

export class AppCatchUp {
  readonly link: AppLink;
  /**
   * Events handed on since start: history events, and items found gone from the item list (one delete webhook each),
   * so an app whose only change while down was a deleted series does not show nothing caught up.
   */
  caughtUp = 0;
  /** The newest history event handed on: a delete found in the item list has no date of its own. */
  lastEventAt: number | undefined;
  lastCatchUpAt: number | undefined;
  private timer: NodeJS.Timeout | undefined;
  private inflight: Promise<void> | undefined;
  /** No timer runs (before start, after stop). */
  private stopped = true;
  /** Stopped by the service: a catch-up under way hands on no further chunk. */
  private ended = false;
  private readonly owners = new Map<number, Payload>();
  private readonly deletes: DeletedItems;
  /** The last history answer skipped unread, and why; cleared by a catch-up that reads every answer. */
  private historySkipped: string | undefined;

  constructor(private readonly deps: CatchUpDeps) {
    this.link = new AppLink(deps.client.who, deps.logger, deps.clock);
    this.deletes = new DeletedItems({ app: deps.entry.NAME, client: deps.client, store: deps.folders, clock: deps.clock, logger: deps.logger });
  }

  get name(): string {
    return this.deps.entry.NAME;
  }

  get client(): ArrClient {
    return this.deps.client;
  }

  get type(): string {
    return this.deps.entry.TYPE;
  }

  get intervalSeconds(): number {
    return this.deps.entry.CATCH_UP_INTERVAL;
  }

  /** An answer of this app's skipped unread (its history or its item list), and why: /health is degraded while it stands. */
  get skipped(): string | undefined {
    return this.historySkipped ?? this.deletes.skipped;
  }

  /** Where the next reading starts (the app's clock), once the app was first reached. */
  get cursorAt(): number | undefined {
    return this.deps.cursors.get(this.name)?.at;
  }

  start(): void {
    this.stopped = false;
    this.ended = false;
    this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.ended = true;
    clearTimeout(this.timer);
    await this.inflight;
  }

  /** The app was heard from (one of its webhooks): an app taken for silent is asked at once. */
  heard(): void {
    if (!this.stopped && !this.link.up && !this.inflight) this.schedule(0);
  }

  /** One catch-up now (or the one running); never throws. */
  catchUp(): Promise<void> {
    this.inflight ??= this.pass()
      .catch((err: Error) => this.deps.logger.error({ app: this.deps.client.who }, `Catching up on ${this.deps.client.who}: unexpected error: ${err.message}`))
      .finally(() => (this.inflight = undefined));
    return this.inflight;
  }

  private schedule(ms: number): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.catchUp().then(() => !this.stopped && this.schedule(this.nextDelay())), ms);
    this.timer.unref();
  }

  private nextDelay(): number {
    const interval = this.deps.entry.CATCH_UP_INTERVAL * 1000;
    return this.link.up ? interval : Math.min(interval, RETRY_MS);
  }

  private async pass(): Promise<void> {
    const { entry, client, clock, cursors } = this.deps;
    let pages: HistoryPages | undefined;
    let status: AppStatus;
    let arr: ArrApp;
    const cursor = cursors.get(entry.NAME);
    try {
      status = await client.status();
      arr = arrApp(entry.TYPE, status.version);
      if (cursor) pages = await openHistory(client, arr, cursor, clock);
    } catch (err) {
      // Stopped: the calls in flight were aborted, which says nothing of the app.
      if (this.ended) return;
      return this.link.failed(err);
    }
    if (!pages || !cursor) this.firstContact(status.appName, status.version);
    else if (!(await this.caughtUpOn(status, pages, cursor.at))) return;
    if (!this.ended) await this.catchDeletes(arr);
  }

  /**
   * Hands on what the history holds, a page at a time; false when the app stopped answering mid-way (the pages
   * handed on stay handed on) or the queue could not take a page (it is read again next time).
   */
  private async caughtUpOn(status: AppStatus, pages: HistoryPages, from: number): Promise<boolean> {
    const { entry, client, clock, cursors } = this.deps;
    this.link.answered(status.appName, status.version, from);
    for (;;) {
      let read: HistoryRead | undefined;
      try {
        read = await pages.next(cursors.get(entry.NAME) ?? { at: from, seen: [] });
      } catch (err) {
        if (!this.ended) this.link.failed(err);
        return false;
      }
      if (!read) break;
      try {
        await this.handOn(read);
      } catch (err) {
        // The queue's fault (a full disk), not the app's: what was not committed is read again next time.
        this.deps.logger.warn({ app: client.who }, `Could not queue what ${client.who}'s history holds: ${(err as Error).message}. The catch-up stays where it was and reads it again next time.`);
        return false;
      }
      if (this.ended) return false;
    }
    this.notePoisoned(pages);
    if (pages.unreadable.length) {
      this.deps.logger.warn({ app: client.who, count: pages.unreadable.length }, `Set aside ${pages.unreadable.length} record(s) of ${client.who}'s history that are not history records as ${entry.TYPE} writes them (${pages.unreadable[0]}): is the URL of ARR entry "${entry.NAME}" this app's?`);
    }
    this.lastCatchUpAt = clock.now();
    return true;
  }

  /**
   * A page too large or too costly to read is skipped, not read again at every catch-up (the app would answer it
   * again, and no restart would get past it): said once, shown on /health and the dashboard, the cursor moved on.
   */
  private notePoisoned(pages: HistoryPages): void {
    const { client, logger } = this.deps;
    if (pages.poisoned.length === 0) return void (this.historySkipped = undefined);
    const first = this.historySkipped === undefined;
    const since = new Date(pages.from).toISOString();
    this.historySkipped = `its history since ${since} was skipped unread: ${pages.poisoned[0]}`;
    const line = `${client.who}'s history since ${since} was skipped: ${pages.poisoned.join('; ')}. The catch-up moves on from ${new Date(pages.askedAt).toISOString()}: what the app did in between is not scanned, so scan its folders by hand if it matters, and look at what the app answers (GET /history).`;
    if (first) logger.warn({ app: client.who }, line);
    else logger.debug({ app: client.who }, line);
  }

  /** The items deleted since the last list, queued as their delete webhooks would have; the list kept once queued. */
  private async catchDeletes(arr: ArrApp): Promise<void> {
    const found = await this.deletes.read(arr, this.sourceOf(arr));
    if (!found) return;
    try {
      await this.submit([{ requests: found.requests, date: found.since }]);
      found.commit();
      // Counted once the list is kept: a queue that failed leaves them to the next comparison, which counts them then.
      this.counted(found.items);
    } catch (err) {
      const who = this.deps.client.who;
      this.deps.logger.warn({ app: who }, `Could not queue the folders of what ${who} deleted: ${(err as Error).message}. Its last list is kept and compared again next time.`);
    }
  }

  /** The webhook source an app's payloads are read as: whisparr for Whisparr, whichever code it runs. */
  private sourceOf(arr: ArrApp): Source {
    return (this.deps.entry.TYPE === 'whisparr' ? 'whisparr' : arr.name) as Source;
  }

  /** The first answer of an app scanrelay did not know: its history from now on, nothing before. */
  private firstContact(appName: string, version: string): void {
    const now = this.deps.clock.now();
    this.deps.cursors.set(this.name, this.deps.entry.TYPE, { at: now, seen: [] }, now);
    this.link.answered(appName, version, undefined);
    this.deps.logger.info(
      { app: this.deps.client.who },
      `${this.deps.client.who} is caught up from now (${new Date(now).toISOString()}): what it imports while scanrelay cannot be reached is scanned when it can; nothing from before is scanned again.`,
    );
    this.lastCatchUpAt = now;
  }

  private async handOn(read: HistoryRead): Promise<void> {
    const { fresh } = read;
    if (fresh.length === 0) return read.poisoned.length || read.reached > read.cursor.at ? this.save(read, new Set(), 0) : undefined;
    const app = this.sourceOf(read.arr);
    const owners = await this.ownersOf(read.arr, fresh);
    await nextTurn();
    const { scans, skipped } = historyScans(read.arr, app, fresh, owners);
    await nextTurn();
    for (const s of skipped.slice(0, 3)) this.deps.logger.debug({ app: this.deps.client.who, record: s.id }, `History record ${s.id} of ${this.deps.client.who} was not scanned: ${s.reason}.`);
    const done = new Set<HistoryRecord>();
    let i = 0;
    do {
      const chunk: HistoryScan[] = [];
      for (let n = 0; i < scans.length && (chunk.length === 0 || n + scans[i].requests.length <= this.deps.chunk); i++) {
        n += scans[i].requests.length;
        chunk.push(scans[i]);
      }
      // A queue that cannot be written throws here: the cursor stays after the last chunk committed.
      await this.submit(chunk.map((s) => ({ requests: s.requests, date: s.records.reduce((at, r) => Math.max(at, r.date), -Infinity) })));
      for (const scan of chunk) {
        for (const r of scan.records) {
          done.add(r);
          this.lastEventAt = Math.max(this.lastEventAt ?? r.date, r.date);
        }
      }
      const next = i < scans.length ? scans[i].first : fresh.length;
      this.save(read, done, next);
      this.counted(chunk.reduce((n, s) => n + s.records.length, 0) + (next === fresh.length ? skipped.length : 0));
    } while (i < scans.length && !this.ended);
  }

  private counted(events: number): void {
    this.caughtUp += events;
    this.deps.onCaughtUp?.(this.name, events);
  }

  private save(read: HistoryRead, done: Set<HistoryRecord>, next: number): void {
    this.deps.cursors.set(this.name, this.deps.entry.TYPE, cursorAfter(read, done, next, this.deps.clock.now()), this.deps.clock.now());
  }

  private submit(batches: CaughtUpBatch[]): Promise<void> {
    const { intake, asked, scanDelayMs, scanDelays, chunk, client, clock } = this.deps;
    return queueCaughtUp({ intake, asked, scanDelayMs, scanDelays, chunk, client: `${client.who} history` }, batches, clock.now());
  }

  /** The series or movie of each import (its IDs, as the webhook carries them for PLEX_FIX_MISMATCHED), when known. */
  private async ownersOf(arr: ArrApp, records: HistoryRecord[]): Promise<Map<number, Payload>> {
    if (!arr.ownerPath) return this.owners;
    const wanted = new Set(records.filter((r) => arr.imports.includes(r.eventType) && r.owner !== undefined).map((r) => r.owner!));
    for (const id of wanted) {
      if (this.ended) break;
      if (this.owners.has(id)) continue;
      const item = await this.deps.client.item(arr.ownerPath, id).catch(() => undefined);
      if (!item) continue;
      const { title, tvdbId, tmdbId, imdbId } = item;
      if (this.owners.size >= 5_000) this.owners.clear();
      this.owners.set(id, { title, tvdbId, tmdbId, imdbId });
    }
    return this.owners;
  }
}
