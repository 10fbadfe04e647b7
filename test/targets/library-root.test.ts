// The library-root guard on Plex, Jellyfin and Emby alike (real fakes on 127.0.0.1): a folder that is a library's
// own folder is refused, with what happened and what to do, unless the request asked for it; trailing separators
// aside, and case compared as the target's platform does. Where both a Plex section and a Jellyfin library are
// targets, each decides for itself.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { silentLogger } from '../../src/log/logger.js';
import { Processor } from '../../src/processor/processor.js';
import { Queue } from '../../src/queue/store.js';
import type { ScanContext, Target } from '../../src/scan.js';
import { embyTarget } from '../../src/targets/emby.js';
import { jellyfinTarget } from '../../src/targets/jellyfin.js';
import { PlexTarget } from '../../src/targets/plex/target.js';
import { startFakeEmby } from '../fakes/emby.js';
import { startFakeJellyfin, type FakeMediaBrowser } from '../fakes/jellyfin.js';
import { FakePlex } from '../fakes/plex.js';
import { named } from '../support/target.js';

let clock: ManualClock;
let plex: FakePlex;
let jellyfin: FakeMediaBrowser;
let emby: FakeMediaBrowser;

beforeEach(async () => {
  clock = new ManualClock();
  plex = await new FakePlex().start();
  jellyfin = await startFakeJellyfin();
  emby = await startFakeEmby();
});
afterEach(async () => {
  await plex.stop();
  await jellyfin.close();
  await emby.close();
});

const webhook: ScanContext = { event: 'SeriesDelete', source: 'sonarr', deleted: true };
const asked: ScanContext = { event: 'Manual', source: 'manual', deleted: false, libraryRoot: true };
const plexTarget = () => named(new PlexTarget({ url: plex.url, token: plex.token, clock }), { name: 'plex' });
const jellyfinOf = (mappings = {}) =>
  named(jellyfinTarget({ name: 'jellyfin', url: jellyfin.url, token: 'jellyfin-token-1234', clock, scanMethod: 'media-updated' }), { name: 'jellyfin', mappings });
const embyOf = () => named(embyTarget({ name: 'emby', url: emby.url, token: 'emby-token-5678', clock }), { name: 'emby' });
const updates = (server: FakeMediaBrowser) => server.updates().map((u) => u.Path);

describe('the library-root guard', () => {
  it("Plex: a section's own folder is refused with the reason and what to do; asked for, it is scanned", async () => {
    const target = plexTarget();
    for (const folder of ['/data/media/tv', '/data/media/tv/']) {
      const outcome = await target.scan(folder, webhook);
      expect(outcome.status).toBe('refused');
      expect(outcome.status === 'refused' && outcome.detail).toBe(
        "'/data/media/tv' is the root of library 'TV Shows (section 2)' on plex, so scanning it would scan the whole library; a whole-library scan is only done when asked for from the manual page, the API or `npx scanrelay scan --library-root`. Nothing was sent. If the request meant a folder inside it (a series deleted with its parent, a path mapping that cuts the path short), fix the sender or SERVER_PATH_MAPPINGS.",
      );
    }
    expect(plex.refreshes).toEqual([]);
    expect(await target.scan('/data/media/tv/Show', webhook)).toMatchObject({ status: 'scanned' });
    expect(await target.scan('/data/media/tv', asked)).toMatchObject({ status: 'scanned' });
    expect(plex.refreshes).toEqual([
      { section: '2', path: '/data/media/tv/Show' },
      { section: '2', path: '/data/media/tv' },
    ]);
  });

  it('Jellyfin: every location of a library counts, in the entry\'s own path form (its PATH_MAPPINGS)', async () => {
    const target = jellyfinOf({ '/mnt/archive/': ['/data/archive/'] });
    expect(await target.scan('/data/archive/tv/', webhook)).toMatchObject({ status: 'refused', detail: expect.stringContaining("'/mnt/archive/tv' is the root of library 'Shows' on jellyfin") });
    expect(await target.scan('/data/media/movies', webhook)).toMatchObject({ status: 'refused', detail: expect.stringContaining("library 'Movies'") });
    expect(updates(jellyfin)).toEqual([]);
    expect(await target.scan('/data/archive/tv', asked)).toMatchObject({ status: 'scanned' });
    expect(await target.scan('/data/media/movies/Heat (1995)', webhook)).toMatchObject({ status: 'scanned' });
    expect(updates(jellyfin)).toEqual(['/mnt/archive/tv', '/data/media/movies/Heat (1995)']);
  });

  it('Emby on Windows paths: case does not matter, as on Windows; on POSIX paths it does', async () => {
    emby.setLibraries({
      Items: [
        { Name: 'TV', ItemId: 'tv', Locations: ['D:\\Media\\TV'] },
        { Name: 'Movies', ItemId: 'movies', Locations: ['/data/media/movies'] },
      ],
      TotalRecordCount: 2,
    });
    const target = embyOf();
    expect(await target.scan('d:\\media\\tv\\', webhook)).toMatchObject({ status: 'refused', detail: expect.stringContaining("library 'TV' on emby") });
    // A Linux server's /data/media/Movies is another folder than /data/media/movies: in no library, not its root.
    expect(await target.scan('/data/media/Movies', webhook)).toMatchObject({ status: 'unmatched' });
    expect(await target.scan('/data/media/movies', webhook)).toMatchObject({ status: 'refused' });
    expect(updates(emby)).toEqual([]);
    expect(await target.scan('D:\\Media\\TV', asked)).toMatchObject({ status: 'scanned' });
    expect(updates(emby)).toEqual(['D:\\Media\\TV']);
  });

  it('applies per target: the root of a Plex section, inside a Jellyfin library; history says each', async () => {
    jellyfin.setLibraries([{ Name: 'Media', ItemId: 'media', Locations: ['/media'] }]);
    const queue = new Queue(join(mkdtempSync(join(tmpdir(), 'scanrelay-root-')), 'queue.db'), clock, { delayMs: 0 });
    const targets: Target[] = [plexTarget(), jellyfinOf({ '/media/': ['/data/media/'] })];
    const settings = { fileExistMappings: {}, maxFileChecks: 0, fileCheckDelayMs: 60_000, folderOnExhaustion: false, anchors: [], retryMaxDelayMs: 300_000 };
    const p = new Processor({ queue, targets, clock, logger: silentLogger, settings, random: () => 1 });
    queue.enqueue({ folder: '/data/media/tv', priority: 0, source: 'sonarr', event: 'SeriesDelete', deleted: true, received: '/tv' });
    await p.drain();
    const lines = queue.history(2);
    expect(lines.find((h) => h.target === 'plex')).toMatchObject({ outcome: 'refused', detail: expect.stringMatching(/root of library 'TV Shows \(section 2\)'.* Try: npx scanrelay explain '\/tv'\.$/) });
    expect(lines.find((h) => h.target === 'jellyfin')).toMatchObject({ outcome: 'scanned' });
    expect(plex.refreshes).toEqual([]);
    expect(updates(jellyfin)).toEqual(['/media/tv']);
    queue.close();
  });
});
