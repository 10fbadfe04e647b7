// The WATCH trigger: runs one watcher per WATCH.PATHS entry and hands each changed folder, after its quiet
// period, to the same intake as a webhook (mappings, ignore list, priorities, the queue).
import { Stats } from 'node:fs';
import type { WatchConfig, WatchPathConfig } from '../config/watch-schema.js';
import { stat } from '../file-system.js';
import { StorageError, type Intake } from '../intake/intake.js';
import type { Logger } from '../log/logger.js';
import { mapPath } from '../paths/mapping.js';
import type { ScanRequest } from '../request.js';
import { FolderDebounce, type Scheduler } from './debounce.js';
import { PathFilter } from './filter.js';
import { InotifyWatcher, type FolderChange } from './inotify.js';
import { checkWatchLimit, readMaxUserWatches } from './limits.js';
import { PollWatcher } from './poll.js';

export interface WatchTriggerDeps {
  config: WatchConfig;
  intake: Pick<Intake, 'submit'>;
  logger: Logger;
  scheduler?: Scheduler;
  /** The kernel's limit (tests pass one; default: read from /proc). */
  maxUserWatches?: () => number | undefined;
}

interface Running {
  entry: WatchPathConfig;
  inotify?: InotifyWatcher;
  poll?: PollWatcher;
}

export class WatchTrigger {
  private readonly running: Running[] = [];
  /** inotify changes wait for quiet; a poll has already waited its interval, so its changes go on at once. */
  private readonly debounce: FolderDebounce;
  private readonly now: FolderDebounce;
  private starting?: Promise<void>;
  private stopping = false;

  constructor(private readonly deps: WatchTriggerDeps) {
    const emit = (folder: string, deleted: boolean) => void this.queue(folder, deleted);
    this.debounce = new FolderDebounce(deps.config.DEBOUNCE * 1000, emit, deps.scheduler);
    this.now = new FolderDebounce(0, emit, deps.scheduler);
  }

  /** Walks and watches every path; calling it again returns the same promise (so a caller can wait for it). */
  start(): Promise<void> {
    return (this.starting ??= this.run());
  }

  private async run(): Promise<void> {
    const { config, logger } = this.deps;
    for (const entry of config.PATHS) {
      const filter = new PathFilter(entry.INCLUDE, entry.EXCLUDE);
      if (this.stopping) return;
      const root = await stat(entry.PATH).catch((err: NodeJS.ErrnoException) => err);
      if (!(root instanceof Stats) || !root.isDirectory()) {
        const why = root instanceof Stats ? 'is not a folder' : `cannot be read (${root.code ?? root.message})`;
        logger.error({ root: entry.PATH }, `WATCH path '${entry.PATH}' ${why}: it is not watched. Fix WATCH.PATHS (or mount it) and restart scanrelay.`);
        continue;
      }
      const r: Running = { entry };
      // Listed before its first walk, so a stop during the walk ends it.
      this.running.push(r);
      if (entry.BACKEND === 'poll') {
        const intervalMs = (entry.POLL_INTERVAL ?? config.POLL_INTERVAL) * 1000;
        r.poll = new PollWatcher({ root: entry.PATH, recursive: entry.RECURSIVE, filter, intervalMs, logger, onChange: (c) => this.seen(c, this.now) });
        const first = await r.poll.start();
        logger.info({ root: entry.PATH, ...first }, `Polling ${first.folders} folder(s), ${first.files} file(s) under '${entry.PATH}' every ${intervalMs / 1000} s (first walk ${first.ms} ms).`);
      } else {
        r.inotify = new InotifyWatcher({ root: entry.PATH, recursive: entry.RECURSIVE, filter, logger, onChange: (c) => this.seen(c, this.debounce) });
        const folders = await r.inotify.start();
        checkWatchLimit(folders, (this.deps.maxUserWatches ?? readMaxUserWatches)(), entry.PATH, logger);
      }
    }
  }

  /** Walks every polled path now and reports what changed (each poll-backend path; inotify paths need no poll). */
  async pollNow(): Promise<void> {
    await Promise.all(this.running.map((r) => r.poll?.pollNow()));
  }

  /** Stops watching; folders still in their quiet period are queued now, so nothing seen is lost. */
  async stop(): Promise<void> {
    this.stopping = true;
    for (const r of this.running) {
      r.inotify?.stop();
      r.poll?.stop();
    }
    this.debounce.flush();
    this.now.flush();
    await Promise.all([...this.inFlight]);
  }

  status(): Record<string, unknown> {
    return {
      enabled: this.running.length > 0,
      paths: this.running.map((r) => ({
        path: r.entry.PATH,
        backend: r.entry.BACKEND,
        folders: r.inotify ? r.inotify.watches : r.poll?.folders,
        ...(r.poll ? { polling: r.poll.busy } : {}),
        ...(r.poll?.last ? { lastPoll: r.poll.last } : {}),
      })),
      waiting: this.debounce.pending,
    };
  }

  private seen(change: FolderChange, wait: FolderDebounce): void {
    wait.touch(change.folder, change.deleted);
  }

  private readonly inFlight = new Set<Promise<void>>();

  private queue(folder: string, deleted: boolean): Promise<void> {
    const entry = this.running.find((r) => folder === r.entry.PATH || folder.startsWith(r.entry.PATH.replace(/\/+$/, '') + '/'))?.entry;
    const path = entry ? mapPath(folder, entry.REWRITE).path : folder;
    const request: ScanRequest = { path, source: 'watch', event: deleted ? 'Deleted' : 'Changed', kind: 'folder', ...(deleted ? { deleted: true } : {}) };
    const done = this.deps.intake
      .submit([request], 'watch')
      .then(() => undefined)
      .catch((err: unknown) => {
        if (err instanceof StorageError) {
          // Kept: the folder waits another quiet period and is offered again.
          this.deps.logger.error({ folder }, `Could not queue the change to '${folder}' seen by WATCH: ${err.message}. Trying again after DEBOUNCE.`);
          if (!this.stopping) this.debounce.touch(folder, deleted);
          return;
        }
        this.deps.logger.error({ folder }, `WATCH could not queue '${folder}': ${(err as Error).message}`);
      })
      .finally(() => this.inFlight.delete(done));
    this.inFlight.add(done);
    return done;
  }
}
