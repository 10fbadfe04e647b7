// A delete followed on Jellyfin (the model server, test/fakes/jellyfin-server.ts): the queue keeps no file for a
// delete, so a deleted folder (Sonarr's SeriesDelete) is followed by the item the server had at it, looked up
// before the refresh. ItemsRemoved naming it confirms (a user's token); with an API key the item is looked up once
// the refresh is over: gone confirms, still there is `scanned` with why (a server may keep it until its next scan).
// A deleted file (EpisodeFileDelete) names no file in the queue: its season's scan is not followed.
import { afterEach, describe, expect, it } from 'vitest';
import { episodeFile, seriesName, tvLibrary } from '../fakes/jellyfin-libraries.js';
import { jellyfinService, sonarrEpisodeDeleted, sonarrSeriesDeleted, type JellyfinService, type JellyfinServiceOptions } from '../support/jellyfin-service.js';
import { until } from '../support/until.js';

let t: JellyfinService | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

async function start(opts: JellyfinServiceOptions = {}): Promise<JellyfinService> {
  t = await jellyfinService({
    msPerEntry: 2,
    setup: (s) => {
      tvLibrary(s.model, '/tv', { series: 3, seasons: 2, episodes: 3 });
      s.model.settle();
    },
    ...opts,
  });
  return t;
}

const outcomes = (s: JellyfinService) => s.service.queue.history().map((h) => [h.outcome, h.detail ?? '']);
const series = `/tv/${seriesName(2)}`;

describe('jellyfin follow-up of a deleted folder', () => {
  it("a user's token: ItemsRemoved naming the series' item confirms it removed", async () => {
    const { server, webhook, run } = await start({ tokenOf: 'user' });
    const id = server.model.itemAt(series)!.Id;
    server.model.remove(series);
    await webhook('sonarr', sonarrSeriesDeleted(series));
    // A library-root refresh is held a little for the rest of its burst: step until the follow-up opened the socket.
    for (let i = 0; i < 20 && server.socket.sessions.length === 0; i++) await run(1_000);
    await until(() => server.socket.open().length === 1, { what: 'the follower opened the websocket' });
    await run(40_000);
    expect(server.notifier.sent[0]).toMatchObject({ sockets: 1 });
    expect(server.notifier.sent[0].removed).toContain(id);
    const [[outcome, detail]] = outcomes(t!);
    expect(outcome).toBe('confirmed');
    expect(detail).toMatch(/^Removed from the library after \d+\.\d s \(among the items Jellyfin's LibraryChanged said were removed\)/);
  });

  it('an API key: the item looked up once the refresh is over is gone, so the delete is confirmed', async () => {
    const { server, webhook, run } = await start();
    const id = server.model.itemAt(series)!.Id;
    server.model.remove(series);
    await webhook('sonarr', sonarrSeriesDeleted(series));
    await run(30_000);
    const [[outcome, detail]] = outcomes(t!);
    expect(outcome).toBe('confirmed');
    expect(detail).toContain('its item is gone once the refresh was over');
    expect(server.requests.filter((r) => r.path === '/Items' && r.query.Ids !== undefined).map((r) => r.query.Ids)).toEqual([id]);
  });

  it('a deleted folder still on disk is no delete: its item is refreshed as a change, nothing followed as removed', async () => {
    const { server, webhook, run, logged } = await start();
    // Sonarr says the series was deleted; the disk still has it (its files kept).
    await webhook('sonarr', sonarrSeriesDeleted(series));
    await run(30_000);
    const [[outcome, detail]] = outcomes(t!);
    expect(outcome).toBe('scanned');
    expect(detail).toBe(`refreshed Series '${series}'`);
    expect(logged('still on disk after SeriesDelete')).toHaveLength(1);
    expect(server.model.itemAt(series)).toBeDefined();
    expect(server.model.replacements).toEqual([]);
  });

  it('a deleted file names no file in the queue: its season is scanned, not followed', async () => {
    const { server, webhook, run } = await start();
    const gone = episodeFile('/tv', 1, 1, 2);
    server.model.remove(gone);
    await webhook('sonarr', sonarrEpisodeDeleted(gone));
    await run(30_000);
    const [[outcome, detail]] = outcomes(t!);
    expect(outcome).toBe('scanned');
    expect(detail).toMatch(/^refreshed Season/);
    expect(server.requests.filter((r) => r.path === '/Items' && r.query.Ids !== undefined)).toEqual([]);
  });
});
