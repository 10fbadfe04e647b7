// The Bazarr and Tdarr guides' commands, run as written (curl, argv without a shell): the request reaches the
// real server as a refresh of the file's item; Plex's and Jellyfin's items holding the episode are then refreshed.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { targetSchema } from '../../src/config/schema.js';
import type { ScanRequest } from '../../src/request.js';
import { startFakeJellyfin, type FakeMediaBrowser } from '../fakes/jellyfin.js';
import { repoRoot } from '../support/fixtures.js';
import { SECRET, testService, type TestService } from '../support/service.js';

const run = promisify(execFile);
let t: TestService;
let jf: FakeMediaBrowser;
afterEach(async () => {
  await t?.close();
  await jf?.close();
});

/** The guide's ```sh command, split into argv the way the shell would (double quotes only). */
function guideCommand(guide: string): string[] {
  const text = readFileSync(join(repoRoot, 'docs/guides', guide), 'utf8');
  const line = /```sh\n(curl [^\n]+)\n```/.exec(text)![1];
  return [...line.matchAll(/"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2]);
}

const EPISODE_SENT = '/mnt/unionfs/Media/tv/Andor/Season 01/Andor - S01E03 "Reckoning".mkv';
const EPISODE_PLEX = '/data/media/tv/Andor/Season 01/Andor - S01E03 "Reckoning".mkv';

describe.each([
  ['bazarr.md', '{{episode}}'],
  ['tdarr.md', '{{{args.originalLibraryFile._id}}}'],
])('the %s command', (guide, variable) => {
  it("a subtitle added next to an existing episode leads to a metadata refresh of the episode's item on Plex and Jellyfin", async () => {
    jf = await startFakeJellyfin({ libraries: [{ Name: 'Shows', ItemId: 'shows', Locations: ['/media/tv'] }] });
    jf.items = [{ Id: 'jf-andor-3', Path: EPISODE_PLEX.replace('/data/media/', '/media/'), ParentId: 'shows' }];
    t = await testService({
      config: {
        TARGETS: [targetSchema().parse({ NAME: 'jellyfin', TYPE: 'jellyfin', SCAN_METHOD: 'media-updated', URL: jf.url, TOKEN: 'jellyfin-token-1234', PATH_MAPPINGS: { '/media/': ['/data/media/'] } })],
      },
    });
    const item = t.plex.addToLibrary(EPISODE_PLEX);
    const seen: ScanRequest[] = [];
    const submit = t.service.intake.submit.bind(t.service.intake);
    t.service.intake.submit = async (requests, client) => (seen.push(...requests), submit(requests, client));
    const url = await t.service.listen(0, '127.0.0.1');

    const argv = guideCommand(guide).map((a) => a.replace('http://scanrelay:3468/YOUR_SERVER_PASS', `${url}/${SECRET}`).replace(variable, EPISODE_SENT));
    expect(argv[0]).toBe('curl');
    const { stdout } = await run(argv[0], argv.slice(1));
    expect(JSON.parse(stdout)).toMatchObject({ ok: true, queued: [{ folder: '/data/media/tv/Andor/Season 01' }] });
    expect(seen).toEqual([{ path: EPISODE_SENT, source: 'manual', event: 'Refresh', kind: 'auto', refresh: 'item' }]);

    expect(seen[0].refresh).toBe('item');
    expect(t.service.targets.filter((x) => x.refreshItem).map((x) => x.name)).toEqual(['plex', 'jellyfin']);

    // Through the queue: the folder is scanned on both, and the follow-up stage refreshes the episode's item.
    t.plex.onDisk.add(EPISODE_PLEX);
    t.clock.advance(t.service.config.SERVER_SCAN_DELAY * 1000);
    await t.service.processor.drain();
    expect(t.plex.refreshes).toEqual([{ section: '2', path: '/data/media/tv/Andor/Season 01' }]);
    expect(t.plex.itemRefreshes).toEqual([item.ratingKey]);
    expect(jf.itemRefreshes()).toEqual(['jf-andor-3']);
    const history = t.service.queue.history();
    expect(history.find((h) => h.target === 'plex')).toMatchObject({ outcome: 'confirmed', detail: expect.stringContaining(`Item ${item.ratingKey} refreshed.`) });
    // Jellyfin's follow-up found the episode (the subtitle's video) by listing the library's items.
    expect(history.find((h) => h.target === 'jellyfin')).toMatchObject({ outcome: expect.stringMatching(/^(confirmed|scanned)$/) });
  });
});
