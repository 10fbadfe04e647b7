// The last resort for confirming a file (no socket saw its scan, no database): the section's newest items, paged
// back to when the scan was sent. After an outage hundreds of scans go out in seconds, and one whose end was missed
// is judged after all of them, its file far down the list.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PlexApi } from '../../src/targets/plex/api.js';
import { ADDED_SLACK_MS, findRecentlyAdded } from '../../src/targets/plex/recently-added.js';
import { FakePlex } from '../fakes/plex.js';

let plex: FakePlex;
beforeEach(async () => {
  plex = await new FakePlex().start();
});
afterEach(() => plex.stop());

const TV = { id: '2', type: 'show' };
const episode = (i: number) => `/data/media/tv/Show ${i}/Season 01/E01.mkv`;
const pages = () => plex.requests.filter((r) => r.path === '/library/sections/2/all').length;

/** `older` episodes added an hour before `sentAt`, then `newer` ones after it (the fake lists them newest first). */
function library(older: number, newer: number, sentAt: number): void {
  for (let i = 0; i < older + newer; i++) plex.addToLibrary(episode(i)).addedAt = Math.floor((i < older ? sentAt - 3_600_000 : sentAt + 1_000) / 1000);
}

describe('the recently added items', () => {
  it('are read back to when the scan was sent: a file 350 items down is found, and the older items are not read', async () => {
    const sentAt = Date.now();
    library(1_000, 400, sentAt);
    const api = new PlexApi({ url: plex.url, token: plex.token });
    const wanted = episode(1_000 + 49); // 351st from the newest
    // A file the library does not hold keeps the pages going as far as they go.
    const found = await findRecentlyAdded(api, [TV], new Set([wanted, '/data/media/tv/Gone/Season 01/E01.mkv']), sentAt);
    expect([...found.keys()]).toEqual([wanted]);
    // Pages of 50 until the first that reaches the items older than the scan (less the slack): 9, not 28.
    expect(pages()).toBe(9);
  });

  it('without when the scan was sent, the first four pages only', async () => {
    library(0, 400, Date.now());
    const api = new PlexApi({ url: plex.url, token: plex.token });
    const wanted = episode(49);
    expect((await findRecentlyAdded(api, [TV], new Set([wanted]))).size).toBe(0);
    expect(pages()).toBe(4);
  });

  it('Plex clock a little behind ours: items added within the slack before the scan was sent are still read', async () => {
    const sentAt = Date.now();
    for (let i = 0; i < 300; i++) plex.addToLibrary(episode(i)).addedAt = Math.floor((sentAt - ADDED_SLACK_MS / 2) / 1000);
    const api = new PlexApi({ url: plex.url, token: plex.token });
    const wanted = episode(0); // the oldest, 300 down
    expect((await findRecentlyAdded(api, [TV], new Set([wanted]), sentAt)).get(wanted)).toBeDefined();
  });
});
