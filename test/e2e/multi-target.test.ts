// Four media servers behind one service (two Plex, Jellyfin, Emby; all fakes on 127.0.0.1): each gets exactly
// the scans for its own libraries at its own paths, and one of them down for a simulated hour holds up nobody
// and loses nothing. Also: history records a Plex scan as confirmed once Plex finished it and has the file, and a
// second Plex with its own database empties its own trash.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from '../../src/sqlite/binding.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Source } from '../../src/request.js';
import { startFakeEmby } from '../fakes/emby.js';
import { startFakeJellyfin, type FakeMediaBrowser } from '../fakes/jellyfin.js';
import { FakePlex } from '../fakes/plex.js';
import { makePlexDb } from '../support/plex-db.js';
import { testService, type TestService } from '../support/service.js';

const MINUTE = 60_000;
const DELAY_S = 180;

let t: TestService;
let plex4k: FakePlex;
let jellyfin: FakeMediaBrowser;
let emby: FakeMediaBrowser;

beforeEach(async () => {
  // A 4K Plex with movies only, mounted at another path.
  plex4k = await new FakePlex({ token: 'plex-4k-token-9876', sections: [{ key: '7', title: 'Movies 4K', type: 'movie', locations: ['/media4k/movies'] }] }).start();
  jellyfin = await startFakeJellyfin({
    libraries: [
      { Name: 'Movies', Locations: ['/media/movies'], CollectionType: 'movies' },
      { Name: 'Shows', Locations: ['/media/tv'], CollectionType: 'tvshows' },
    ],
  });
  // Emby on Windows, TV only.
  emby = await startFakeEmby({ libraries: { Items: [{ Name: 'TV', ItemId: '4', Locations: ['D:\\Media\\tv'] }], TotalRecordCount: 1 } });
  t = await testService({
    config: {
      SERVER_SCAN_DELAY: DELAY_S,
      SERVER_SCAN_RETRY_MAX_DELAY: 300,
      PLEX_ANALYZE_TYPE: 'off',
      TARGETS: [
        { NAME: 'plex-4k', TYPE: 'plex', URL: plex4k.url, TOKEN: plex4k.token, PATH_MAPPINGS: { '/media4k/': ['/data/media/'] }, ENABLED: true, INCLUDE: [], EXCLUDE: [], SCAN_PAUSE: 0 },
        { NAME: 'jellyfin', TYPE: 'jellyfin', SCAN_METHOD: 'media-updated', URL: jellyfin.url, TOKEN: 'jellyfin-token-1234', PATH_MAPPINGS: { '/media/': ['/data/media/'] }, ENABLED: true, INCLUDE: [], EXCLUDE: [], SCAN_PAUSE: 0 },
        { NAME: 'emby', TYPE: 'emby', URL: emby.url, TOKEN: 'emby-token-5678', PATH_MAPPINGS: { 'D:\\Media\\': ['/data/media/'] }, ENABLED: true, INCLUDE: [], EXCLUDE: [], SCAN_PAUSE: 0 },
      ],
    },
  });
});

afterEach(async () => {
  await t.close();
  await plex4k.stop();
  await jellyfin.close();
  await emby.close();
});

/** A Sonarr/Radarr/Lidarr download as it arrives: the sender's path, mapped by SERVER_PATH_MAPPINGS. */
async function download(path: string, source: Source = 'sonarr'): Promise<void> {
  await t.service.intake.submit([{ path: `/mnt/unionfs/Media/${path}`, source, event: 'Download', kind: 'file' }], 'test');
}

/** Moves simulated time in steps, letting the processor do what is due at each one (its loop is not running). */
async function run(ms: number, step = 30_000): Promise<void> {
  for (let done = 0; done < ms; done += step) {
    t.clock.advance(Math.min(step, ms - done));
    await t.service.processor.drain();
  }
}

const MOVIE = 'movies/Heat (1995)/Heat (1995).mkv';
const EPISODE = 'tv/The Expanse/Season 01/The Expanse - S01E01.mkv';
const TRACK = 'music/ABBA/Gold/01 - Dancing Queen.flac';

describe('two Plex, Jellyfin and Emby from one config', () => {
  it('each server gets exactly the scans for its own libraries, at its own paths', async () => {
    t.plex.onDisk.add(`/data/media/${MOVIE}`);
    t.plex.onDisk.add(`/data/media/${EPISODE}`);
    await download(MOVIE, 'radarr');
    await download(EPISODE);
    await download(TRACK, 'lidarr');
    await run(DELAY_S * 1000);

    expect(t.service.targets.map((x) => x.name)).toEqual(['plex', 'plex-4k', 'jellyfin', 'emby']);
    expect(sorted(t.plex.refreshes)).toEqual(
      sorted([
        { section: '1', path: '/data/media/movies/Heat (1995)' },
        { section: '2', path: '/data/media/tv/The Expanse/Season 01' },
        { section: '3', path: '/data/media/music/ABBA/Gold' },
      ]),
    );
    expect(plex4k.refreshes).toEqual([{ section: '7', path: '/media4k/movies/Heat (1995)' }]);
    expect(jellyfin.updates().map((u) => u.Path).sort()).toEqual(['/media/movies/Heat (1995)', '/media/tv/The Expanse/Season 01']);
    expect(emby.updates()).toEqual([{ Path: 'D:\\Media\\tv\\The Expanse\\Season 01', UpdateType: 'Modified' }]);
    // Every token went only to its own server.
    expect(plex4k.requests.every((r) => r.token === plex4k.token)).toBe(true);
    expect(t.plex.requests.every((r) => r.path === '/identity' || r.token === t.plex.token)).toBe(true);

    expect(t.service.queue.count()).toBe(0);
    const history = Object.fromEntries(t.service.queue.history().map((h) => [`${h.target} ${h.folder}`, h.outcome]));
    expect(history).toEqual({
      'plex /data/media/movies/Heat (1995)': 'confirmed',
      'plex /data/media/tv/The Expanse/Season 01': 'confirmed',
      // Lidarr's track was never put on the fake's disk: the API can't tell, so it stays "scanned".
      'plex /data/media/music/ABBA/Gold': 'scanned',
      'plex-4k /data/media/movies/Heat (1995)': 'scanned',
      'plex-4k /data/media/tv/The Expanse/Season 01': 'unmatched',
      'plex-4k /data/media/music/ABBA/Gold': 'unmatched',
      'jellyfin /data/media/movies/Heat (1995)': 'scanned',
      'jellyfin /data/media/tv/The Expanse/Season 01': 'scanned',
      'jellyfin /data/media/music/ABBA/Gold': 'unmatched',
      'emby /data/media/movies/Heat (1995)': 'unmatched',
      'emby /data/media/tv/The Expanse/Season 01': 'scanned',
      'emby /data/media/music/ABBA/Gold': 'unmatched',
    });
    const confirmed = t.service.queue.history().find((h) => h.target === 'plex' && h.outcome === 'confirmed')!;
    expect(confirmed.detail).toMatch(/^In the library after \d+\.\d s \(among the section's recently added items\)\. Sent to section \d+ \w+/);
  });

  it('Jellyfin down for a simulated hour delays no other server and loses nothing', async () => {
    jellyfin.fail('down');
    const attemptsWhileDown = () => jellyfin.requests.length;
    await download(MOVIE, 'radarr');
    await download(EPISODE);
    await run(DELAY_S * 1000);

    // The others are served on time; Jellyfin is marked down and its deliveries wait.
    expect(t.plex.refreshes).toHaveLength(2);
    expect(plex4k.refreshes).toHaveLength(1);
    expect(emby.updates()).toHaveLength(1);
    expect(t.service.processor.health().find((h) => h.name === 'jellyfin')).toMatchObject({ up: false });
    expect(t.service.queue.count()).toBe(2);

    // Twenty minutes into the outage a new episode arrives: it reaches the others after its own delay only.
    await run(20 * MINUTE);
    const more = 'tv/The Expanse/Season 02/The Expanse - S02E01.mkv';
    await download(more);
    await run(DELAY_S * 1000);
    expect(t.plex.refreshes.map((r) => r.path)).toContain('/data/media/tv/The Expanse/Season 02');
    expect(emby.updates().map((u) => u.Path)).toContain('D:\\Media\\tv\\The Expanse\\Season 02');
    expect(t.service.queue.count()).toBe(3); // only Jellyfin's deliveries are still open

    await run(60 * MINUTE - 20 * MINUTE - DELAY_S * 2 * 1000);
    // Down means probes, not a hammering: at most one every 30 s for the hour, plus the first failures.
    expect(attemptsWhileDown()).toBeLessThan(150);
    expect(jellyfin.updates()).toEqual([]);

    jellyfin.fail(null);
    await run(60_000);
    expect(t.service.processor.health().find((h) => h.name === 'jellyfin')).toMatchObject({ up: true });
    expect(jellyfin.updates().map((u) => u.Path).sort()).toEqual([
      '/media/movies/Heat (1995)',
      '/media/tv/The Expanse/Season 01',
      '/media/tv/The Expanse/Season 02',
    ]);
    expect(t.service.queue.count()).toBe(0);
    // Nobody else was scanned twice because of Jellyfin's retries.
    expect(t.plex.refreshes).toHaveLength(3);
    expect(plex4k.refreshes).toHaveLength(1);
    expect(emby.updates()).toHaveLength(2);
    const jf = t.service.queue.history().filter((h) => h.target === 'jellyfin');
    expect(jf.map((h) => h.outcome).sort()).toEqual(['scanned', 'scanned', 'scanned']);
  });

  it('a Plex target down for an hour (the 4K one) loses nothing either, and its confirmations still work after', async () => {
    plex4k.failure = { status: 503 };
    await download(MOVIE, 'radarr');
    await run(DELAY_S * 1000);
    expect(t.plex.refreshes).toHaveLength(1);
    expect(jellyfin.updates()).toHaveLength(1);
    // A 503 answer backs the folder off on that server; only silence would mark the server down.
    expect(t.service.processor.health().find((h) => h.name === 'plex-4k')).toMatchObject({ up: true });
    const heat = t.service.queue.get('/data/media/movies/Heat (1995)')!;
    expect(t.service.queue.deliveries(heat.id).find((d) => d.target === 'plex-4k')!.lastError).toContain('503');
    await run(60 * MINUTE);
    plex4k.failure = undefined;
    plex4k.onDisk.add(`/media4k/${MOVIE}`);
    // The folder keeps its own backoff (at most SERVER_SCAN_RETRY_MAX_DELAY, 300 s) after the server recovers.
    await run(6 * MINUTE);
    expect(plex4k.refreshes.filter((r) => r.path === '/media4k/movies/Heat (1995)').length).toBeGreaterThanOrEqual(1);
    expect(t.service.queue.count()).toBe(0);
    const h = t.service.queue.history().find((x) => x.target === 'plex-4k')!;
    expect(h).toMatchObject({ outcome: 'confirmed', folder: '/data/media/movies/Heat (1995)' });
    expect(h.detail).toMatch(/^In the library after .* Sent to section 7 Movies 4K\.$/);
    expect(t.plex.refreshes).toHaveLength(1);
  });
});

describe('empty trash on a second Plex', () => {
  it('a TARGETS Plex with its own DATABASE_PATH and EMPTY_TRASH empties its own trash, counted in its own database', async () => {
    // plex-4k's database: the movie it is about to scan, and one old part of section 7 in the trash.
    const db = join(t.dir, 'plex4k.db');
    makePlexDb(db, {
      sections: [{ id: 7, name: 'Movies 4K', type: 1, roots: ['/media4k/movies'] }],
      parts: [{ file: `/media4k/${MOVIE}` }, { file: '/media4k/movies/Old (1990)/Old (1990).mkv', deletedAt: 1_700_000_000 }],
    });
    const rw = new Database(db);
    rw.exec('UPDATE metadata_items SET library_section_id = 7; UPDATE media_items SET library_section_id = 7;');
    rw.close();
    const control = join(t.dir, 'mounted-4k.bin');
    writeFileSync(control, '');
    const svc = await testService({
      config: {
        SERVER_SCAN_DELAY: DELAY_S,
        PLEX_ANALYZE_TYPE: 'off',
        // The first Plex leaves its trash alone: only the 4K entry asks.
        PLEX_EMPTY_TRASH: false,
        TARGETS: [
          {
            NAME: 'plex-4k',
            TYPE: 'plex',
            URL: plex4k.url,
            TOKEN: plex4k.token,
            PATH_MAPPINGS: { '/media4k/': ['/data/media/'] },
            ENABLED: true,
            INCLUDE: [],
            EXCLUDE: [],
            SCAN_PAUSE: 0,
            DATABASE_PATH: db,
            EMPTY_TRASH: true,
            EMPTY_TRASH_MAX_FILES: 5,
            EMPTY_TRASH_CONTROL_FILES: [control],
          },
        ],
      },
    });
    try {
      svc.plex.onDisk.add(`/data/media/${MOVIE}`);
      plex4k.onDisk.add(`/media4k/${MOVIE}`);
      await svc.service.intake.submit([{ path: `/mnt/unionfs/Media/${MOVIE}`, source: 'radarr', event: 'Download', kind: 'file' }], 'test');
      for (let done = 0; done < DELAY_S * 1000; done += 30_000) {
        svc.clock.advance(30_000);
        await svc.service.processor.drain();
      }
      expect(plex4k.refreshes).toEqual([{ section: '7', path: '/media4k/movies/Heat (1995)' }]);
      expect(plex4k.emptiedTrash).toEqual(['7']);
      expect(svc.plex.refreshes).toHaveLength(1);
      expect(svc.plex.emptiedTrash).toEqual([]);
      const h = svc.service.queue.history().find((x) => x.target === 'plex-4k')!;
      expect(h).toMatchObject({ outcome: 'confirmed' });
      expect(h.detail).toContain('Trash emptied in section 7.');
      const msgs = svc.logs.map((l) => (JSON.parse(l) as { msg: string }).msg);
      // The one item in the trash of the 4K database's section 7: the count came from this Plex's own database.
      expect(msgs).toContain('Emptied trash in section 7 Movies 4K (1 deleted item(s)).');
    } finally {
      await svc.close();
    }
  });
});

function sorted<T>(xs: T[]): T[] {
  return [...xs].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
}
