// The Drive monitor end to end against the fakes: new files to scan requests, filters, paging, crash replay, cache, shared drives, backoff, the loop.
import { afterEach, describe, expect, it } from 'vitest';
import { DriveCache } from '../../src/drive/cache.js';
import { DriveCursors } from '../../src/drive/cursors.js';
import { silentLogger } from '../../src/log/logger.js';
import { SERVER_ROOT, startHarness, tvTree, type Harness } from './harness.js';
import { until } from '../support/until.js';

let h: Harness;
afterEach(async () => {
  await h?.close();
});

const EP = 'The Expanse (2015) - S01E01 - Dulcinea [WEBDL-1080p].mkv';

describe('drive monitor: new files become scan requests', () => {
  it('a new file in a watched folder becomes exactly one enqueue; a file already in the Plex database does not', async () => {
    h = await startHarness({
      plex: { parts: [{ file: `${SERVER_ROOT}TV/The Expanse (2015)/Season 01/already.mkv`, size: 5000 }] },
    });
    const t = tvTree(h.drive);
    await h.monitor.pollOnce(); // first run: cursor at "now"
    expect(h.enqueued).toEqual([]);

    h.drive.addFile(EP, t.season, { size: 2771403812 });
    h.drive.addFile('already.mkv', t.season, { size: 5000 });
    const summary = await h.monitor.pollOnce();

    expect(h.enqueued).toEqual([
      { path: `My Drive/Media/TV/The Expanse (2015)/Season 01/${EP}`, source: 'drive', event: 'Drive', kind: 'file' },
    ]);
    expect(summary.counts).toMatchObject({ enqueued: 1, inPlex: 1, changes: 2 });
    expect(summary.errors).toEqual([]);

    // Nothing new: nothing more, and the same file touched again without a content change is ignored.
    await h.monitor.pollOnce();
    expect(h.enqueued).toHaveLength(1);
  });

  it('a file in Plex with a different size is scanned again; DISABLE_DISK_FILE_SIZE_CHECK skips on name alone', async () => {
    const part = { file: `${SERVER_ROOT}TV/The Expanse (2015)/Season 01/e.mkv`, size: 10 };
    h = await startHarness({ plex: { parts: [part] } });
    const t = tvTree(h.drive);
    await h.monitor.pollOnce();
    h.drive.addFile('e.mkv', t.season, { size: 20 });
    await h.monitor.pollOnce();
    expect(h.enqueued.map((r) => r.path)).toEqual(['My Drive/Media/TV/The Expanse (2015)/Season 01/e.mkv']);

    await h.close();
    h = await startHarness({ plex: { parts: [part] }, settings: { DISABLE_DISK_FILE_SIZE_CHECK: true } });
    const t2 = tvTree(h.drive);
    await h.monitor.pollOnce();
    h.drive.addFile('e.mkv', t2.season, { size: 20 });
    await h.monitor.pollOnce();
    expect(h.enqueued).toEqual([]);
  });

  it('an unreadable Plex database means "unknown": the file is scanned', async () => {
    h = await startHarness({ deps: { inPlex: () => 'unknown' } });
    const t = tvTree(h.drive);
    await h.monitor.pollOnce();
    h.drive.addFile(EP, t.season);
    await h.monitor.pollOnce();
    expect(h.enqueued).toHaveLength(1);
  });

  it('a drive path no SERVER_PATH_MAPPINGS entry maps is not enqueued and is named in one warning', async () => {
    h = await startHarness({ settings: { ALLOWED: { FILE_PATHS: ['My Drive/'], FILE_EXTENSIONS: false, FILE_EXTENSIONS_LIST: [], MIME_TYPES: false, MIME_TYPES_LIST: [] } } });
    const other = h.drive.addFolder('Other', h.drive.rootId, { silent: true });
    await h.monitor.pollOnce();
    h.drive.addFile('a.mkv', other);
    h.drive.addFile('b.mkv', other);
    const s = await h.monitor.pollOnce();
    expect(h.enqueued).toEqual([]);
    expect(s.counts.unmapped).toBe(2);
    expect(h.log.messages().filter((m) => m.includes('No SERVER_PATH_MAPPINGS entry maps'))).toHaveLength(1);
  });
});

describe('drive monitor: filters', () => {
  it('applies FILE_PATHS, extensions and MIME types; skips folders; trashed and removed only update the cache', async () => {
    h = await startHarness();
    const t = tvTree(h.drive);
    const elsewhere = h.drive.addFolder('Downloads', h.drive.rootId, { silent: true });
    const doomed = h.drive.addFile('old.mkv', t.season, { silent: true });
    const gone = h.drive.addFile('gone.mkv', t.season, { silent: true });
    await h.monitor.pollOnce();

    h.drive.addFile('ok.mkv', t.season);
    h.drive.addFile('ok.MP4', t.season, { mimeType: 'video/mp4' });
    h.drive.addFile('notes.txt', t.season, { mimeType: 'text/plain' });
    h.drive.addFile('subs.sub', t.season, { mimeType: 'video/MP2G' });
    h.drive.addFile('poster.mkv', t.season, { mimeType: 'image/jpeg' });
    h.drive.addFile('parts', t.season, { mimeType: 'video/mp2t' }); // "ts" must follow a dot
    h.drive.addFile('x.mkv', elsewhere);
    h.drive.addFolder('Season 02', t.show);
    h.drive.trash(doomed);
    h.drive.remove(gone);
    const s = await h.monitor.pollOnce();

    expect(h.enqueued.map((r) => r.path.split('/').pop())).toEqual(['ok.mkv', 'ok.MP4']);
    expect(s.counts).toMatchObject({ enqueued: 2, unwanted: 5, folders: 1, removed: 2 });
    const cache = new DriveCache(h.db, { clock: h.clock, logger: silentLogger });
    expect(cache.get(doomed)).toBeUndefined();
    expect(cache.get(gone)).toBeUndefined();
  });

  it('an empty FILE_PATHS allows nothing and says so at start', async () => {
    h = await startHarness({ settings: { ALLOWED: { FILE_PATHS: [], FILE_EXTENSIONS: false, FILE_EXTENSIONS_LIST: [], MIME_TYPES: false, MIME_TYPES_LIST: [] } } });
    await h.monitor.start();
    await h.monitor.stop();
    expect(h.log.messages()).toContain('GOOGLE.ALLOWED.FILE_PATHS is empty: no Google Drive file will be scanned');
  });
});

describe('drive monitor: paging and crash safety', () => {
  it('follows nextPageToken to newStartPageToken and saves the new start token', async () => {
    h = await startHarness();
    h.drive.maxPageSize = 2;
    const t = tvTree(h.drive);
    await h.monitor.pollOnce();
    for (let i = 1; i <= 5; i++) h.drive.addFile(`e${i}.mkv`, t.season);
    const s = await h.monitor.pollOnce();
    expect(s.counts.pages).toBe(3);
    expect(h.enqueued.map((r) => r.path.split('/').pop())).toEqual(['e1.mkv', 'e2.mkv', 'e3.mkv', 'e4.mkv', 'e5.mkv']);
    const saved = new DriveCursors(h.db).get('root');
    const start = (await (await fetch(`${h.drive.baseUrl}/drive/v3/changes/startPageToken`, { headers: { authorization: `Bearer ${h.auth.issueAccessToken()}` } })).json()) as { startPageToken: string };
    expect(saved?.pageToken).toBe(start.startPageToken);
  });

  it('a crash between pages replays from the last handled page and never skips a change', async () => {
    h = await startHarness();
    h.drive.maxPageSize = 2;
    const t = tvTree(h.drive);
    await h.monitor.pollOnce();
    for (let i = 1; i <= 6; i++) h.drive.addFile(`e${i}.mkv`, t.season);
    // The first page is served; every try at the second fails, as if the process died there.
    h.drive.fail(500, { path: /^\/changes$/, skip: 1, times: 5 });
    const first = await h.monitor.pollOnce();
    expect(first.errors).toHaveLength(1);
    expect(h.enqueued.map((r) => r.path.split('/').pop())).toEqual(['e1.mkv', 'e2.mkv']);

    h.restart();
    await h.monitor.pollOnce();
    expect(h.enqueued.map((r) => r.path.split('/').pop())).toEqual(['e1.mkv', 'e2.mkv', 'e3.mkv', 'e4.mkv', 'e5.mkv', 'e6.mkv']);
  });

  it('a crash while handling a page rolls its cache changes and cursor back, so the page is replayed whole', async () => {
    h = await startHarness();
    h.drive.maxPageSize = 2;
    const t = tvTree(h.drive);
    await h.monitor.pollOnce();
    for (let i = 1; i <= 4; i++) h.drive.addFile(`e${i}.mkv`, t.season);
    let calls = 0;
    h.restart({
      enqueue: (r) => {
        if (++calls === 4) throw new Error('queue died');
        h.enqueued.push(r);
      },
    });
    const s = await h.monitor.pollOnce();
    expect(s.errors[0].error).toContain('queue died');
    expect(h.enqueued.map((r) => r.path.split('/').pop())).toEqual(['e1.mkv', 'e2.mkv', 'e3.mkv']);

    h.restart();
    await h.monitor.pollOnce();
    // e3 is sent again (its page was not committed); e4 is not lost. The queue merges the repeat.
    expect(h.enqueued.map((r) => r.path.split('/').pop())).toEqual(['e1.mkv', 'e2.mkv', 'e3.mkv', 'e3.mkv', 'e4.mkv']);
  });
});

describe('drive monitor: the id -> path cache', () => {
  it('fetches only unknown parents, each once', async () => {
    h = await startHarness();
    const t = tvTree(h.drive);
    await h.monitor.pollOnce();
    const before = h.drive.totalFileGets;
    for (let i = 1; i <= 20; i++) h.drive.addFile(`e${i}.mkv`, t.season);
    await h.monitor.pollOnce();
    // Season 01, the show, TV and Media: each fetched once, however many files sit below.
    expect(h.drive.totalFileGets - before).toBe(4);
    for (const id of [t.season, t.show, t.tv, t.media]) expect(h.drive.fileGets.get(id)).toBe(1);
    h.drive.addFile('late.mkv', t.season);
    await h.monitor.pollOnce();
    expect(h.drive.totalFileGets - before).toBe(4);
    expect(h.enqueued).toHaveLength(21);
  });

  it('folder renames and moves update cached descendants without fetching', async () => {
    h = await startHarness({ settings: { SHOW_CACHE_LOGS: true } });
    const t = tvTree(h.drive);
    const archive = h.drive.addFolder('Archive', h.drive.rootId, { silent: true });
    await h.monitor.pollOnce();
    const ep = h.drive.addFile('e1.mkv', t.season);
    await h.monitor.pollOnce();
    const cache = new DriveCache(h.db, { clock: h.clock, logger: silentLogger });
    expect(cache.get(ep)?.path).toBe('My Drive/Media/TV/The Expanse (2015)/Season 01/e1.mkv');

    h.drive.rename(t.show, 'The Expanse');
    await h.monitor.pollOnce();
    expect(cache.get(ep)?.path).toBe('My Drive/Media/TV/The Expanse/Season 01/e1.mkv');
    expect(cache.get(t.season)?.path).toBe('My Drive/Media/TV/The Expanse/Season 01');

    const gets = h.drive.totalFileGets;
    h.drive.move(t.show, archive);
    await h.monitor.pollOnce();
    expect(cache.get(ep)?.path).toBe('My Drive/Archive/The Expanse/Season 01/e1.mkv');
    expect(h.drive.totalFileGets).toBe(gets + 1); // only Archive, never seen before

    // A file renamed in a watched folder is a new path for Plex: scanned. Moving the show out of Media is not.
    h.drive.move(t.show, t.tv);
    h.drive.rename(ep, 'e1 renamed.mkv');
    await h.monitor.pollOnce();
    expect(h.enqueued.map((r) => r.path)).toEqual([
      'My Drive/Media/TV/The Expanse (2015)/Season 01/e1.mkv',
      'My Drive/Media/TV/The Expanse/Season 01/e1 renamed.mkv',
    ]);
    expect(h.log.messages().some((m) => m.startsWith('Updated 2 cached descendant(s)'))).toBe(true);
  });
});

describe('drive monitor: shared drives', () => {
  it('keeps one cursor per shared drive in TEAMDRIVES (by name or ID) and builds "<drive name>/..." paths', async () => {
    h = await startHarness({
      settings: {
        TEAMDRIVE: true,
        TEAMDRIVES: ['Media', '0ASrMedia4KTeamDrvPVA', 'Nope'],
        ALLOWED: { FILE_PATHS: ['Media/TV/', 'Media-4K/'], FILE_EXTENSIONS: true, FILE_EXTENSIONS_LIST: ['mkv'], MIME_TYPES: false, MIME_TYPES_LIST: [] },
      },
    });
    const fixtureDrives = (await import('../support/fixtures.js')).ownFixture<{ drives: { id: string; name: string }[] }>('drive/drives-list.json').drives;
    for (const d of fixtureDrives) h.drive.addSharedDrive(d.name, d.id);
    h.drive.addSharedDrive('Unwatched');
    const [media, uhd] = fixtureDrives.map((d) => d.id);
    const tv = h.drive.addFolder('TV', media, { silent: true });
    await h.monitor.pollOnce();
    expect(h.monitor.status().drives.map((d) => d.name)).toEqual(['My Drive', 'Media', 'Media-4K']);
    expect(new DriveCursors(h.db).all().map((c) => c.drive).sort()).toEqual([media, uhd, 'root'].sort());
    expect(h.log.messages().some((m) => m.includes("no shared drive named or with ID 'Nope'"))).toBe(true);

    h.drive.addFile('a.mkv', tv);
    h.drive.addFile('b.mkv', uhd);
    await h.monitor.pollOnce();
    expect(h.enqueued.map((r) => r.path)).toEqual(['Media/TV/a.mkv', 'Media-4K/b.mkv']);

    // Moves between watched shared drives: scanned once at the new place, kept in the cache whatever the poll order.
    const film = h.drive.addFile('c.mkv', uhd, { silent: true });
    h.drive.move(film, tv);
    const back = h.drive.addFile('d.mkv', tv, { silent: true });
    h.drive.move(back, uhd);
    await h.monitor.pollOnce();
    expect(h.enqueued.map((r) => r.path).slice(2)).toEqual(['Media/TV/c.mkv', 'Media-4K/d.mkv']);
    const c = new DriveCache(h.db, { clock: h.clock, logger: silentLogger });
    expect(c.get(film)?.path).toBe('Media/TV/c.mkv');
    expect(c.get(back)?.path).toBe('Media-4K/d.mkv');

    // A renamed shared drive moves every cached path under it.
    h.drive.renameSharedDrive(media, 'Media Renamed');
    await h.monitor.pollOnce();
    const cache = new DriveCache(h.db, { clock: h.clock, logger: silentLogger });
    expect(cache.get(tv)?.path).toBe('Media Renamed/TV');
    expect(h.monitor.status().drives[1].name).toBe('Media Renamed');
  });
});

describe('drive monitor: failures', () => {
  it('retries 429 and 403 rate limits inside a poll', async () => {
    h = await startHarness();
    const t = tvTree(h.drive);
    await h.monitor.pollOnce();
    h.drive.addFile(EP, t.season);
    h.drive.fail(429, { path: /^\/changes$/ });
    h.drive.fail(403, { path: /^\/files\// });
    const s = await h.monitor.pollOnce();
    expect(s.errors).toEqual([]);
    expect(h.enqueued).toHaveLength(1);
  });

  it('backs off a failing drive, keeps the HTTP service alive (never throws), and recovers', async () => {
    h = await startHarness();
    const t = tvTree(h.drive);
    await h.monitor.pollOnce();
    h.drive.addFile(EP, t.season);
    h.drive.fail(500, { path: /^\/changes$/, times: 5 });
    const s1 = await h.monitor.pollOnce();
    expect(s1.errors[0].error).toMatch(/answered 500/);
    const st = h.monitor.status().drives[0];
    expect(st.consecutiveFailures).toBe(1);
    expect(st.nextAttemptAt).toBe(h.clock.now() + 60_000);

    const calls = h.drive.calls.get('changes');
    const s2 = await h.monitor.pollOnce(); // still backing off: not polled
    expect(s2.drives).toBe(0);
    expect(h.drive.calls.get('changes')).toBe(calls);

    h.clock.advance(60_000);
    await h.monitor.pollOnce();
    expect(h.enqueued).toHaveLength(1);
    expect(h.monitor.status().drives[0]).toMatchObject({ consecutiveFailures: 0, lastError: undefined });
  });
});

describe('drive monitor: the polling loop', () => {
  it('start() polls at once and then every POLL_INTERVAL; a new file is enqueued within one interval; stop() ends it', async () => {
    h = await startHarness({ settings: { POLL_INTERVAL: 1 } });
    const t = tvTree(h.drive);
    await h.monitor.start();
    const within = { ms: 5_000, every: 10 };
    await until(() => h.monitor.status().drives.length === 1, within);
    expect(h.monitor.status().running).toBe(true);
    const added = Date.now();
    h.drive.addFile(EP, t.season);
    await until(() => h.enqueued.length === 1, within);
    expect(Date.now() - added).toBeLessThan(2000);
    await h.monitor.stop();
    const polls = h.drive.calls.get('changes');
    await new Promise((r) => setTimeout(r, 1100));
    expect(h.drive.calls.get('changes')).toBe(polls);
    expect(h.monitor.status().running).toBe(false);
  });
});
