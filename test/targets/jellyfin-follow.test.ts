// What the Jellyfin follower makes of a delivered file, through the real service against the model Jellyfin
// 10.11 server (test/fakes/jellyfin-server.ts) on 127.0.0.1, on simulated time: LibraryChanged on a user's socket,
// the listing of the refreshed folder once its refresh is over for an API key, not-found with advice, scanned when
// the server says nothing usable, and a socket that drops and comes back.
import { afterEach, describe, expect, it } from 'vitest';
import { episodeFile, movieFile, movieLibrary, seasonFolder, tvLibrary } from '../fakes/jellyfin-libraries.js';
import type { JellyfinServer } from '../fakes/jellyfin-server.js';
import { jellyfinService, PASS, radarrDownload, sonarrDownload, type JellyfinService, type JellyfinServiceOptions } from '../support/jellyfin-service.js';
import { until } from '../support/until.js';

let t: JellyfinService | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

const libraries = (s: JellyfinServer) => {
  tvLibrary(s.model, '/tv', { series: 3, seasons: 2, episodes: 3 });
  movieLibrary(s.model, '/movies', 5);
  s.model.settle();
};

async function start(opts: JellyfinServiceOptions = {}): Promise<JellyfinService> {
  t = await jellyfinService({ msPerEntry: 2, setup: libraries, ...opts });
  return t;
}

/** Lets the scan go out, then waits (real time: ws on 127.0.0.1) for the socket the first follow-up opens. */
async function untilWatching(s: JellyfinService): Promise<void> {
  await s.run(3_000);
  await until(() => s.server.socket.open().length === 1, { what: 'the follower opened the websocket' });
}

/** The dashboard's history card of the newest entry, as the page renders it. */
async function historyCard(s: JellyfinService): Promise<string> {
  const page = await s.service.app.inject({ method: 'GET', url: `/${PASS}/dashboard` });
  expect(page.statusCode).toBe(200);
  const history = page.body.slice(page.body.indexOf('id="history"'));
  return history.slice(0, history.indexOf('</li>'));
}

const outcomes = (s: JellyfinService) => s.service.queue.history().map((h) => [h.outcome, h.detail ?? '']);
const listings = (s: JellyfinServer) => s.requests.filter((r) => r.path === '/Items' && r.query.Filters === 'IsNotFolder');
const idLookups = (s: JellyfinServer) => s.requests.filter((r) => r.path === '/Items' && r.query.Ids !== undefined);

describe('jellyfin follow-up with a user token: LibraryChanged', () => {
  it('the added episode named by LibraryChanged confirms the file, no folder listed', async () => {
    const { server, webhook, run } = await start({ tokenOf: 'user' });
    // No follow-up, no socket: nothing to ask the server yet.
    expect(server.socket.sessions).toEqual([]);
    const file = episodeFile('/tv', 2, 1, 4);
    server.model.writeFile(file);
    await webhook('sonarr', sonarrDownload(file));
    await untilWatching(t!);
    expect(server.socket.open()[0].userId).toBeDefined();
    await run(37_000);
    // One message, 30 s after the server's last change, to our one (user) socket.
    expect(server.notifier.sent).toHaveLength(1);
    expect(server.notifier.sent[0].sockets).toBe(1);
    expect(server.notifier.sent[0].added).toEqual([server.model.itemAt(file)!.Id]);
    const [[outcome, detail]] = outcomes(t!);
    expect(outcome).toBe('confirmed');
    expect(detail).toContain("among the items Jellyfin's LibraryChanged said were added or updated");
    expect(idLookups(server)[0].query).toMatchObject({ Ids: server.model.itemAt(file)!.Id, Fields: 'Path' });
    expect(listings(server)).toEqual([]);
    expect(server.requests.filter((r) => r.path === '/Users/Me').map((r) => r.status)).toEqual([200]);
  });

  it('when the socket drops before the message, the listing confirms; the next follow-up dials it again and hears it', async () => {
    const { server, webhook, run } = await start({ tokenOf: 'user' });
    const file = episodeFile('/tv', 1, 2, 4);
    server.model.writeFile(file);
    await webhook('sonarr', sonarrDownload(file));
    await untilWatching(t!);
    // The socket drops and cannot be opened again until the message has gone out (to no one).
    server.socket.refuseWith = 503;
    server.socket.dropAll();
    await run(40_000);
    expect(server.notifier.sent.map((m) => m.sockets)).toEqual([0]);
    expect(server.socket.refused.length).toBeGreaterThan(0);
    const [[outcome, detail]] = outcomes(t!);
    expect(outcome).toBe('confirmed');
    expect(detail).toContain(`found among the files under '${seasonFolder('/tv', 1, 2)}' once the refresh was over`);
    expect(t!.logged("Jellyfin's websocket is down")).toHaveLength(1);
    server.socket.refuseWith = undefined;
    // The reopened socket carries the next change.
    const next = episodeFile('/tv', 3, 1, 4);
    server.model.writeFile(next);
    await webhook('sonarr', sonarrDownload(next));
    await untilWatching(t!);
    await run(37_000);
    expect(server.socket.sessions).toHaveLength(2);
    // History lists the newest first.
    expect(outcomes(t!)[0]).toEqual(['confirmed', expect.stringContaining("Jellyfin's LibraryChanged")]);
    expect(t!.logged("Jellyfin's websocket is open again")).toHaveLength(1);
    // Once nothing is followed the socket is closed: no session is left open against the server.
    await until(() => server.socket.open().length === 0, { what: 'the follower closed the websocket' });
  });
});

describe('jellyfin follow-up with an API key: the listing once the refresh is over', () => {
  it('no LibraryChanged reaches the socket; the season is listed once and the file confirmed', async () => {
    const { server, webhook, run } = await start();
    // No socket for an API key: the server would send it nothing.
    expect(server.socket.sessions).toEqual([]);
    const file = episodeFile('/tv', 3, 2, 4);
    server.model.writeFile(file);
    await webhook('sonarr', sonarrDownload(file));
    await run(40_000);
    expect(server.notifier.sent.map((m) => m.sockets)).toEqual([0]);
    expect(server.requests.filter((r) => r.path === '/Users/Me').map((r) => r.status)).toEqual([400]);
    const [[outcome, detail]] = outcomes(t!);
    expect(outcome).toBe('confirmed');
    expect(detail).toContain(`found among the files under '${seasonFolder('/tv', 3, 2)}'`);
    // Only the refreshed season, never the library: one page of its files.
    const season = server.model.itemAt(seasonFolder('/tv', 3, 2))!.Id;
    expect(listings(server).map((r) => r.query.ParentId)).toEqual([season]);
    expect(listings(server)[0].query).toMatchObject({ Recursive: 'true', Fields: 'Path' });
    expect(idLookups(server)).toEqual([]);
  });

  it('waits while the library refresh is Active or Queued, and lists after it ended', async () => {
    // A new movie: its folder is no item, so the library itself is refreshed (a walk of every movie).
    // Every look waits on the follower's stop signal: those waits must not pile up listeners on it.
    const warnings: string[] = [];
    const warned = (w: Error) => warnings.push(w.name);
    process.on('warning', warned);
    const { server, webhook, run } = await start({ msPerEntry: 4_000 });
    const file = movieFile('/movies', 9);
    server.model.writeFile(file);
    await webhook('radarr', radarrDownload(file));
    await run(20_000);
    expect(server.model.running?.path).toBe('/movies');
    expect(outcomes(t!)).toEqual([]);
    const walkEnds = server.model.running!.endsAt;
    await run(walkEnds - server.clock.now() + 5_000);
    const [[outcome, detail]] = outcomes(t!);
    expect(outcome).toBe('confirmed');
    expect(detail).toContain("the newest items of library 'Movies'");
    const newest = server.requests.filter((r) => r.path === '/Items' && r.query.SortBy === 'DateCreated');
    expect(newest.every((r) => r.query.SortOrder === 'Descending' && r.query.Limit === '50')).toBe(true);
    // Looked at only once the walk had ended.
    const statusReads = server.requests.filter((r) => r.path === '/Library/VirtualFolders');
    expect(statusReads.length).toBeGreaterThan(10);
    await new Promise((r) => setImmediate(r));
    process.off('warning', warned);
    expect(warnings).not.toContain('MaxListenersExceededWarning');
  });

  it('a file the server never takes in ends not-found with what to check, after the one rescan', async () => {
    // The relay sees the file; the server's disk does not have it (a wrong mount or mapping).
    const file = episodeFile('/tv', 2, 2, 7);
    const { server, webhook, run } = await start({ pathState: async (p) => (p === file ? 'file' : p.startsWith('/tv') ? 'folder' : 'missing'), config: { SERVER_FILE_CHECK_DELAY: 10 } });
    await webhook('sonarr', sonarrDownload(file));
    // Each look waits until the season's refresh can be taken to have run: the queue idle for IDLE_GRACE_MS (30 s).
    await run(150_000);
    const [[outcome, detail]] = outcomes(t!);
    expect(outcome).toBe('not-found');
    expect(detail).toContain(`none of the files under '${seasonFolder('/tv', 2, 2)}' has this path`);
    expect(detail).toContain('SERVER_PATH_MAPPINGS');
    expect(detail).toContain('permissions');
    // The follow-stage's one rescan after SERVER_FILE_CHECK_DELAY, then the verdict.
    expect(server.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/Refresh'))).toHaveLength(2);
    // The dashboard shows it as a problem: a red badge, the sentence in red, the advice behind "details".
    const card = await historyCard(t!);
    expect(card).toContain('On jellyfin');
    expect(card).toMatch(/<span class="badge b-bad" title="[^"]*see the advice[^"]*">not-found<\/span>/);
    expect(card).toContain('<p class="err">Not in the library after the refresh was over');
    expect(card).toMatch(/<details class="detail"><summary>details<\/summary><p class="muted">Check that one of the server&#39;s library folders holds this path/);
  });

  it('a server whose listing has no paths ends scanned, shown neutral', async () => {
    const { server, webhook, run } = await start();
    const file = episodeFile('/tv', 1, 1, 9);
    server.model.writeFile(file);
    await webhook('sonarr', sonarrDownload(file));
    await run(5_000);
    // The scan went out (the walk down read paths); the listing after the refresh gets none.
    server.omitPaths = true;
    await run(30_000);
    const [[outcome, detail]] = outcomes(t!);
    expect(outcome).toBe('scanned');
    expect(detail).toContain('whether the file is in the library is not known (the server listed items without their Path)');
    // Neutral on the dashboard: no colour of trouble, the sentence muted.
    const card = await historyCard(t!);
    expect(card).toContain('<span class="badge b-neutral"');
    expect(card).toContain('>scanned</span>');
    expect(card).toContain('<p class="muted">Jellyfin took the scan;');
    expect(card).not.toContain('class="err"');
  });
});
