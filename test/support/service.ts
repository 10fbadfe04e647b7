// Builds a real service (real SQLite file, real Fastify, real fake Plex on 127.0.0.1) for tests.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManualClock } from '../../src/clock.js';
import { defaultConfig } from '../../src/config/load.js';
import type { Config } from '../../src/config/schema.js';
import { createLogger } from '../../src/log/logger.js';
import type { PathState } from '../../src/paths/disk.js';
import { createService, type Service, type ServiceOptions } from '../../src/service.js';
import type { Target } from '../../src/scan.js';
import { FakePlex } from '../fakes/plex.js';
import { auditedSink } from './log-audit.js';

export const SECRET = '0123456789abcdef0123456789abcdef';

/** Every log line of every service this test file built, for a file's own check that none holds a secret. */
const everyLine: string[] = [];
export const serviceLogs = (): string => everyLine.join('');

export interface TestService {
  service: Service;
  plex: FakePlex;
  clock: ManualClock;
  dir: string;
  queuefile: string;
  /** Every log line written so far (JSON strings). */
  logs: string[];
  close(): Promise<void>;
}

export async function testService(
  opts: {
    config?: Partial<Config>;
    targets?: Target[];
    pathState?: (p: string) => Promise<PathState>;
    queuefile?: string;
    limits?: ServiceOptions['limits'];
    hashLimits?: ServiceOptions['hashLimits'];
    /** PLEX_LOCAL_URL as written for the fake's URL (a user and password in it, say); the fake's URL itself by default. */
    plexUrl?: (fakeUrl: string) => string;
  } = {},
): Promise<TestService> {
  const plex = await new FakePlex().start();
  const dir = mkdtempSync(join(tmpdir(), 'scanrelay-svc-'));
  const clock = new ManualClock();
  const config: Config = {
    ...defaultConfig(() => SECRET),
    PLEX_LOCAL_URL: opts.plexUrl ? opts.plexUrl(plex.url) : plex.url,
    PLEX_TOKEN: plex.token,
    SERVER_ALLOW_MANUAL_SCAN: true,
    SERVER_PATH_MAPPINGS: { '/data/media/': ['/mnt/unionfs/Media/', 'My Drive/Media/', 'D:\\Media\\'] },
    SERVER_FILE_EXIST_PATH_MAPPINGS: {},
    SERVER_IGNORE_LIST: ['/.grab/', '.DS_Store'],
    SERVER_MAX_FILE_CHECKS: 0,
    PLEX_SCAN_MODE: 'api',
    // The fake Plex here has no notification socket, and a socket's backoff on the manual clock moves time.
    PLEX_NOTIFICATIONS: false,
    ...opts.config,
  } as Config;
  const logs: string[] = [];
  const logger = createLogger({ level: 'debug', console: auditedSink((text) => (logs.push(text), everyLine.push(text))), secrets: [config.SERVER_PASS, config.PLEX_TOKEN] });
  const queuefile = opts.queuefile ?? join(dir, 'queue.db');
  const service = await createService({
    config,
    queuefile,
    logger,
    clock,
    targets: opts.targets,
    pathState: opts.pathState ?? (async () => 'missing'),
    limits: opts.limits,
    hashLimits: opts.hashLimits,
  });
  return {
    service,
    plex,
    clock,
    dir,
    queuefile,
    logs,
    async close() {
      await service.close();
      await plex.stop();
    },
  };
}
