// What the HTTP service is built from (the queue, the intake, the processor, the logger, ...): every route plugin
// takes these, so they live apart from app.ts and the plugins never import the app.
import type { Activity } from '../activity.js';
import type { AppRoots } from '../arr/roots.js';
import type { ReconcileView } from '../reconcile/schedule.js';
import type { AutoscanConfig } from '../config/autoscan-schema.js';
import type { Clock } from '../clock.js';
import type { Doctor } from '../doctor/explain.js';
import type { HashHold } from '../hash/hold.js';
import type { Intake } from '../intake/intake.js';
import type { Logger } from '../log/logger.js';
import type { Processor } from '../processor/processor.js';
import type { Queue } from '../queue/store.js';
import type { Metrics } from './metrics.js';
import type { Readiness } from './readiness.js';
import type { ArrReloadReply } from './schemas.js';

export interface AppDeps {
  secret: string;
  allowManualScan: boolean;
  queue: Queue;
  intake: Intake;
  processor?: Processor;
  logger: Logger;
  activity?: Activity;
  /** Extra status blocks for /health (drive monitor, ...). */
  status?: () => Record<string, unknown>;
  /** "Due in" and ages on the dashboard; the queue's clock. */
  clock?: Clock;
  /** The service's metrics; created by the /metrics plugin when not given. */
  metrics?: Metrics;
  /** SERVER_METRICS_TOKEN: when set, /metrics needs `Authorization: Bearer <token>`. */
  metricsToken?: string;
  /** The path doctor (dashboard form and /api/<SERVER_PASS>/explain). */
  explain?: Doctor;
  /** What the last reconcile of each ARR app found, with its paths (the doctor page); absent without ARR entries. */
  reconcile?: () => ReconcileView;
  /** Each ARR app's root folders and the library holding each (the doctor page); absent without ARR entries. */
  appRoots?: () => Promise<AppRoots[]>;
  /** Reads config.json's ARR entries again and brings the connected apps to them (throws ConfigError for a bad file). */
  reloadArr?: () => Promise<ArrReloadReply>;
  /** Largest accepted body (bytes); a Sonarr import of a full season is well under 1 MiB. */
  bodyLimit?: number;
  /** SERVER_TRUST_PROXY: whose X-Forwarded-For / -Host / -Proto to believe (false: nobody's). */
  trustProxy?: boolean | string[];
  /** How long a client may take (tests shorten these to watch a slow client being cut off). */
  limits?: Partial<ConnectionLimits>;
  /** The AUTOSCAN block: autoscan-compatible /triggers/ routes when enabled. */
  autoscan?: AutoscanConfig;
  /** Requests held until their file has the SHA-256 the sender named (autopulse's hash=). */
  hashHold?: HashHold;
  /** SERVER_BASE_PATH ("" or "/scanrelay"): every route answers under it (base-path.ts). */
  basePath?: string;
  /** Startup state for /health?ready (src/server/readiness.ts); without it the service counts as ready. */
  readiness?: Readiness;
}

export interface ConnectionLimits {
  /** Whole request, headers and body. */
  requestMs: number;
  /** Headers alone. */
  headersMs: number;
  /** A socket with no traffic at all. */
  idleMs: number;
  /** An idle keep-alive socket between requests. */
  keepAliveMs: number;
  /** How often Node looks for requests over their time (its own default is 30 s, which would double the limits). */
  checkEveryMs: number;
}
