// The Drive monitor's life: signs in, finds the drives to watch and their cursors, polls each every POLL_INTERVAL
// (src/drive/changes.ts reads a feed), backs off a failing drive, and reports its status.
import type Database from 'better-sqlite3';
import type { Clock } from '../clock.js';
import type { Logger } from '../log/logger.js';
import { ConditionLog } from '../log/condition.js';
import type { ScanRequest } from '../request.js';
import { DriveApi } from './api.js';
import { DriveCache } from './cache.js';
import { ChangeReader } from './changes.js';
import type { DriveNames } from './crypt-paths.js';
import { DriveCursors } from './cursors.js';
import { findWatchedDrives } from './drives.js';
import { signInMethod, type GoogleSettings } from './settings.js';
import { createTokenSource } from './sign-in.js';
import { addCounts, emptyCounts, type DriveStatus, type PollSummary, type WatchedDrive } from './status.js';
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

const MAX_BACKOFF_MS = 30 * 60_000;

export class DriveMonitor {
  private readonly api: DriveApi;
  private readonly cache: DriveCache;
  private readonly cursors: DriveCursors;
  private readonly reader: ChangeReader;
  private readonly tokens: AccessTokenSource;
  private drives: WatchedDrive[] | undefined;
  private setupFailures = 0;
  private setupError: string | undefined;
  private setupRetryAt: number | undefined;
  private lastPollAt: number | undefined;
  /** A start or a drive that keeps failing is said once, then summarized (src/log/condition.ts); keyed by drive, '*' for the start. */
  private readonly failing: ConditionLog;
  private running = false;
  private timer: NodeJS.Timeout | undefined;
  private inflight: Promise<PollSummary> | undefined;

  constructor(private readonly deps: DriveMonitorDeps) {
    const { settings: s, clock, logger } = deps;
    this.failing = new ConditionLog({ logger, clock, level: 'error' });
    this.tokens = deps.tokens ?? createTokenSource(s, deps.configDir, { clock, logger, fetch: deps.fetch });
    this.api = new DriveApi({ apiUrl: s.API_URL, tokens: this.tokens, logger, fetch: deps.fetch, sleep: deps.sleep });
    this.cache = new DriveCache(deps.db, { clock, logger, showCacheLogs: s.SHOW_CACHE_LOGS });
    this.cursors = new DriveCursors(deps.db);
    this.reader = new ChangeReader({
      db: deps.db,
      api: this.api,
      cache: this.cache,
      cursors: this.cursors,
      rules: {
        allowed: s.ALLOWED,
        ignoreSize: s.DISABLE_DISK_FILE_SIZE_CHECK,
        names: deps.names,
        mapPath: deps.mapPath,
        gate: deps.gate,
        inPlex: deps.inPlex,
      },
      enqueue: deps.enqueue,
      watched: () => this.drives ?? [],
      clock,
      logger,
    });
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
        this.failing.ends('*', 'Google Drive monitoring started');
      } catch (err) {
        this.setupFailures++;
        this.setupError = (err as Error).message;
        this.setupRetryAt = this.deps.clock.now() + this.backoffMs(this.setupFailures);
        this.logFailure('*', 'Google Drive monitoring could not start', this.setupError, this.setupRetryAt);
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
        await this.reader.read(d, counts);
        d.lastSuccessAt = this.deps.clock.now();
        d.lastError = undefined;
        d.consecutiveFailures = 0;
        d.nextAttemptAt = undefined;
        this.failing.ends(d.key, `Google Drive polling recovered for '${d.name}'`, { drive: d.name });
      } catch (err) {
        d.consecutiveFailures++;
        d.lastError = (err as Error).message;
        d.nextAttemptAt = this.deps.clock.now() + this.backoffMs(d.consecutiveFailures);
        this.logFailure(d.key, `Polling Google Drive '${d.name}' failed`, d.lastError, d.nextAttemptAt, { drive: d.name });
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

  /** A token that stays invalid does not fill the log every retry: each retry is DEBUG, the condition said once. */
  private logFailure(key: string, what: string, error: string, retryAt: number, fields: Record<string, unknown> = {}): void {
    const retryIn = Math.round((retryAt - this.deps.clock.now()) / 1000);
    this.deps.logger.debug({ ...fields, retryInSeconds: retryIn }, `${what}: ${error}`);
    this.failing.holds(key, `${what}: ${error}`, { ...fields, retryInSeconds: retryIn });
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
}
