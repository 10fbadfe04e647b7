// The notification client against the fake Plex's socket (test/fakes/plex-notifications.ts), over real
// websockets on 127.0.0.1: a scan's end and its new items arrive, and the delivered file is confirmed with one
// metadata request and no section listing; a refused upgrade leaves the client disconnected (the fallback case).
import { afterEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.js';
import { PlexNotifications } from '../../src/targets/plex/follow/notifications.js';
import { itemsOfScans, SectionScans, type PlexGet, type PlexNotification, type SectionScanEnded } from '../../src/targets/plex/follow/scan-items.js';
import { FakePlex } from '../fakes/plex.js';
import { attachPlexNotifications, type FakePlexNotifications } from '../fakes/plex-notifications.js';

let plex: FakePlex;
let fake: FakePlexNotifications;
let client: PlexNotifications | undefined;

afterEach(async () => {
  await client?.stop();
  client = undefined;
  await fake?.close();
  await plex?.stop();
});

async function setUp(token?: string): Promise<{ events: PlexNotification[]; next: (pred: (e: PlexNotification) => boolean) => Promise<PlexNotification> }> {
  plex = await new FakePlex().start();
  plex.fifoMs = 5;
  fake = attachPlexNotifications(plex);
  client = new PlexNotifications({ url: plex.url, token: token ?? plex.token, clock: systemClock, firstBackoffMs: 5, maxBackoffMs: 20 });
  const events: PlexNotification[] = [];
  const waiting: { pred: (e: PlexNotification) => boolean; resolve: (e: PlexNotification) => void }[] = [];
  client.subscribe((e) => {
    events.push(e);
    for (const w of [...waiting]) if (w.pred(e)) (waiting.splice(waiting.indexOf(w), 1), w.resolve(e));
  });
  client.start();
  const next = (pred: (e: PlexNotification) => boolean) => new Promise<PlexNotification>((resolve) => waiting.push({ pred, resolve }));
  return { events, next };
}

const get =
  (count: { requests: number }): PlexGet =>
  async (path) => {
    count.requests++;
    const res = await fetch(`${plex.url}${path}`, { headers: { 'X-Plex-Token': plex.token, Accept: 'application/json' } });
    return { status: res.status, body: res.ok ? await res.json() : undefined };
  };

const refresh = (section: string, path: string) => fetch(`${plex.url}/library/sections/${section}/refresh?path=${encodeURIComponent(path)}`, { headers: { 'X-Plex-Token': plex.token } });

describe('the notification client on the fake Plex', () => {
  it('connects with the token in the header and confirms a delivered file from the scan it follows', async () => {
    const { next } = await setUp();
    await next((e) => e.kind === 'connection' && e.connected);
    expect(fake.upgrades).toEqual([{ path: '/:/websockets/notifications', tokenVia: 'header', accepted: true }]);

    const file = '/data/media/tv/Harbour Lights/Season 02/Harbour Lights S02E01.mkv';
    plex.onDisk.add(file);
    plex.onDisk.add('/data/media/tv/Harbour Lights/Season 02/Harbour Lights S02E02.mkv');
    const ended = new Promise<SectionScanEnded>((resolve) => {
      const scans = new SectionScans(resolve);
      client!.subscribe((e) => scans.handle(e));
    });
    await refresh('2', '/data/media/tv/Harbour Lights/Season 02');
    const scan = await ended;
    expect(scan.sectionId).toBe('2');
    expect(scan.touched).toHaveLength(2);
    expect(scan.touched.every((t) => t.created && t.type === 4)).toBe(true);

    const count = { requests: 0 };
    const before = plex.requests.length;
    const found = await itemsOfScans(get(count), [scan], new Set([file]));
    expect(found.has(file)).toBe(true);
    // One metadata request per new item (both asked at once), nothing else: no section listing, no file filter.
    expect(count.requests).toBe(2);
    expect(plex.requests.slice(before).map((r) => r.path).sort()).toEqual(scan.touched.map((t) => `/library/metadata/${t.ratingKey}`).sort());
    expect(plex.requests.some((r) => r.path.endsWith('/all'))).toBe(false);
  });

  it('sends the frames in the order Plex does: started, updated with the section, created entries, ended, processed', async () => {
    const { next } = await setUp();
    await next((e) => e.kind === 'connection' && e.connected);
    plex.onDisk.add('/data/media/movies/Paper Boats (2019)/Paper Boats (2019).mkv');
    const done = next((e) => e.kind === 'timeline' && e.state === 5);
    await refresh('1', '/data/media/movies/Paper Boats (2019)');
    await done;
    expect(fake.frames.map((f) => {
      const c = JSON.parse(f).NotificationContainer;
      return c.type === 'activity' ? `${c.ActivityNotification[0].event}:${c.ActivityNotification[0].Activity.Context?.librarySectionID ?? '-'}` : `timeline:${c.TimelineEntry[0].state}`;
    })).toEqual(['started:-', 'updated:1', 'timeline:0', 'ended:1', 'timeline:5']);
  });

  it('is refused a wrong token and a proxy that drops upgrades, and says it is not connected', async () => {
    const { next } = await setUp('wrong-token');
    const closed = (await next((e) => e.kind === 'connection' && !e.connected)) as { why?: string };
    expect(closed.why).toMatch(/HTTP 401/);
    expect(client!.connected).toBe(false);
    fake.refuseUpgrades = 400;
    const again = (await next((e) => e.kind === 'connection' && !e.connected)) as { why?: string };
    expect(again.why).toMatch(/HTTP 400/);
    expect(fake.upgrades.every((u) => !u.accepted)).toBe(true);
  });

  it('opens the socket again when Plex drops it', async () => {
    const { next } = await setUp();
    await next((e) => e.kind === 'connection' && e.connected);
    fake.dropAll();
    await next((e) => e.kind === 'connection' && !e.connected);
    await next((e) => e.kind === 'connection' && e.connected);
    expect(fake.upgrades.filter((u) => u.accepted)).toHaveLength(2);
    expect(client!.connected).toBe(true);
  });
});
