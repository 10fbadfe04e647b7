// The real service (intake, SQLite queue, processor, Plex target and follower) against the fake Plex on 127.0.0.1
// whose scans run one at a time and end only when the driver steps them, with its notification socket unless
// asked not to, on one SteppedClock. `settle` ends a step once no call to Plex is left unanswered. What
// test/support/pressure.ts and test/support/burst.ts drive.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultConfig } from '../../src/config/load.js';
import type { Config } from '../../src/config/schema.js';
import { httpFetch } from '../../src/http/fetch.js';
import { silentLogger } from '../../src/log/logger.js';
import { createService, type Service } from '../../src/service.js';
import { FakePlex } from '../fakes/plex.js';
import { attachPlexNotifications, type FakePlexNotifications } from '../fakes/plex-notifications.js';
import { SteppedClock } from './stepped-clock.js';

export interface SteppedPlex {
  plex: FakePlex;
  socket?: FakePlexNotifications;
  clock: SteppedClock;
  service: Service;
  /** Until no call to Plex is in flight and a few turns of the event loop brought nothing new. */
  settle(): Promise<void>;
  close(): Promise<void>;
}

export async function steppedPlex(opts: { config?: Partial<Config>; notifications?: boolean }): Promise<SteppedPlex> {
  const dir = mkdtempSync(join(tmpdir(), 'scanrelay-stepped-'));
  const plex = await new FakePlex().start();
  plex.fifoMs = 0;
  plex.fifoStepped = true;
  const socket = opts.notifications === false ? undefined : attachPlexNotifications(plex);
  const clock = new SteppedClock();
  let calls = 0;
  // Calls to Plex still unanswered: the step is over only when none is left.
  const fetch: typeof globalThis.fetch = async (input, init) => {
    calls++;
    try {
      return await httpFetch(input, init);
    } finally {
      calls--;
    }
  };
  const config = {
    ...defaultConfig(() => '0123456789abcdef0123456789abcdef'),
    PLEX_LOCAL_URL: plex.url,
    PLEX_TOKEN: plex.token,
    PLEX_SCAN_MODE: 'api',
    PLEX_ANALYZE_TYPE: 'off',
    SERVER_MAX_FILE_CHECKS: 0,
    SERVER_PATH_MAPPINGS: {},
    SERVER_IGNORE_LIST: [],
    ...opts.config,
  } as Config;
  const service = await createService({ config, queuefile: join(dir, 'queue.db'), logger: silentLogger, clock, fetch, pathState: async () => 'file' });
  return {
    plex,
    socket,
    clock,
    service,
    async settle() {
      for (let quiet = 0; quiet < 8; ) {
        await new Promise((r) => setImmediate(r));
        await service.processor.idle();
        quiet = calls > 0 ? 0 : quiet + 1;
      }
    },
    async close() {
      await service.close();
      await socket?.close();
      await plex.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
