// Jellyfin scans: how long until each change shows, and how many entries the server walks, by SCAN_METHOD.
// A model 10.11 server (test/fakes/jellyfin-server.ts): a TV library of 20,000 episodes (200 series x 5 seasons
// x 20) and a movie library of 2,000 movies, 2 ms per entry walked, one validate at a time, the monitor's 60 s
// timer. One burst of arr webhooks: new episodes in existing seasons, a new season, a deleted episode, new movies
// and a movie upgrade; the default config with SERVER_SCAN_DELAY 1 (every folder of the burst is due 1 s after
// its last webhook). The real service takes them (webhook → intake → queue → processor → the jellyfin target,
// test/support/jellyfin-service.ts) on the model's ManualClock: the run takes seconds of wall time.
// `node --import tsx bench/jellyfin-scans.ts` prints the table; `run()` returns it for bench/run.ts.
import { pathToFileURL } from 'node:url';
import type { ScanMethod } from '../src/targets/mediabrowser-scan-plan.js';
import { episodeFile, movieFile, movieLibrary, tvLibrary } from '../test/fakes/jellyfin-libraries.js';
import type { JellyfinServer } from '../test/fakes/jellyfin-server.js';
import { jellyfinService, radarrDownload, sonarrDownload, sonarrEpisodeDeleted } from '../test/support/jellyfin-service.js';
import { log, table, type Figure } from './support.js';

interface Change {
  what: string;
  library: 'tv' | 'movies';
  /** The file the webhook names; the folder scanned is its parent. */
  file: string;
  deleted: boolean;
  apply: (w: World) => void;
  webhook: ['sonarr' | 'radarr', object];
}

type World = JellyfinServer;

const changes: Change[] = [
  ...[
    [10, 2],
    [50, 5],
    [120, 1],
  ].map(([s, n]): Change => ({ what: `new episode S${s} season ${n}`, library: 'tv', file: episodeFile('/tv', s, n, 21), deleted: false, apply: (w) => w.model.writeFile(episodeFile('/tv', s, n, 21)), webhook: ['sonarr', sonarrDownload(episodeFile('/tv', s, n, 21))] })),
  { what: 'new season', library: 'tv', file: episodeFile('/tv', 33, 6, 1), deleted: false, apply: (w) => w.model.writeFile(episodeFile('/tv', 33, 6, 1)), webhook: ['sonarr', sonarrDownload(episodeFile('/tv', 33, 6, 1))] },
  { what: 'deleted episode', library: 'tv', file: episodeFile('/tv', 77, 3, 5), deleted: true, apply: (w) => w.model.remove(episodeFile('/tv', 77, 3, 5)), webhook: ['sonarr', sonarrEpisodeDeleted(episodeFile('/tv', 77, 3, 5))] },
  ...[2001, 2002, 2003].map((m): Change => ({ what: `new movie ${m}`, library: 'movies', file: movieFile('/movies', m), deleted: false, apply: (w) => w.model.writeFile(movieFile('/movies', m)), webhook: ['radarr', radarrDownload(movieFile('/movies', m))] })),
  { what: 'movie upgrade', library: 'movies', file: movieFile('/movies', 500), deleted: false, apply: (w) => w.model.writeFile(movieFile('/movies', 500)), webhook: ['radarr', radarrDownload(movieFile('/movies', 500), true)] },
];

interface Outcome {
  label: string;
  tvWorstMs: number;
  moviesWorstMs: number;
  tvWalked: number;
  moviesWalked: number;
  tvWalk: number;
  moviesWalk: number;
  movieLibraryWalks: number;
  listings: number;
  unseen: string[];
}

async function scenario(method: ScanMethod, plugin: boolean): Promise<Outcome> {
  let tv!: ReturnType<typeof tvLibrary>;
  let movies!: ReturnType<typeof movieLibrary>;
  const svc = await jellyfinService({
    plugin,
    msPerEntry: 2,
    monitorDelayMs: 60_000,
    entry: { SCAN_METHOD: method },
    setup: (s) => {
      tv = tvLibrary(s.model, '/tv', { series: 200, seasons: 5, episodes: 20 });
      movies = movieLibrary(s.model, '/movies', 2_000);
      s.model.settle();
    },
  });
  const w = svc.server;
  try {
    const sentAt = new Map<Change, number>();
    // The burst: one webhook every 200 ms, each change on disk just before its webhook.
    changes.forEach((c, i) => {
      w.scheduler.after(i * 200, async () => {
        c.apply(w);
        sentAt.set(c, w.clock.now());
        await svc.webhook(...c.webhook);
      });
    });
    await svc.run(200_000);
    for (const line of svc.logged('refreshing library')) log(`  ${method}${plugin ? ' + plugin' : ''}: ${JSON.parse(line).msg}`);
    const listings = w.count('GET', '/Items');
    const worst = (lib: 'tv' | 'movies') => Math.max(...changes.filter((c) => c.library === lib).map((c) => (w.model.shownAt(c.file) ?? Infinity) - sentAt.get(c)!));
    const walks = w.model.validates.filter((v) => v.itemId === movies.id).length;
    return {
      label: method === 'auto' ? `auto (${plugin ? 'with' : 'without'} the plugin)` : method,
      tvWorstMs: worst('tv'),
      moviesWorstMs: worst('movies'),
      tvWalked: w.model.walkedIn.get(tv.id) ?? 0,
      moviesWalked: w.model.walkedIn.get(movies.id) ?? 0,
      tvWalk: w.model.libraryWalk(tv),
      moviesWalk: w.model.libraryWalk(movies),
      movieLibraryWalks: walks,
      listings,
      unseen: changes.filter((c) => w.model.shownAt(c.file) === undefined).map((c) => c.what),
    };
  } finally {
    await svc.close();
  }
}

const secs = (ms: number) => (Number.isFinite(ms) ? ms / 1000 : NaN);

export async function run(): Promise<Figure[]> {
  const outcomes = [await scenario('auto', false), await scenario('auto', true), await scenario('media-updated', false)];
  const [, , monitor] = outcomes;
  const figures: Figure[] = [];
  for (const o of outcomes) {
    const isAuto = o.label.startsWith('auto');
    const withPlugin = o.label.includes('with the');
    const tvShare = o.tvWalked / o.tvWalk;
    const movieShare = o.moviesWalked / o.moviesWalk;
    const unseen = o.unseen.length ? `; never shown: ${o.unseen.join(', ')}` : '';
    figures.push({
      id: '11',
      name: `jellyfin ${o.label}: TV changes (3 new episodes, a new season, a deleted episode), worst time from webhook to shown${unseen}`,
      value: secs(o.tvWorstMs),
      unit: 's',
      baseline: o === monitor ? undefined : { label: 'media-updated, same run', value: secs(monitor.tvWorstMs) },
      ratio: o === monitor ? undefined : o.tvWorstMs / monitor.tvWorstMs,
      target: isAuto ? '<= 3 s' : 'informational',
      pass: !isAuto || o.tvWorstMs <= 3_000,
    });
    figures.push({
      id: '11',
      name: `jellyfin ${o.label}: entries the server walked for the TV changes (a TV library walk is ${o.tvWalk.toLocaleString('en-US')})`,
      value: o.tvWalked,
      unit: 'entries',
      ratio: tvShare,
      target: isAuto ? '<= 1% of a library walk' : 'informational',
      pass: !isAuto || tvShare <= 0.01,
      note: `${(tvShare * 100).toFixed(2)}% of a walk; ${o.listings} listing requests`,
    });
    figures.push({
      id: '11',
      name: `jellyfin ${o.label}: movie changes (3 new movies, an upgrade), worst time from webhook to shown`,
      value: secs(o.moviesWorstMs),
      unit: 's',
      baseline: o === monitor ? undefined : { label: 'media-updated, same run', value: secs(monitor.moviesWorstMs) },
      ratio: o === monitor ? undefined : o.moviesWorstMs / monitor.moviesWorstMs,
      target: withPlugin ? '<= 3 s' : 'informational',
      pass: !withPlugin || o.moviesWorstMs <= 3_000,
    });
    figures.push({
      id: '11',
      name: `jellyfin ${o.label}: entries walked for the movies (a movie library walk is ${o.moviesWalk.toLocaleString('en-US')}; whole-library validates: ${o.movieLibraryWalks})`,
      value: o.moviesWalked,
      unit: 'entries',
      ratio: movieShare,
      target: withPlugin ? '<= 1% of a library walk' : isAuto ? 'one library walk per burst' : 'informational',
      pass: withPlugin ? movieShare <= 0.01 : isAuto ? o.movieLibraryWalks === 1 : true,
      note: `${(movieShare * 100).toFixed(2)}% of a walk`,
    });
  }
  return figures;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const t0 = Date.now();
  const figures = await run();
  console.log(table(figures));
  log(`done in ${((Date.now() - t0) / 1000).toFixed(1)} s of wall time`);
}
