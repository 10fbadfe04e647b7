// Benchmark 2 — coalescing: 10,000 webhook events over 500 folders within SERVER_SCAN_DELAY become exactly 500
// refreshes on each of two Plex targets; 24 episode imports of one season become 1. Baseline: the scans a relay
// without coalescing would send (one per event), counted in the same run.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManualClock } from '../src/clock.js';
import { defaultConfig } from '../src/config/load.js';
import type { Config } from '../src/config/schema.js';
import { silentLogger } from '../src/log/logger.js';
import { createService, type Service } from '../src/service.js';
import { PlexTarget } from '../src/targets/plex/target.js';
import { named } from '../test/support/target.js';
import { FakePlex } from '../test/fakes/plex.js';
import { log, SECRET, sonarrDownload, standalone, type Figure } from './support.js';

const DELAY_S = 60;

async function setup(): Promise<{ service: Service; plexes: FakePlex[]; clock: ManualClock; close: () => Promise<void> }> {
  const sections = [{ key: '2', title: 'TV', type: 'show', locations: ['/data/media/tv'] }];
  const plexes = [await new FakePlex({ sections }).start(), await new FakePlex({ sections }).start()];
  const clock = new ManualClock(Date.now());
  const dir = mkdtempSync(join(tmpdir(), 'scanrelay-bench-coalesce-'));
  const config = {
    ...defaultConfig(() => SECRET),
    SERVER_SCAN_DELAY: DELAY_S,
    SERVER_PATH_MAPPINGS: { '/data/media/tv/': ['/tv/'] },
    PLEX_TOKEN: '',
  } as Config;
  const targets = plexes.map((p, i) => named(new PlexTarget({ url: p.url, token: p.token, clock }), { name: `plex-${i + 1}` }));
  // The default file check runs; the disk it looks at has every file (as a mounted library would).
  const service = await createService({ config, queuefile: join(dir, 'queue.db'), logger: silentLogger, clock, targets, pathState: async () => 'file' });
  return {
    service,
    plexes,
    clock,
    async close() {
      await service.close();
      for (const p of plexes) await p.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function post(service: Service, body: string): Promise<number> {
  const res = await service.app.inject({ method: 'POST', url: `/${SECRET}`, headers: { 'content-type': 'application/json' }, payload: body });
  return res.statusCode;
}

export async function run(): Promise<Figure[]> {
  const figures: Figure[] = [];

  // 10,000 events over 500 folders, spread over less than the delay (each merge also resets it).
  {
    const t = await setup();
    try {
      const EVENTS = 10_000;
      const FOLDERS = 500;
      let ok = 0;
      const started = Date.now();
      for (let i = 0; i < EVENTS; i++) {
        const show = `Show ${i % FOLDERS}`;
        if ((await post(t.service, sonarrDownload(show, 1, 1 + Math.floor(i / FOLDERS)))) === 200) ok++;
        t.clock.advance(2); // 10,000 events in 20 s of service time, well within the 60 s delay
      }
      const took = Date.now() - started;
      t.clock.advance(DELAY_S * 1000 + 1);
      await t.service.processor.drain();
      const counts = t.plexes.map((p) => p.refreshes.length);
      const distinct = t.plexes.map((p) => new Set(p.refreshes.map((r) => r.path)).size);
      log(`coalescing: ${ok} events accepted in ${took} ms; refreshes per target ${counts.join(', ')}; distinct ${distinct.join(', ')}`);
      const exact = counts.every((c) => c === FOLDERS) && distinct.every((d) => d === FOLDERS) && ok === EVENTS && t.service.queue.count() === 0;
      figures.push({
        id: '2',
        name: `coalescing: 10,000 events over 500 folders -> refreshes per target (2 Plex targets: ${counts.join(' + ')})`,
        value: Math.max(...counts),
        unit: 'refreshes',
        baseline: { label: 'one scan per event', value: EVENTS },
        ratio: Math.max(...counts) / EVENTS,
        target: 'exactly 500 per target',
        pass: exact,
        note: exact ? undefined : `got ${counts.join(', ')} (distinct ${distinct.join(', ')}), ${ok} of ${EVENTS} accepted`,
      });
    } finally {
      await t.close();
    }
  }

  // 24 episode imports of one season (one webhook per episode, as Sonarr sends them).
  {
    const t = await setup();
    try {
      let ok = 0;
      for (let e = 1; e <= 24; e++) {
        if ((await post(t.service, sonarrDownload('Mr. Robot (2015)', 1, e))) === 200) ok++;
        t.clock.advance(1_000);
      }
      t.clock.advance(DELAY_S * 1000 + 1);
      await t.service.processor.drain();
      const counts = t.plexes.map((p) => p.refreshes.length);
      const exact = ok === 24 && counts.every((c) => c === 1);
      figures.push({
        id: '2',
        name: `coalescing: 24 episode imports of one season -> refreshes per target (${counts.join(' + ')})`,
        value: Math.max(...counts),
        unit: 'refreshes',
        baseline: { label: 'one scan per import', value: 24 },
        ratio: Math.max(...counts) / 24,
        target: 'exactly 1 per target',
        pass: exact,
        note: exact ? undefined : `got ${counts.join(', ')}`,
      });
    } finally {
      await t.close();
    }
  }
  return figures;
}

await standalone(import.meta.url, run);
