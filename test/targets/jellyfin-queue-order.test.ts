// Order that survives Jellyfin's refresh queue, which is a .NET PriorityQueue (the newest equal entry runs next,
// test/fakes/refresh-queue.ts), through the real service against the model server: a library refresh is held
// until the targeted refreshes sent before it have run; the follower never calls a file missing while the
// server's queue is busy (a library refreshing, or a refresh of ours not yet seen to run) and says `scanned` past
// its limit; media-updated follow-ups count from the last change sent under the library (the monitor's timer
// restarts on each).
import { afterEach, describe, expect, it } from 'vitest';
import { episodeFile, movieFile, movieLibrary, seasonFolder, tvLibrary } from '../fakes/jellyfin-libraries.js';
import { jellyfinService, radarrDownload, sonarrDownload, type JellyfinService, type JellyfinServiceOptions } from '../support/jellyfin-service.js';

let t: JellyfinService | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

async function start(opts: JellyfinServiceOptions & { series?: number } = {}): Promise<JellyfinService> {
  t = await jellyfinService({
    msPerEntry: 2,
    setup: (s) => {
      tvLibrary(s.model, '/tv', { series: opts.series ?? 4, seasons: 2, episodes: 5 });
      movieLibrary(s.model, '/movies', 5);
      s.model.settle();
    },
    ...opts,
  });
  return t;
}

const outcomes = (t: JellyfinService) => t.service.queue.history().map((h) => h.outcome);
const secondScans = (t: JellyfinService) => t.logged('once more in').length;

describe('a library refresh waits for the targeted refreshes sent before it', () => {
  it('while the server walks TV: the new seasons are items before the movie library walk starts', async () => {
    const { server, webhook, run } = await start({ msPerEntry: 100, series: 20 });
    const [tv, movies] = server.model.libraries;
    server.model.queueRefresh(tv.id, 'a scheduled scan of the TV library');
    for (const s of [1, 2, 3]) {
      server.model.writeFile(episodeFile('/tv', s, 3, 1));
      await webhook('sonarr', sonarrDownload(episodeFile('/tv', s, 3, 1)));
      await run(200);
    }
    server.model.writeFile(movieFile('/movies', 6));
    await webhook('radarr', radarrDownload(movieFile('/movies', 6)));
    await run(120_000);
    const walk = server.model.validates.find((v) => v.itemId === movies.id)!;
    for (const s of [1, 2, 3]) expect(server.model.shownAt(seasonFolder('/tv', s, 3))).toBeLessThanOrEqual(walk.startedAt);
    expect(server.model.itemAt(movieFile('/movies', 6))).toBeDefined();
    expect(outcomes(t!)).toEqual(['confirmed', 'confirmed', 'confirmed', 'confirmed']);
    expect(secondScans(t!)).toBe(0);
  });
});

describe('the follower and a busy queue', () => {
  it('lists again while another library walks and our refresh has not run: confirmed, no second scan', async () => {
    const { server, webhook, run } = await start({ msPerEntry: 1_000 });
    const movies = server.model.libraries[1];
    server.model.queueRefresh(movies.id, 'someone scans the movie library');
    const file = episodeFile('/tv', 2, 1, 6);
    server.model.writeFile(file);
    await webhook('sonarr', sonarrDownload(file));
    await run(60_000);
    expect(outcomes(t!)).toEqual(['confirmed']);
    expect(secondScans(t!)).toBe(0);
  });

  it('a queue still busy at the time limit ends scanned, never not-found', async () => {
    // The relay sees a file the server never does, while a library walk takes longer than the limit.
    const { server, webhook, run } = await start({ msPerEntry: 60_000, pathState: async () => 'file' });
    server.model.queueRefresh(server.model.libraries[1].id, 'a very slow walk');
    await webhook('sonarr', sonarrDownload(episodeFile('/tv', 3, 1, 9)));
    await run(11 * 60_000);
    const [line] = t!.service.queue.history();
    expect([line.outcome, line.detail]).toEqual(['scanned', expect.stringContaining("the server's refresh queue was still busy after 600 s")]);
  });
});

describe('media-updated follow-ups', () => {
  it('count from the last change sent under the library: the monitor restarted its timer', async () => {
    const { server, webhook, run } = await start({ entry: { SCAN_METHOD: 'media-updated' } });
    const a = episodeFile('/tv', 1, 1, 6);
    const b = episodeFile('/tv', 1, 2, 6);
    server.model.writeFile(a);
    await webhook('sonarr', sonarrDownload(a));
    await run(50_000);
    server.model.writeFile(b);
    await webhook('sonarr', sonarrDownload(b));
    await run(120_000);
    expect(server.monitor.fired).toHaveLength(1);
    expect(outcomes(t!)).toEqual(['confirmed', 'confirmed']);
    expect(secondScans(t!)).toBe(0);
  });
});
