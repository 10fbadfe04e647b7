// Assembles the running service from a loaded config: queue, targets, processor, intake, HTTP app.
import type { FastifyInstance } from 'fastify';
import { Activity } from './activity.js';
import { systemClock, type Clock } from './clock.js';
import type { Config } from './config/schema.js';
import { createDoctor } from './doctor/explain.js';
import { boundedLibraryReader, createLibraryJudge } from './doctor/judge.js';
import { HashHold } from './hash/hold.js';
import { HashReader } from './hash/read.js';
import { placeForHash } from './hash/scope.js';
import { Notifications } from './notify/notifications.js';
import { Intake } from './intake/intake.js';
import { intakeSettingsOf, routeKnown } from './paths/route.js';
import type { Logger } from './log/logger.js';
import { diskPathState, type PathState } from './paths/disk.js';
import { Processor } from './processor/processor.js';
import { lockQueue } from './queue/lock.js';
import { Queue } from './queue/store.js';
import type { DriveMonitor } from './drive/monitor.js';
import type { ConnectedApps } from './arr/connected.js';
import { ArrEntries } from './arr/entries.js';
import type { ReconcileSchedule } from './reconcile/schedule.js';
import type { ArrEntry } from './config/arr-schema.js';
import { cacheRefresh } from './rclone/remote-control.js';
import { plexDatabases } from './targets/plex/databases.js';
import { mapPath } from './paths/mapping.js';
import { describeRefusal, gatePath } from './paths/gate.js';
import { buildApp, type AppDeps } from './server/app.js';
import { Readiness } from './server/readiness.js';
import { Retention } from './queue/retention.js';
import { Metrics } from './server/metrics.js';
import { buildTargets } from './targets/build.js';
import type { Target } from './scan.js';
import { WatchTrigger } from './watch/trigger.js';

export interface ServiceOptions {
  config: Config;
  queuefile: string;
  logger: Logger;
  clock?: Clock;
  /** Replaces the targets built from config (tests). */
  targets?: Target[];
  pathState?: (path: string) => Promise<PathState>;
  fetch?: typeof fetch;
  /** Folder of the config file (the Drive token file lives beside it by default). */
  configDir?: string;
  /** Shorter connection limits (tests of slow clients). */
  limits?: AppDeps['limits'];
  /** config.json's ARR entries read again (the server's own file); without it, `POST /api/<SERVER_PASS>/arr/reload` is absent. */
  readArr?: () => readonly ArrEntry[];
  /** hash='s cap on holds, largest file and time per read, smaller (tests; HASH_MAX_BYTES and the rest otherwise). */
  hashLimits?: { holds?: number; maxBytes?: number; readBudgetMs?: number };
}

export interface Service {
  config: Config;
  queue: Queue;
  processor: Processor;
  intake: Intake;
  activity: Activity;
  app: FastifyInstance;
  /** Prometheus metrics; the drive monitor reports its polls here (metrics.drivePoll). */
  metrics: Metrics;
  targets: Target[];
  clock: Clock;
  drive?: DriveMonitor;
  /** The WATCH trigger, when WATCH.PATHS names folders. */
  watch?: WatchTrigger;
  /** The ARR apps whose history fills in missed webhooks, when ARR has entries. */
  arr?: ConnectedApps;
  /** Each ARR app's files audited against the media servers every RECONCILE_INTERVAL, when ARR has entries. */
  reconcile?: ReconcileSchedule;
  /** Deletes old history and truncates the WAL (HISTORY_DAYS, HISTORY_MAX_ROWS); runs while listening. */
  retention: Retention;
  /** Startup state behind /health?ready. */
  readiness: Readiness;
  /** NOTIFY: what is told to people, and each notifier's last result. */
  notifications: Notifications;
  /** Requests waiting for their file's SHA-256 (autopulse's hash=). */
  hashHold: HashHold;
  /** Starts the processor and listens on SERVER_IP:SERVER_PORT (port 0 picks a free one). Returns the base URL. */
  listen(port?: number, host?: string): Promise<string>;
  /** Stops accepting, finishes what is in flight, closes the database. */
  close(): Promise<void>;
}

export async function createService(opts: ServiceOptions): Promise<Service> {
  const { config, logger } = opts;
  const clock = opts.clock ?? systemClock;
  const pathState = opts.pathState ?? diskPathState;
  const activity = new Activity();
  // Before anything else: a second server on this queue file stops here (QueueLockedError names the holder).
  const lock = opts.queuefile === ':memory:' ? undefined : lockQueue(opts.queuefile);
  let queue: Queue;
  try {
    // History is trimmed by `retention` (HISTORY_DAYS, HISTORY_MAX_ROWS) in small batches, not by the queue.
    queue = new Queue(opts.queuefile, clock, { delayMs: config.SERVER_SCAN_DELAY * 1000, maxWaitMs: config.SERVER_SCAN_MAX_WAIT * 1000, checkpointEveryMs: 1_000, historyLimit: 0 });
  } catch (err) {
    lock?.release();
    throw err;
  }
  const retention = new Retention(
    queue.db,
    clock,
    { days: config.HISTORY_DAYS, maxRows: config.HISTORY_MAX_ROWS, truncate: (here) => queue.truncateWal(here) },
    logger,
  );
  const { plexDb, databases } = plexDatabases(config, { logger, clock, tryAtStart: !opts.targets });
  const targets =
    opts.targets ??
    buildTargets(config, {
      clock,
      logger,
      fetch: opts.fetch,
      ...databases,
    });
  // With PLEX_ENABLED, the first Plex's builder already said why it is missing.
  if (targets.length === 0 && !config.PLEX_ENABLED) {
    logger.warn('No media server is configured (set PLEX_TOKEN, or add TARGETS): requests are queued and kept until one is.');
  }
  const processor = new Processor({
    queue,
    targets,
    clock,
    logger,
    activity,
    pathState,
    refreshCache: cacheRefresh(config, logger, opts.fetch),
    settings: {
      fileExistMappings: config.SERVER_FILE_EXIST_PATH_MAPPINGS,
      maxFileChecks: config.SERVER_MAX_FILE_CHECKS,
      fileCheckDelayMs: config.SERVER_FILE_CHECK_DELAY * 1000,
      folderOnExhaustion: config.SERVER_SCAN_FOLDER_ON_FILE_EXISTS_EXHAUSTION,
      anchors: config.SERVER_ANCHOR_FILES,
      retryMaxDelayMs: config.SERVER_SCAN_RETRY_MAX_DELAY * 1000,
      commandBefore: config.RUN_COMMAND_BEFORE_SCAN,
      commandAfter: config.RUN_COMMAND_AFTER_SCAN,
    },
  });
  const intake = new Intake({
    queue,
    logger,
    clock,
    activity,
    pathState,
    onQueued: (dueAt) => processor.wake(dueAt),
    judge: createLibraryJudge({ config, targets, now: () => clock.now() }),
    maxPaths: config.SERVER_MAX_REQUEST_PATHS,
    settings: intakeSettingsOf(config),
  });
  const intakeSettings = intake.settings;
  const hashLibraries = boundedLibraryReader(() => clock.now());
  const hashHold = new HashHold({
    intake,
    queue,
    clock,
    logger,
    activity,
    place: (received) => placeForHash(received, { settings: intakeSettings, targets, read: hashLibraries }),
    route: (received) => {
      const route = routeKnown(received, 'file', intakeSettings);
      return { mapped: route.mapped, local: route.local.path };
    },
    reader: new HashReader({ clock, maxBytes: opts.hashLimits?.maxBytes, budgetMs: opts.hashLimits?.readBudgetMs }),
    checks: config.SERVER_MAX_FILE_CHECKS,
    delayMs: config.SERVER_FILE_CHECK_DELAY * 1000,
    limit: opts.hashLimits?.holds,
  });
  const notifications = new Notifications(config.NOTIFY, { activity, clock, logger, fetch: opts.fetch });
  let reconcile: ReconcileSchedule | undefined;
  const metrics = new Metrics({ activity, queue, processor, holds: () => hashHold.size, reconcile: () => reconcile?.audits() ?? [] });
  const readiness = new Readiness(targets.map((t) => t.name));
  // The Drive monitor and rclone's crypt names load only when GOOGLE is on.
  const drive = config.GOOGLE.ENABLED
    ? new (await import('./drive/monitor.js')).DriveMonitor({
        db: queue.db,
        settings: config.GOOGLE,
        configDir: opts.configDir ?? '.',
        mapPath: (p) => mapPath(p, config.SERVER_PATH_MAPPINGS).path,
        inPlex: (p, size) => plexDb.hasFile(p, size),
        enqueue: (req) => void intake.submitKnown([req], 'drive'),
        gate: (p) => {
          const verdict = gatePath(p, config.SERVER_PATH_MAPPINGS);
          return verdict.ok ? verdict : { ok: false, message: describeRefusal(p, verdict) };
        },
        names: await (await import('./drive/crypt-paths.js')).loadDriveNames({ mappings: config.RCLONE.CRYPT_MAPPINGS, rcloneConfig: config.RCLONE.CONFIG, logger }),
        onPoll: (summary) => {
          const failed = new Set(summary.errors.map((e) => e.drive));
          for (const e of summary.errors) metrics.drivePoll(e.drive, false);
          if (summary.drives > failed.size) metrics.drivePoll('all', true);
        },
        clock,
        logger,
        fetch: opts.fetch,
      })
    : undefined;
  const watch = config.WATCH.PATHS.length ? new WatchTrigger({ config: config.WATCH, intake, logger }) : undefined;
  // The history catch-up loads only when ARR has entries (at start, or once they are read again).
  const connectApps = async (entries: readonly ArrEntry[]) =>
    new (await import('./arr/connected.js')).ConnectedApps({ config: { ...config, ARR: [...entries] }, db: queue.db, intake, activity, clock, logger, fetch: opts.fetch, onCaughtUp: (app, n) => metrics.caughtUp(app, n) });
  const arrEntries = await ArrEntries.open(config.ARR, connectApps, logger, (entries) => reconcile?.read(entries));
  const readArr = opts.readArr;
  const reloadArr = readArr ? () => arrEntries.reload(readArr) : undefined;
  // The reconcile loads only when ARR has entries too; its audits share the queue file and the intake.
  if (config.ARR.length) {
    const [{ ReconcileSchedule }, { ReconcileAudits }] = await Promise.all([import('./reconcile/schedule.js'), import('./reconcile/audits.js')]);
    const queueing = { intake, scanDelayMs: config.SERVER_SCAN_DELAY * 1000, scanDelays: config.SERVER_SCAN_DELAYS, chunk: Math.min(500, config.SERVER_MAX_REQUEST_PATHS) };
    reconcile = new ReconcileSchedule({ entries: config.ARR, targets, pathMappings: config.SERVER_PATH_MAPPINGS, audits: new ReconcileAudits(queue.db), clock, logger, fetch: opts.fetch, queue: queueing });
  }
  const explain = createDoctor({ config, targets, pathState });
  const app = await buildApp({
    secret: config.SERVER_PASS,
    allowManualScan: config.SERVER_ALLOW_MANUAL_SCAN,
    queue,
    intake,
    processor,
    logger,
    activity,
    clock,
    metrics,
    metricsToken: config.SERVER_METRICS_TOKEN,
    trustProxy: config.SERVER_TRUST_PROXY,
    explain,
    appRoots: arrEntries.current || reloadArr ? async () => (arrEntries.current ? arrEntries.current.roots(explain) : []) : undefined,
    reloadArr,
    reconcile: reconcile && (() => reconcile!.status(true)),
    status: () => ({ drive: drive ? drive.status() : { enabled: false }, watch: watch ? watch.status() : { enabled: false }, notify: notifications.status(), arr: arrEntries.current?.status() ?? [], ...(reconcile ? { reconcile: reconcile.status() } : {}) }),
    limits: opts.limits,
    autoscan: config.AUTOSCAN,
    hashHold,
    readiness,
    basePath: config.SERVER_BASE_PATH,
  });

  let closed = false;
  return {
    config,
    queue,
    processor,
    intake,
    activity,
    app,
    metrics,
    targets,
    clock,
    drive,
    watch,
    get arr() {
      return arrEntries.current;
    },
    reconcile,
    retention,
    readiness,
    hashHold,
    notifications,
    async listen(port = config.SERVER_PORT, host = config.SERVER_IP) {
      const restored = queue.count();
      if (restored > 0) logger.info(`Restored ${restored} queued folder(s) from the queue file.`);
      readiness.queueOpened();
      retention.start();
      notifications.start();
      hashHold.resume();
      void readiness.probeTargets(targets, logger, undefined, (name, result) => processor.probed(name, result));
      processor.start({ probedElsewhere: true });
      await drive?.start();
      await app.listen({ port, host });
      // A large tree takes a while to walk: requests are served meanwhile.
      watch?.start().catch((err: Error) => logger.error(`WATCH could not start: ${err.message}. Check WATCH.PATHS.`));
      // After listening: the apps' webhooks are taken while their history is read.
      arrEntries.start();
      reconcile?.start();
      const address = app.server.address();
      const actualPort = typeof address === 'object' && address ? address.port : port;
      return `http://${host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host}:${actualPort}${config.SERVER_BASE_PATH}`;
    },
    async close() {
      if (closed) return;
      closed = true;
      await app.close();
      await arrEntries.stop();
      await reconcile?.stop();
      await watch?.stop();
      metrics.close();
      notifications.stop();
      await hashHold.stop();
      await processor.stop();
      await retention.stop();
      queue.close();
      lock?.release();
    },
  };
}
