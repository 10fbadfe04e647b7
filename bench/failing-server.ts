// Benchmark 8 — a failing media server, with the default config (SERVER_SCAN_DELAY 180 s, 30 s per request,
// PLEX_SCAN_CONCURRENCY 8, SERVER_SCAN_RETRY_MAX_DELAY 300 s): (a) refresh attempts in 60 s against a Plex that
// answers every refresh with 500; (b) how long a healthy folder waits behind 8 refreshes Plex never answers.
// Time is the service's injected ManualClock, moved on in 100 ms steps, so a minute of failures and a 30 s
// timeout take a few seconds to measure; the HTTP calls are real, to a fake Plex on 127.0.0.1.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManualClock } from '../src/clock.js';
import { defaultConfig } from '../src/config/load.js';
import type { Config } from '../src/config/schema.js';
import { silentLogger } from '../src/log/logger.js';
import { createService, type Service } from '../src/service.js';
import { FakePlex } from '../test/fakes/plex.js';
import { log, SECRET, sleep, sonarrDownload, standalone, type Figure } from './support.js';

const STEP_MS = 100;

async function setup(): Promise<{ service: Service; plex: FakePlex; clock: ManualClock; close: () => Promise<void> }> {
  const plex = await new FakePlex({ sections: [{ key: '2', title: 'TV', type: 'show', locations: ['/data/media/tv'] }] }).start();
  const clock = new ManualClock(Date.now());
  const dir = mkdtempSync(join(tmpdir(), 'scanrelay-bench-failing-'));
  // Only what a user writes: the Plex URL and token and the path mapping; every other key keeps its default.
  const config = { ...defaultConfig(() => SECRET), PLEX_LOCAL_URL: plex.url, PLEX_TOKEN: plex.token, SERVER_PATH_MAPPINGS: { '/data/media/tv/': ['/tv/'] } } as Config;
  const service = await createService({ config, queuefile: join(dir, 'queue.db'), logger: silentLogger, clock, pathState: async () => 'file' });
  return {
    service,
    plex,
    clock,
    async close() {
      await service.close();
      await plex.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function post(service: Service, show: string): Promise<void> {
  const res = await service.app.inject({ method: 'POST', url: `/${SECRET}`, headers: { 'content-type': 'application/json' }, payload: sonarrDownload(show) });
  if (res.statusCode !== 200) throw new Error(`webhook answered ${res.statusCode}`);
}

const refreshesOf = (plex: FakePlex, show: string) => plex.refreshes.filter((r) => r.path.startsWith(`/data/media/tv/${show}/`)).length;

export async function run(): Promise<Figure[]> {
  const figures: Figure[] = [];
  const delayMs = defaultConfig(() => SECRET).SERVER_SCAN_DELAY * 1000;

  {
    const t = await setup();
    try {
      t.plex.failRoute('GET', /\/refresh$/, 500);
      await post(t.service, 'Broken');
      t.clock.advance(delayMs);
      let downSteps = 0;
      for (let ms = 0; ms < 60_000; ms += STEP_MS) {
        await t.service.processor.drain();
        if (!t.service.processor.health()[0].up) downSteps++;
        t.clock.advance(STEP_MS);
      }
      const attempts = refreshesOf(t.plex, 'Broken');
      log(`failing server: ${attempts} refreshes in 60 s against a Plex answering 500; marked down in ${downSteps} of 600 steps`);
      figures.push({
        id: '8',
        name: 'failing server: refresh attempts in 60 s, Plex answering every refresh 500',
        value: attempts,
        unit: 'attempts',
        target: '<= 5',
        pass: attempts <= 5 && downSteps === 0,
        note: downSteps ? `the server was marked down in ${downSteps} steps` : undefined,
      });
    } finally {
      await t.close();
    }
  }

  {
    const t = await setup();
    try {
      t.plex.hangWhen = (path, query) => /\/refresh$/.test(path) && /Hung/.test(query.path ?? '');
      for (let i = 0; i < 8; i++) await post(t.service, `Hung ${i}`);
      t.clock.advance(1_000);
      await post(t.service, 'Healthy'); // due a second after the hung ones, so they hold every slot first
      t.clock.advance(delayMs - 1_000);
      await t.service.processor.tick();
      const sentAt = t.clock.now();
      for (let i = 0; i < 500 && t.plex.refreshes.length < 8; i++) await sleep(5);
      t.clock.advance(1_000);
      await t.service.processor.tick();
      let waited = NaN;
      for (let ms = 0; ms < 120_000; ms += STEP_MS) {
        t.clock.advance(STEP_MS);
        await sleep(5);
        await t.service.processor.tick();
        await sleep(5);
        if (refreshesOf(t.plex, 'Healthy') > 0) {
          waited = t.clock.now() - sentAt;
          break;
        }
      }
      const timeoutS = 30;
      log(`failing server: a healthy folder behind 8 hung refreshes was refreshed ${(waited / 1000).toFixed(1)} s after the hung ones were sent (it was due 1 s after them)`);
      figures.push({
        id: '8',
        name: 'failing server: healthy folder behind 8 hung refreshes (PLEX_SCAN_CONCURRENCY 8): hung ones sent -> its refresh',
        value: Math.round(waited / 100) / 10,
        unit: 's',
        target: `<= ${timeoutS + 2} s (timeout + 2 s)`,
        pass: waited <= (timeoutS + 2) * 1000,
      });
    } finally {
      await t.close();
    }
  }
  return figures;
}

await standalone(import.meta.url, run);
