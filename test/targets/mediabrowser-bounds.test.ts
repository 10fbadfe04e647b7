// What a Jellyfin or Emby server may make the relay hold: the item ids of LibraryChanged messages are read one
// batch at a time however fast messages come, with a bounded number waiting (src/targets/mediabrowser/follower.ts),
// and the folder listings the item locator keeps stop at a bounded number of folders, however long a server
// lists (src/targets/mediabrowser/locate.ts).
import { afterEach, describe, expect, it } from 'vitest';
import type { ApiCaller } from '../../src/http/api-call.js';
import { systemClock } from '../../src/clock.js';
import { silentLogger } from '../../src/log/logger.js';
import { MediaBrowserFollower } from '../../src/targets/mediabrowser/follower.js';
import { ItemLocator, MAX_FOLDERS } from '../../src/targets/mediabrowser/locate.js';
import { MediaBrowserSocket } from '../../src/targets/mediabrowser/socket.js';
import type { MediaBrowserTicket } from '../../src/targets/mediabrowser/verdict.js';
import { scriptedDial } from '../support/fake-socket.js';
import { until } from '../support/until.js';

let follower: MediaBrowserFollower | undefined;
let release = () => {};
afterEach(async () => {
  release();
  await follower?.stop();
  follower = undefined;
});

describe("a server's LibraryChanged flood (MediaBrowserFollower)", () => {
  it('ids are read one batch at a time while messages keep coming, and only a bounded number wait', async () => {
    // The server's /Items?Ids= answers wait until the test lets them go: every message arrives during the first read.
    let inFlight = 0;
    let most = 0;
    let reads = 0;
    const waiting: (() => void)[] = [];
    let held = true;
    release = () => ((held = false), waiting.splice(0).forEach((go) => go()));
    const api = {
      async json(_method: string, path: string) {
        if (path !== '/Items') return [];
        reads++;
        most = Math.max(most, ++inFlight);
        if (held) await new Promise<void>((resolve) => waiting.push(resolve));
        inFlight--;
        return { Items: [] };
      },
    } as unknown as ApiCaller;
    const { dial, sockets } = scriptedDial();
    const socket = new MediaBrowserSocket({ kind: 'jellyfin', url: 'http://127.0.0.1:1', token: 't0k3n-of-a-user', deviceId: 'd', version: '1', clock: systemClock, dial, tokenHasUser: async () => true });
    follower = new MediaBrowserFollower({ server: 'Jellyfin', api, clock: systemClock, logger: silentLogger, librariesPath: '/Library/VirtualFolders', locate: async () => undefined, socket });
    follower.start(async () => {});
    const ticket: MediaBrowserTicket = { file: '/tv/Show/Season 01/e01.mkv', folder: '/tv/Show/Season 01', via: 'item', libraries: ['lib'] };
    follower.follow({ ref: { folderId: 1, generation: 1 }, folder: ticket.folder, event: 'Download', deliveredAt: Date.now(), ticket });
    await until(() => sockets.length === 1, { what: 'the follower dialled the socket' });
    sockets[0].open();
    // 1,000 messages of 100 new ids each: 100,000 ids.
    for (let m = 0; m < 1_000; m++) {
      const ids = Array.from({ length: 100 }, (_, i) => (m * 100 + i).toString(16).padStart(32, '0'));
      sockets[0].text(JSON.stringify({ MessageType: 'LibraryChanged', Data: { ItemsAdded: ids, ItemsUpdated: [], ItemsRemoved: [] } }));
    }
    await until(() => reads >= 1);
    expect(most).toBe(1);
    release();
    // The first message's batch, then what waited (at most 5,000 ids: 100 requests of 50).
    await until(() => inFlight === 0 && reads > 1, { what: () => `${reads} reads` });
    await new Promise((r) => setTimeout(r, 50));
    expect(most).toBe(1);
    expect(reads).toBeLessThanOrEqual(2 + 100);
  });
});

describe('the item locator (ItemLocator)', () => {
  it(`a server that lists a folder's children without end (a total of 10^12) is read up to ${MAX_FOLDERS.toLocaleString('en-US')} folders; two such levels hold no more than that`, async () => {
    let pages = 0;
    const locator = new ItemLocator({
      pageSize: 1_000,
      list: async (parentId, start, limit) => {
        // Beyond any bound a real library needs: the relay should have stopped asking long before.
        if (++pages > 1_000) throw new Error('still listing after 1,000 pages');
        return { items: Array.from({ length: limit }, (_, i) => ({ Id: `${parentId}-${start + i}`, Path: `/${parentId}/folder ${start + i}`, Type: 'Folder' })), total: 1e12 };
      },
    });
    const library = (id: string) => ({ id, name: id, locations: [`/${id}`] });
    const found = await locator.locate([library('a')], '/a/not listed');
    expect(found?.isLibraryRoot).toBe(true);
    expect(pages).toBe(MAX_FOLDERS / 1_000);
    expect(locator.size).toBe(MAX_FOLDERS);
    pages = 0;
    await locator.locate([library('b')], '/b/not listed');
    expect(locator.size).toBeLessThanOrEqual(MAX_FOLDERS);
  });
});
