// Assembles the running service from a loaded config: queue, targets, processor, intake, HTTP app.
import type { FastifyInstance } from 'fastify';
import { Activity } from './activity.js';
import { systemClock, type Clock } from './clock.js';
import type { Config } from './config/schema.js';
import { Intake } from './intake.js';
import type { Logger } from './log.js';
import { diskPathState, Processor, type PathState } from './processor/processor.js';
import { Queue } from './queue/store.js';
import { buildApp } from './server/app.js';
import { buildTargets } from './targets/build.js';
import type { Target } from './targets/target.js';

export interface ServiceOptions {
  config: Config;
  queuefile: string;
  logger: Logger;
  clock?: Clock;
  /** Replaces the targets built from config (tests). */
  targets?: Target[];
  pathState?: (path: string) => Promise<PathState>;
  fetch?: typeof fetch;
}

export interface Service {
  config: Config;
  queue: Queue;
  processor: Processor;
  intake: Intake;
  activity: Activity;
  app: FastifyInstance;
  targets: Target[];
  clock: Clock;
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
  const queue = new Queue(opts.queuefile, clock, { delayMs: config.SERVER_SCAN_DELAY * 1000 });
  const targets = opts.targets ?? buildTargets(config, { clock, logger, fetch: opts.fetch });
  if (targets.length === 0) {
    logger.warn('No media server is configured (set PLEX_TOKEN, or add TARGETS): requests are queued and kept until one is.');
  }
  const processor = new Processor({
    queue,
    targets,
    clock,
    logger,
    activity,
    pathState,
    settings: {
      fileExistMappings: config.SERVER_FILE_EXIST_PATH_MAPPINGS,
      maxFileChecks: config.SERVER_MAX_FILE_CHECKS,
      fileCheckDelayMs: config.SERVER_FILE_CHECK_DELAY * 1000,
      folderOnExhaustion: config.SERVER_SCAN_FOLDER_ON_FILE_EXISTS_EXHAUSTION,
      anchors: config.SERVER_ANCHOR_FILES,
      retryMaxDelayMs: config.SERVER_SCAN_RETRY_MAX_DELAY * 1000,
    },
  });
  const intake = new Intake({
    queue,
    logger,
    activity,
    pathState,
    onQueued: () => processor.wake(),
    settings: {
      pathMappings: config.SERVER_PATH_MAPPINGS,
      fileExistMappings: config.SERVER_FILE_EXIST_PATH_MAPPINGS,
      ignoreList: config.SERVER_IGNORE_LIST,
      priorities: config.SERVER_SCAN_PRIORITIES,
    },
  });
  const app = await buildApp({
    secret: config.SERVER_PASS,
    allowManualScan: config.SERVER_ALLOW_MANUAL_SCAN,
    queue,
    intake,
    processor,
    logger,
    activity,
  });

  let closed = false;
  return {
    config,
    queue,
    processor,
    intake,
    activity,
    app,
    targets,
    clock,
    async listen(port = config.SERVER_PORT, host = config.SERVER_IP) {
      const restored = queue.count();
      if (restored > 0) logger.info(`Restored ${restored} queued folder(s) from the queue file.`);
      processor.start();
      await app.listen({ port, host });
      const address = app.server.address();
      const actualPort = typeof address === 'object' && address ? address.port : port;
      return `http://${host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host}:${actualPort}`;
    },
    async close() {
      if (closed) return;
      closed = true;
      await app.close();
      await processor.stop();
      queue.close();
    },
  };
}
