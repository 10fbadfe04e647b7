// The Drive monitor: one change cursor per watched drive (My Drive and the configured shared drives), polled every
// POLL_INTERVAL; each new or changed file that passes GOOGLE.ALLOWED and is missing from Plex becomes a ScanRequest.
import type Database from 'better-sqlite3';
import type { Clock } from '../clock.js';
import type { Logger } from '../log.js';
import type { ScanRequest } from '../request.js';
import { DriveApi, FOLDER_MIME, type ChangePage, type DriveChange } from './api.js';
import { DriveCache, type CachedItem } from './cache.js';
import type { DriveNames } from './crypt-paths.js';
import { DriveCursors } from './cursors.js';
import { findWatchedDrives } from './drives.js';
import { checkAllowed } from './filters.js';
import { signInMethod, type GoogleSettings, type SignInMethod } from './settings.js';
import { createTokenSource } from './sign-in.js';
import type { AccessTokenSource } from './token-store.js';

export interface DriveMonitorDeps {
  db: Database.Database;
  settings: GoogleSettings;
  /** Folder of config.json: relative GOOGLE paths and the default token.json live there. */
  configDir: string;
  /** SERVER_PATH_MAPPINGS applied to a drive-form path. Returning the path unchanged means "not mapped". */
  mapPath: (drivePath: string) => string;
  /** The Plex-database check: true = already in Plex (skip); false or 'unknown' = ask for a scan. */
  inPlex: (serverPath: string, size?: number) => boolean | 'unknown';
  enqueue: (req: ScanRequest) => void;
  /** The path gate (src/paths/gate.ts) with SERVER_PATH_MAPPINGS: a refused Drive path is a WARN, not a scan. */
  gate?: (drivePath: string) => { ok: true } | { ok: false; message: string };
  /** RCLONE.CRYPT_MAPPINGS: decodes encrypted names (and sizes) before filtering and mapping. */
  names?: DriveNames;
  /** Told after every poll (metrics). */
  onPoll?: (summary: PollSummary) => void;
  clock: Clock;
  logger: Logger;
  fetch?: typeof fetch;
  /** Waits between in-call retries of the Drive client; tests make it instant. */
  sleep?: (ms: number) => Promise<void>;
  /** Replaces the sign-in GOOGLE selects (tests, or a caller that already holds a token source). */
  tokens?: AccessTokenSource;
}

export interface DriveCounts {
  /** Changes read from the feed. */
  changes: number;
  /** Scan requests handed to the queue. */
  enqueued: number;
  /** New files the Plex database already has. */
  inPlex: number;
  /** Files outside GOOGLE.ALLOWED. */
  unwanted: number;
  /** Trashed or removed items (cache only: nothing is removed from Plex). */
  removed: number;
  /** Changes that did not change a file's content or place. */
  ignored: number;
  /** Folder changes (cache only). */
  folders: number;
  /** Files whose drive path no SERVER_PATH_MAPPINGS entry maps. */
  unmapped: number;
  /** Unknown parents fetched with files.get. */
  fetched: number;
  /** Change pages handled (and cursors saved). */
  pages: number;
}

export interface PollSummary {
  drives: number;
  counts: DriveCounts;
  errors: { drive: string; error: string }[];
}

export interface DriveState {
  /** "root" for My Drive, else the shared drive's ID. */
  key: string;
  name: string;
  /** The saved page token (where the next poll starts). */
  cursor?: string;
  lastPollAt?: number;
  lastSuccessAt?: number;
  lastError?: string;
  consecutiveFailures: number;
  /** Set while backing off after failures. */
  nextAttemptAt?: number;
  /** Since this process started. */
  counts: DriveCounts;
}

export interface DriveStatus {
  enabled: boolean;
  running: boolean;
  signIn: SignInMethod;
  /** Human description of where the token comes from (no secret). */
  tokenSource: string;
  pollIntervalSeconds: number;
  lastPollAt?: number;
  /** Setup problem (sign-in, drives.list) that stops every drive. */
  lastError?: string;
  nextAttemptAt?: number;
  drives: DriveState[];
  cachedItems: number;
}

const MAX_BACKOFF_MS = 30 * 60_000;
const emptyCounts = (): DriveCounts => ({
  changes: 0, enqueued: 0, inPlex: 0, unwanted: 0, removed: 0, ignored: 0, folders: 0, unmapped: 0, fetched: 0, pages: 0,
});
const addCounts = (into: DriveCounts, from: DriveCounts) => {
  for (const k of Object.keys(into) as (keyof DriveCounts)[]) into[k] += from[k];
};

interface WatchedDrive extends DriveState {
  /** undefined for My Drive. */
  driveId?: string;
}

export class DriveMonitor {
  private readonly api: DriveApi;
  private readonly cache: DriveCache;
  private readonly cursors: DriveCursors;
  private readonly tokens: AccessTokenSource;
  private drives: WatchedDrive[] | undefined;
  private setupFailures = 0;
  private setupError: string | undefined;
  private setupRetryAt: number | undefined;
  private lastPollAt: number | undefined;
  private lastLoggedError: string | undefined;
  private running = false;
  private timer: NodeJS.Timeout | undefined;
  private inflight: Promise<PollSummary> | undefined;
  private readonly warnedUnmapped = new Set<string>();

  constructor(private readonly deps: DriveMonitorDeps) {
    const { settings: s, clock, logger } = deps;
    this.tokens = deps.tokens ?? createTokenSource(s, deps.configDir, { clock, logger, fetch: deps.fetch });
    this.api = new DriveApi({ apiUrl: s.API_URL, tokens: this.tokens, logger, fetch: deps.fetch, sleep: deps.sleep });
    this.cache = new DriveCache(deps.db, { clock, logger, showCacheLogs: s.SHOW_CACHE_LOGS });
    this.cursors = new DriveCursors(deps.db);
  }

  /** Begins polling in the background; never throws and never blocks the service's start on the network. */
  async start(): Promise<void> {
    if (this.running) return;
    this.running = true;
    const s = this.deps.settings;
    if (s.ALLOWED.FILE_PATHS.length === 0) {
      this.deps.logger.warn('GOOGLE.ALLOWED.FILE_PATHS is empty: no Google Drive file will be scanned');
    }
    this.deps.logger.info(
      { signIn: signInMethod(s), tokenSource: this.tokens.describe(), pollInterval: s.POLL_INTERVAL },
      'Starting Google Drive monitoring',
    );
    this.schedule(0);
  }

  async stop(): Promise<void> {
    this.running = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.inflight?.catch(() => undefined);
  }

  /** Polls every drive not backing off. Errors are recorded per drive, never thrown. */
  pollOnce(): Promise<PollSummary> {
    this.inflight ??= this.poll()
      .then((summary) => {
        this.deps.onPoll?.(summary);
        return summary;
      })
      .finally(() => {
        this.inflight = undefined;
      });
    return this.inflight;
  }

  status(): DriveStatus {
    const s = this.deps.settings;
    return {
      enabled: s.ENABLED,
      running: this.running,
      signIn: signInMethod(s),
      tokenSource: this.tokens.describe(),
      pollIntervalSeconds: s.POLL_INTERVAL,
      lastPollAt: this.lastPollAt,
      lastError: this.setupError,
      nextAttemptAt: this.setupRetryAt,
      drives: (this.drives ?? []).map(({ driveId: _d, counts, ...rest }) => ({ ...rest, counts: { ...counts } })),
      cachedItems: this.cache.count(),
    };
  }

  private schedule(delayMs: number): void {
    if (!this.running) return;
    this.timer = setTimeout(() => {
      void this.pollOnce()
        .catch((err: unknown) => this.deps.logger.error(`Google Drive monitoring: unexpected error: ${(err as Error).message}`))
        .then(() => this.schedule(this.nextDelay()));
    }, delayMs);
    this.timer.unref?.();
  }

  /** The regular interval, or sooner when a backoff ends first. */
  private nextDelay(): number {
    const now = this.deps.clock.now();
    let delay = Math.max(1, this.deps.settings.POLL_INTERVAL) * 1000;
    const waits = [this.setupRetryAt, ...(this.drives ?? []).map((d) => d.nextAttemptAt)].filter((t): t is number => t !== undefined);
    for (const t of waits) delay = Math.min(delay, Math.max(1000, t - now));
    return delay;
  }

  private backoffMs(failures: number): number {
    const base = Math.max(30, this.deps.settings.POLL_INTERVAL) * 1000;
    return Math.min(MAX_BACKOFF_MS, base * 2 ** Math.max(0, failures - 1));
  }

  private async poll(): Promise<PollSummary> {
    const now = this.deps.clock.now();
    this.lastPollAt = now;
    const summary: PollSummary = { drives: 0, counts: emptyCounts(), errors: [] };
    if (!this.drives) {
      if (this.setupRetryAt !== undefined && now < this.setupRetryAt) {
        summary.errors.push({ drive: '*', error: this.setupError ?? 'waiting to retry' });
        return summary;
      }
      try {
        this.drives = await this.setup();
        this.setupFailures = 0;
        this.setupError = undefined;
        this.setupRetryAt = undefined;
      } catch (err) {
        this.setupFailures++;
        this.setupError = (err as Error).message;
        this.setupRetryAt = this.deps.clock.now() + this.backoffMs(this.setupFailures);
        this.logFailure('Google Drive monitoring could not start', this.setupError, this.setupRetryAt);
        summary.errors.push({ drive: '*', error: this.setupError });
        return summary;
      }
    }
    for (const d of this.drives) {
      if (d.nextAttemptAt !== undefined && now < d.nextAttemptAt) continue;
      summary.drives++;
      d.lastPollAt = now;
      const counts = emptyCounts();
      try {
        await this.pollDrive(d, counts);
        d.lastSuccessAt = this.deps.clock.now();
        d.lastError = undefined;
        d.consecutiveFailures = 0;
        d.nextAttemptAt = undefined;
        if (this.lastLoggedError) {
          this.deps.logger.info({ drive: d.name }, 'Google Drive polling recovered');
          this.lastLoggedError = undefined;
        }
      } catch (err) {
        d.consecutiveFailures++;
        d.lastError = (err as Error).message;
        d.nextAttemptAt = this.deps.clock.now() + this.backoffMs(d.consecutiveFailures);
        this.logFailure(`Polling Google Drive '${d.name}' failed`, d.lastError, d.nextAttemptAt);
        summary.errors.push({ drive: d.name, error: d.lastError });
      } finally {
        addCounts(d.counts, counts);
        addCounts(summary.counts, counts);
      }
      if (counts.changes > 0) {
        const c = counts;
        this.deps.logger.info(
          { drive: d.name },
          `${c.enqueued} added / ${c.removed} removed / ${c.unwanted} unwanted / ${c.ignored} ignored / ${c.inPlex} already in Plex`,
        );
      }
    }
    return summary;
  }

  /** One line per distinct failure: a token that stays invalid does not fill the log every retry. */
  private logFailure(what: string, error: string, retryAt: number): void {
    const retryIn = Math.round((retryAt - this.deps.clock.now()) / 1000);
    if (error === this.lastLoggedError) {
      this.deps.logger.debug({ retryInSeconds: retryIn }, `${what}: ${error}`);
      return;
    }
    this.lastLoggedError = error;
    this.deps.logger.error({ retryInSeconds: retryIn }, `${what}: ${error}`);
  }

  /** Finds the drives to watch and their cursors; a first run starts each cursor at "now". */
  private async setup(): Promise<WatchedDrive[]> {
    const targets = await findWatchedDrives(this.api, this.cache, this.deps.settings, this.deps.logger, this.tokens.describe());
    const watched: WatchedDrive[] = targets.map((t) => ({ ...this.watched(t.key, t.name), driveId: t.driveId }));
    for (const w of watched) {
      const saved = this.cursors.get(w.key);
      if (saved) {
        w.cursor = saved.pageToken;
        continue;
      }
      w.cursor = await this.api.getStartPageToken(w.driveId);
      this.cursors.set(w.key, w.name, w.cursor, this.deps.clock.now());
      this.deps.logger.info({ drive: w.name }, 'Watching Google Drive for changes from now on');
    }
    this.deps.logger.info(`Watching ${watched.length} Google Drive(s): ${watched.map((w) => w.name).join(', ')}`);
    return watched;
  }

  private watched(key: string, name: string): WatchedDrive {
    return { key, name, consecutiveFailures: 0, counts: emptyCounts() };
  }

  /**
   * Follows the drive's pages to newStartPageToken. Each page is applied and its successor token saved in one
   * transaction, after its scan requests were handed over: a crash replays the page, never skips it.
   */
  private async pollDrive(d: WatchedDrive, counts: DriveCounts): Promise<void> {
    let token = this.cursors.get(d.key)?.pageToken ?? d.cursor;
    if (!token) throw new Error(`no change cursor for drive '${d.name}'`);
    for (;;) {
      const page: ChangePage = await this.api.listChanges(token, d.driveId);
      const parents = new Set<string>();
      for (const c of page.changes) {
        const p = c.file && !c.removed && !c.file.trashed ? c.file.parents?.[0] : undefined;
        if (p) parents.add(p);
      }
      const fetched = await this.cache.ensureKnown(parents, (id) => this.api.getFile(id));
      const next = page.nextPageToken ?? page.newStartPageToken;
      if (!next) throw new Error(`Google Drive returned a change page for '${d.name}' without a next or new start page token`);
      const pageCounts = emptyCounts();
      pageCounts.fetched = fetched;
      this.deps.db.transaction(() => {
        const requested = new Set<string>();
        for (const change of page.changes) this.applyChange(d, change, pageCounts, requested);
        this.cursors.set(d.key, d.name, next, this.deps.clock.now());
      })();
      pageCounts.pages = 1;
      pageCounts.changes = page.changes.length;
      addCounts(counts, pageCounts);
      d.cursor = token = next;
      if (!page.nextPageToken) return;
    }
  }

  private applyChange(d: WatchedDrive, change: DriveChange, counts: DriveCounts, requested: Set<string>): void {
    if (change.changeType === 'drive' || (change.driveId && !change.fileId && !change.file)) {
      this.applyDriveChange(d, change);
      return;
    }
    const file = change.file;
    if (change.removed || !file) {
      if (change.fileId) this.cache.remove(change.fileId);
      counts.removed++;
      return;
    }
    // An item of another drive: moved out of this one (forget it unless another drive's feed already took it),
    // or (defensively) a shared-drive item in My Drive's feed, which that drive's own cursor handles.
    const elsewhere = d.driveId ? file.driveId !== d.driveId : file.driveId !== undefined;
    if (elsewhere) {
      this.cache.remove(file.id, d.key);
      counts.removed++;
      return;
    }
    if (file.trashed) {
      this.cache.remove(file.id);
      counts.removed++;
      return;
    }
    const { old, item } = this.cache.upsert(file);
    if (file.mimeType === FOLDER_MIME) {
      counts.folders++;
      return;
    }
    if (!isNewOrChanged(old, item)) {
      counts.ignored++;
      return;
    }
    // Encrypted names (RCLONE.CRYPT_MAPPINGS) are decoded first: filters and mappings are written for plain paths.
    const named = item.path == null ? undefined : this.deps.names ? this.deps.names.decode(item.path, item.size ?? undefined) : { path: item.path, size: item.size ?? undefined };
    const verdict = checkAllowed({ path: named?.path ?? null, mimeType: file.mimeType }, this.deps.settings.ALLOWED);
    if (!verdict.ok || named == null) {
      counts.unwanted++;
      return;
    }
    const drivePath = named.path;
    if (requested.has(drivePath)) return;
    let serverPath: string;
    try {
      serverPath = this.deps.mapPath(drivePath);
    } catch {
      serverPath = drivePath;
    }
    if (serverPath === drivePath) {
      counts.unmapped++;
      const root = drivePath.split('/').slice(0, -1).slice(0, 3).join('/');
      if (!this.warnedUnmapped.has(root)) {
        this.warnedUnmapped.add(root);
        this.deps.logger.warn(`No SERVER_PATH_MAPPINGS entry maps Google Drive path '${drivePath}': add '${root}/' to the mapping of its media-server folder`);
      }
      return;
    }
    // Drive names may hold "/", ".." or control characters: such a path could point anywhere once mapped.
    const gate = this.deps.gate?.(drivePath);
    if (gate && !gate.ok) {
      counts.unwanted++;
      this.deps.logger.warn({ fileId: file.id }, `Not scanning a Google Drive file: ${gate.message}. Rename it on Drive to scan it.`);
      return;
    }
    let known: boolean | 'unknown';
    try {
      known = this.deps.inPlex(serverPath, this.deps.settings.DISABLE_DISK_FILE_SIZE_CHECK ? undefined : named.size);
    } catch {
      known = 'unknown';
    }
    if (known === true) {
      counts.inPlex++;
      this.deps.logger.debug({ path: serverPath }, 'Skipping Google Drive file already in Plex');
      return;
    }
    requested.add(drivePath);
    // Handed over inside the page's transaction: if the queue shares this database the request and the cursor
    // commit together; otherwise a crash before the cursor is saved re-sends it (the queue merges duplicates).
    this.deps.enqueue({ path: drivePath, source: 'drive', event: 'Drive', kind: 'file' });
    counts.enqueued++;
    this.deps.logger.info({ path: drivePath, serverPath }, 'New file on Google Drive: scan requested');
  }

  private applyDriveChange(d: WatchedDrive, change: DriveChange): void {
    const id = change.driveId ?? change.drive?.id;
    if (!id || (d.driveId && id !== d.driveId)) return;
    if (change.removed) {
      this.deps.logger.warn({ drive: d.name }, 'Shared drive was deleted or this account lost access to it');
      return;
    }
    const name = change.drive?.name;
    if (name && name !== d.name && this.drives?.some((w) => w.key === id)) {
      this.deps.logger.info(`Shared drive renamed: '${d.name}' -> '${name}'`);
      this.cache.setRoot(id, id, name);
      for (const w of this.drives ?? []) if (w.key === id) w.name = name;
    }
  }
}

/** plex_autoscan's classification: new, content changed (md5/size), renamed or moved count; the rest is noise. */
function isNewOrChanged(old: CachedItem | undefined, item: CachedItem): boolean {
  if (!old || old.name === null) return true;
  if (old.path !== item.path) return true;
  if (old.md5 && item.md5) return old.md5 !== item.md5;
  return old.size !== item.size;
}
