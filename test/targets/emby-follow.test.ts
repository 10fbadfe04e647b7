// What the follower makes of a file delivered to Emby, through the real service against the model server
// answering as Emby (test/fakes/jellyfin-server.ts, kind 'emby'): X-Emby-Token, /Library/VirtualFolders/Query,
// the websocket on /embywebsocket?api_key=…, LibraryChanged batched 30 s after the last change and sent to a user's
// socket only (test/fakes/library-changed.ts). Emby's default SCAN_METHOD is media-updated: the library monitor
// refreshes 60 s after the report. Emby has no /Users/Me (none in its REST reference's UserService), so the follower
// cannot tell a user's token from an API key before a LibraryChanged comes: the socket is opened while follow-ups
// wait either way, and an API key's follow-ups end by the listing, which waits for the monitor's delay and the
// libraries' RefreshStatus (VirtualFolders/Query carries it, as Jellyfin's VirtualFolders does).
import { afterEach, describe, expect, it } from 'vitest';
import { episodeFile, seasonFolder, tvLibrary } from '../fakes/jellyfin-libraries.js';
import type { JellyfinServer } from '../fakes/jellyfin-server.js';
import { jellyfinService, sonarrDownload, type JellyfinService, type JellyfinServiceOptions } from '../support/jellyfin-service.js';
import { until } from '../support/until.js';

let t: JellyfinService | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

async function start(opts: JellyfinServiceOptions = {}): Promise<JellyfinService> {
  t = await jellyfinService({
    kind: 'emby',
    msPerEntry: 2,
    setup: (s) => {
      tvLibrary(s.model, '/tv', { series: 3, seasons: 2, episodes: 3 });
      s.model.settle();
    },
    ...opts,
  });
  return t;
}

/** Lets the scan go out, then waits (real time: ws on 127.0.0.1) for the socket the first follow-up opens. */
async function untilWatching(s: JellyfinService): Promise<void> {
  await s.run(3_000);
  await until(() => s.server.socket.open().length === 1, { what: 'the follower opened /embywebsocket' });
}

const outcomes = (s: JellyfinService) => s.service.queue.history().map((h) => [h.outcome, h.detail ?? '']);
const listings = (s: JellyfinServer) => s.requests.filter((r) => r.path === '/Items' && r.query.Filters === 'IsNotFolder');
const asked = (s: JellyfinServer, path: string) => s.requests.filter((r) => r.path === path).length;

describe('emby follow-up', () => {
  it("a user's token: LibraryChanged over /embywebsocket confirms the file, no folder listed", async () => {
    const { server, webhook, run } = await start({ tokenOf: 'user' });
    expect(server.socket.sessions).toEqual([]);
    const file = episodeFile('/tv', 2, 1, 4);
    server.model.writeFile(file);
    await webhook('sonarr', sonarrDownload(file));
    await untilWatching(t!);
    const [session] = server.socket.open();
    // Emby's client form: /embywebsocket with api_key and deviceId in the query (apiclient.js).
    expect(session).toMatchObject({ path: '/embywebsocket', via: 'query' });
    expect(session.userId).toBeDefined();
    expect(server.requests.find((r) => r.method === 'POST')?.path).toBe('/Library/Media/Updated');
    // The monitor's 60 s, the refresh, then LibraryChanged 30 s after the last change.
    await run(100_000);
    expect(server.notifier.sent).toHaveLength(1);
    expect(server.notifier.sent[0]).toMatchObject({ sockets: 1, added: [server.model.itemAt(file)!.Id] });
    const [[outcome, detail]] = outcomes(t!);
    expect(outcome).toBe('confirmed');
    expect(detail).toContain("among the items Emby's LibraryChanged said were added or updated");
    expect(listings(server)).toEqual([]);
    // Emby has no /Users/Me: never asked.
    expect(asked(server, '/Users/Me')).toBe(0);
    await until(() => server.socket.open().length === 0, { what: 'the follower closed the socket once nothing was followed' });
  });

  it('an API key: the socket hears nothing, so the season is listed once the waits are over and the file confirmed', async () => {
    const { server, webhook, run } = await start();
    const file = episodeFile('/tv', 3, 2, 4);
    server.model.writeFile(file);
    await webhook('sonarr', sonarrDownload(file));
    await untilWatching(t!);
    expect(server.socket.open()[0].userId).toBeUndefined();
    await run(95_000);
    // The message went out to no socket; the follower still waits its grace for one.
    expect(server.notifier.sent.map((m) => m.sockets)).toEqual([0]);
    expect(outcomes(t!)).toEqual([]);
    await run(20_000);
    const [[outcome, detail]] = outcomes(t!);
    expect(outcome).toBe('confirmed');
    expect(detail).toContain(`found among the files under '${seasonFolder('/tv', 3, 2)}' once the refresh was over`);
    const season = server.model.itemAt(seasonFolder('/tv', 3, 2))!.Id;
    expect(listings(server).map((r) => r.query.ParentId)).toEqual([season]);
    // The library list and each library's RefreshStatus, Emby's way.
    expect(asked(server, '/Library/VirtualFolders')).toBe(0);
    expect(asked(server, '/Library/VirtualFolders/Query')).toBeGreaterThan(1);
  });

  it('a file the server never takes in ends not-found with what to check', async () => {
    const file = episodeFile('/tv', 2, 2, 7);
    const { server, webhook, run } = await start({ pathState: async (p) => (p === file ? 'file' : p.startsWith('/tv') ? 'folder' : 'missing'), config: { SERVER_FILE_CHECK_DELAY: 10 } });
    await webhook('sonarr', sonarrDownload(file));
    await untilWatching(t!);
    await run(300_000);
    const [[outcome, detail]] = outcomes(t!);
    expect(outcome).toBe('not-found');
    expect(detail).toContain(`none of the files under '${seasonFolder('/tv', 2, 2)}' has this path`);
    expect(detail).toContain('SERVER_PATH_MAPPINGS');
    // The follow stage's one more scan after SERVER_FILE_CHECK_DELAY, then the verdict.
    expect(server.requests.filter((r) => r.method === 'POST' && r.path === '/Library/Media/Updated')).toHaveLength(2);
  });
});
