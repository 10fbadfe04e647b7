// The apps of ARR, connected: one catch-up each (catch-up.ts), the folders asked for that every catch-up checks its
// events against (asked.ts), the cursors and the items' folders in the queue file, and what /health and the
// dashboard show of each app. The entries can be read again while the relay runs (`scanrelay connect`, an edited
// config.json): an app added starts, one removed stops, one changed starts again, each keeping its cursor.
// Built by src/service.ts only when ARR has entries: an idle relay without them loads nothing of src/arr/.
import { APP_SENTENCE_MAX, appText } from './app-text.js';
import type Database from 'better-sqlite3';
import type { Activity, ActivityEvents } from '../activity.js';
import type { Clock } from '../clock.js';
import type { Doctor } from '../doctor/explain.js';
import type { ArrEntry } from '../config/arr-schema.js';
import type { Config } from '../config/schema.js';
import type { Intake } from '../intake/intake.js';
import type { Logger } from '../log/logger.js';
import { foldersAskedSince } from '../queue/asked.js';
import { AskedFolders } from './asked.js';
import { AppCatchUp } from './catch-up.js';
import { OVERLAP_MS } from './history-read.js';
import { arrClient } from './client.js';
import { ArrCursors } from './cursors.js';
import { ItemFolders } from './item-folders.js';
import type { LinkState } from './link.js';
import { appRoots, type AppRoots } from './roots.js';

export interface ConnectedAppsDeps {
  /** ARR, and what a caught-up request is queued with: SERVER_SCAN_DELAY(S), SERVER_MAX_REQUEST_PATHS (no chunk is larger). */
  config: Pick<Config, 'ARR' | 'SERVER_SCAN_DELAY' | 'SERVER_SCAN_DELAYS' | 'SERVER_MAX_REQUEST_PATHS'>;
  /** The queue file: the cursors live in it, and what it holds tells which folders were asked for. */
  db: Database.Database;
  intake: Intake;
  activity: Activity;
  clock: Clock;
  logger: Logger;
  fetch?: typeof fetch;
  onCaughtUp?: (app: string, events: number) => void;
}

/** One app as /health and the dashboard show it: never its key. */
export interface AppView {
  name: string;
  type: string;
  state: LinkState;
  reachable: boolean;
  version: string | null;
  /** The newest history event caught up since start (ISO). */
  lastEvent: string | null;
  /** Events caught up since start: history events and items found deleted from the item list. */
  caughtUp: number;
  /** Where the next reading starts (ISO, the app's clock), once the app was first reached. */
  cursor: string | null;
  lastCatchUp: string | null;
  intervalSeconds: number;
  error: string | null;
  /** The last answer of the app's that was skipped unread (too costly to read), and why: /health is degraded while it stands. */
  skipped: string | null;
}

/** What reading the ARR entries again changed, by NAME. */
export interface AppsUpdate {
  added: string[];
  changed: string[];
  removed: string[];
  unchanged: string[];
}

const CHUNK = 500;

export class ConnectedApps {
  apps: AppCatchUp[];
  private readonly asked = new AskedFolders();
  private readonly cursors: ArrCursors;
  private readonly folders: ItemFolders;
  private readonly detach: () => void;
  private readonly entries = new Map<AppCatchUp, string>();
  private started = false;
  private noted = 0;
  /** Aborted at stop: a catch-up in flight (a slow history answer, series look-ups) ends at once, not at its timeouts. */
  private readonly stopping = new AbortController();

  constructor(private readonly deps: ConnectedAppsDeps) {
    this.cursors = new ArrCursors(deps.db);
    this.folders = new ItemFolders(deps.db);
    this.apps = deps.config.ARR.map((entry) => this.catchUpOf(entry));
    // Every folder the intake queues from now on, whatever sent it; and a webhook from an app taken for silent.
    const { activity, clock } = deps;
    const onQueued = (e: ActivityEvents['queued'][0]) => {
      this.asked.note(e.folder, clock.now());
      if (++this.noted % 1_000 === 0) this.forget();
    };
    const onRequest = (e: ActivityEvents['request'][0]) => {
      for (const app of this.apps) if (app.type === e.source) app.heard();
    };
    activity.on('queued', onQueued);
    activity.on('request', onRequest);
    this.detach = () => {
      activity.off('queued', onQueued);
      activity.off('request', onRequest);
    };
  }

  /** Reads what the queue file knows of the folders asked for, and catches every app up (each at once, then on its timer). */
  start(): void {
    this.started = true;
    const since = this.oldestReading();
    if (since !== undefined) for (const { folder, at } of foldersAskedSince(this.deps.db, since)) this.asked.note(folder, at);
    for (const app of this.apps) app.start();
  }

  /**
   * The ARR entries as config.json has them now. An app added is caught up at once; one whose entry changed (URL,
   * key, interval) stops and starts again with the new entry; one removed stops. The cursors stay in the queue file
   * by NAME, so an app that comes back reads on from where it was.
   */
  async update(entries: readonly ArrEntry[]): Promise<AppsUpdate> {
    const result: AppsUpdate = { added: [], changed: [], removed: [], unchanged: [] };
    const byName = new Map(this.apps.map((a) => [a.name.toLowerCase(), a]));
    const next: AppCatchUp[] = [];
    const stopping: Promise<void>[] = [];
    for (const entry of entries) {
      const old = byName.get(entry.NAME.toLowerCase());
      byName.delete(entry.NAME.toLowerCase());
      if (old && this.entries.get(old) === JSON.stringify(entry)) {
        next.push(old);
        result.unchanged.push(entry.NAME);
        continue;
      }
      if (old) stopping.push(this.retire(old));
      (old ? result.changed : result.added).push(entry.NAME);
      next.push(this.catchUpOf(entry));
    }
    for (const old of byName.values()) {
      stopping.push(this.retire(old));
      result.removed.push(old.name);
    }
    await Promise.all(stopping);
    this.apps = next;
    if (this.started) for (const app of next) if (!result.unchanged.includes(app.name)) app.start();
    return result;
  }

  async stop(): Promise<void> {
    this.detach();
    this.stopping.abort(new Error('scanrelay is stopping'));
    await Promise.all(this.apps.map((a) => a.stop()));
  }

  /** Catches every app up now and waits for it (tests, and `scanrelay connect`'s first look). */
  async catchUp(): Promise<void> {
    await Promise.all(this.apps.map((a) => a.catchUp()));
    this.forget();
  }

  /** Each app's root folders and the library holding each (the doctor page). */
  roots(explain: Doctor): Promise<AppRoots[]> {
    return Promise.all(this.apps.map((a) => appRoots({ name: a.name, type: a.type, client: a.client }, explain)));
  }

  status(): AppView[] {
    const iso = (t: number | undefined) => (t === undefined ? null : new Date(t).toISOString());
    return this.apps.map((a) => ({
      name: a.name,
      type: a.type,
      state: a.link.state,
      reachable: a.link.up,
      version: a.link.version ?? null,
      lastEvent: iso(a.lastEventAt),
      caughtUp: a.caughtUp,
      cursor: iso(a.cursorAt),
      lastCatchUp: iso(a.lastCatchUpAt),
      intervalSeconds: a.intervalSeconds,
      error: a.link.up || a.link.error === undefined ? null : appText(a.link.error, APP_SENTENCE_MAX),
      skipped: a.skipped === undefined ? null : appText(a.skipped, APP_SENTENCE_MAX),
    }));
  }

  private catchUpOf(entry: ArrEntry): AppCatchUp {
    const { config, clock, logger } = this.deps;
    const app = new AppCatchUp({
      entry,
      client: arrClient(entry, { clock, fetch: this.deps.fetch, signal: this.stopping.signal }),
      cursors: this.cursors,
      folders: this.folders,
      asked: this.asked,
      intake: this.deps.intake,
      clock,
      logger,
      scanDelayMs: config.SERVER_SCAN_DELAY * 1000,
      scanDelays: config.SERVER_SCAN_DELAYS,
      chunk: Math.min(CHUNK, config.SERVER_MAX_REQUEST_PATHS),
      onCaughtUp: this.deps.onCaughtUp,
    });
    this.entries.set(app, JSON.stringify(entry));
    return app;
  }

  private retire(app: AppCatchUp): Promise<void> {
    this.entries.delete(app);
    return app.stop();
  }

  /** Folders asked for before any reading can ask about them are let go: the record stays as small as the window. */
  private forget(): void {
    const since = this.oldestReading();
    if (since !== undefined) this.asked.forget(since);
  }

  /** The earliest time any app's next reading can ask about (its cursor less the overlap). */
  private oldestReading(): number | undefined {
    const cursors = this.apps.map((a) => a.cursorAt).filter((t): t is number => t !== undefined);
    return cursors.length ? Math.min(...cursors) - OVERLAP_MS : undefined;
  }
}
