// A real service (SQLite queue, intake, fake Plex; a ManualClock) with ARR entries pointing at fake arr apps on
// 127.0.0.1, for the catch-up's tests: nothing is started, each test catches up when it says so. The apps name
// /tv/, /movies/, /music/; the fake Plex's libraries are under /data/media/.
import type { ConnectedApps } from '../../src/arr/connected.js';
import type { ArrType } from '../../src/config/arr-schema.js';
import type { Config } from '../../src/config/schema.js';
import { FakeArrApp, type ArrAppType } from '../fakes/arr-app.js';
import { testService, type TestService } from '../support/service.js';

/** API keys the fakes take; test/support/log-audit.ts checks that no log line of the suite holds one. */
export const ARR_KEYS: Record<ArrAppType, string> = {
  sonarr: 'arr-key-sonarr-5f0c1e9a7b2d',
  radarr: 'arr-key-radarr-91d3c07e4a6b',
  lidarr: 'arr-key-lidarr-2b8e6f1d0c3a',
  readarr: 'arr-key-readarr-7c4a9e2f1b0d',
  whisparr: 'arr-key-whisparr-3e1f8a6c9d2b',
  'whisparr-v3': 'arr-key-whisparr3-6a0d2c8e4f1b',
};

export interface ArrHarness extends TestService {
  apps: FakeArrApp[];
  arr: ConnectedApps;
  /** Lines logged so far, as their messages. */
  messages(): string[];
}

export async function arrHarness(
  types: ArrAppType[],
  opts: { config?: Partial<Config>; queuefile?: string; interval?: number; reconcileHours?: number } = {},
): Promise<ArrHarness> {
  const apps = await Promise.all(types.map((t) => new FakeArrApp(t, ARR_KEYS[t]).start()));
  const entries = apps.map((a) => ({
    NAME: a.type,
    TYPE: (a.type === 'whisparr-v3' ? 'whisparr' : a.type) as ArrType,
    URL: a.url,
    API_KEY: a.apiKey,
    CATCH_UP_INTERVAL: opts.interval ?? 300,
    RECONCILE_INTERVAL: opts.reconcileHours ?? 0,
  }));
  const t = await testService({ config: { SERVER_PATH_MAPPINGS: { '/data/media/tv/': ['/tv/'], '/data/media/movies/': ['/movies/'], '/data/media/music/': ['/music/'] }, ARR: entries, ...opts.config }, queuefile: opts.queuefile });
  return {
    ...t,
    apps,
    arr: t.service.arr!,
    messages: () => t.logs.flatMap((l) => l.split('\n').filter(Boolean)).map((l) => (JSON.parse(l) as { msg: string }).msg),
    async close() {
      await t.close();
      await Promise.all(apps.map((a) => a.stop()));
    },
  };
}
