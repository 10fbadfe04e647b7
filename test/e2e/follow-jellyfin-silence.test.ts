// Jellyfin's websocket with a user's token going silent 1.5 s into a burst of 60 season folders, through the real
// service against the model Jellyfin on 127.0.0.1 on simulated time (test/support/jellyfin-service.ts): its
// unanswered ping ends it (src/http/media-socket.ts), so no follow-up waits out the 45 s the socket is trusted for
// LibraryChanged; the listing of each refreshed season confirms every file.
import { afterEach, describe, expect, it } from 'vitest';
import { episodeFile, tvLibrary } from '../fakes/jellyfin-libraries.js';
import { jellyfinService, PASS, sonarrDownload, type JellyfinService } from '../support/jellyfin-service.js';
import { until } from '../support/until.js';

const N = 60;
let t: JellyfinService | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

describe("a burst of 60 folders when Jellyfin's socket goes silent 1.5 s in", () => {
  it('all 60 reach Jellyfin within 45 s, none twice; every line final within 60 s, none not-found', async () => {
    t = await jellyfinService({ msPerEntry: 2, tokenOf: 'user', config: { SERVER_SCAN_DELAY: 0 }, setup: (s) => (tvLibrary(s.model, '/tv', { series: N, seasons: 1, episodes: 2 }), s.model.settle()) });
    const { server, service } = t;
    const start = server.clock.now();
    for (let i = 1; i <= N; i++) {
      const file = episodeFile('/tv', i, 1, 3);
      server.model.writeFile(file);
      await t.webhook('sonarr', sonarrDownload(file));
    }
    await t.run(500);
    await until(() => server.socket.open().length === 1, { what: 'the follower opened the websocket' });
    await t.run(1_000);
    server.socket.silence();
    const refreshedAt = new Map<string, number>();
    const refreshes = () => server.requests.filter((r) => r.method === 'POST' && /\/Items\/[^/]+\/Refresh$/.test(r.path));
    let shown: string | undefined;
    for (let s = 0; s < 59 && service.queue.history(1000).length < N; s++) {
      await t.run(1_000);
      // /health and the dashboard say so while it is being dialled again.
      const health = (await service.app.inject({ url: '/health' })).json() as { targets: { socket?: { state: string; why?: string } }[] };
      if (health.targets[0].socket?.state === 'reconnecting') shown ??= (await service.app.inject({ url: `/${PASS}/dashboard` })).body;
      for (const r of refreshes()) if (!refreshedAt.has(r.path)) refreshedAt.set(r.path, server.clock.now() - start);
    }
    const history = service.queue.history(1000);
    expect(history).toHaveLength(N);
    const reached = Math.max(...refreshedAt.values());
    const final = Math.max(...history.map((h) => h.finishedAt - start));
    console.log(`jellyfin silent: ${refreshedAt.size} refreshed, the last at ${reached} ms; every line final at ${final} ms; ${history.filter((h) => h.outcome === 'confirmed').length} confirmed`);
    expect(refreshedAt.size).toBe(N);
    expect(refreshes()).toHaveLength(N);
    expect(reached).toBeLessThanOrEqual(45_000);
    expect(final).toBeLessThanOrEqual(60_000);
    expect(history.filter((h) => h.outcome === 'not-found')).toEqual([]);
    expect(t.logged("Jellyfin's websocket is down (it went silent")).toHaveLength(1);
    expect(shown).toMatch(/<dt>Socket<\/dt><dd>reconnecting \(it (went silent|opened but answered no ping)[^<]*\), last frame \d+s ago/);
  });
});
