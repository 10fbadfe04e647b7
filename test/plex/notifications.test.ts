// Plex's notification socket (src/targets/plex/follow/notifications.ts) against a scripted socket: the frames pinned in
// test/fixtures/plex/notifications, the token in a header, reconnection with capped backoff, liveness: alive once
// the server answered, a ping after a quiet spell (5 s while scans are outstanding), dead without an answer in 5 s.
import { describe, expect, it } from 'vitest';
import { LIVENESS } from '../../src/http/media-socket.js';
import { parseNotification, PlexNotifications } from '../../src/targets/plex/follow/notifications.js';
import type { PlexNotification } from '../../src/targets/plex/follow/scan-items.js';
import { ownFixtureText } from '../support/fixtures.js';
import { scriptedDial, settle, SteppedClock } from '../support/fake-socket.js';

const frame = (name: string) => ownFixtureText(`plex/notifications/${name}.json`);

describe('parseNotification', () => {
  it('reads a scan activity, with the section only once Plex names it', () => {
    expect(parseNotification(frame('activity-started'))).toEqual([
      { kind: 'activity', event: 'started', uuid: '6f1c2a4e-9b0d-4e3a-8c55-2f7d1e0a9b31', type: 'library.update.section', sectionId: undefined, progress: 0, subtitle: '' },
    ]);
    expect(parseNotification(frame('activity-updated'))[0]).toMatchObject({ event: 'updated', sectionId: '2', progress: 40 });
    expect(parseNotification(frame('activity-ended'))[0]).toMatchObject({ event: 'ended', sectionId: '2', type: 'library.update.section' });
  });

  it('reads every timeline entry of a frame, not only the first', () => {
    const events = parseNotification(frame('timeline-created'));
    expect(events.map((e) => e.kind === 'timeline' && [e.itemId, e.type, e.state, e.metadataState])).toEqual([
      ['48213', 4, 0, 'created'],
      ['48214', 4, 0, 'created'],
      ['48212', 3, 0, 'created'],
    ]);
    expect(events[0]).toMatchObject({ sectionId: '2', parentItemId: '48212', rootItemId: '48100', title: 'Low Tide' });
  });

  it('reads processed and deleted entries, and ids given as numbers', () => {
    expect(parseNotification(frame('timeline-processed')).map((e) => e.kind === 'timeline' && `${e.sectionId}/${e.itemId}:${e.state}:${e.mediaState ?? ''}`)).toEqual([
      '2/48213:5:',
      '1/51007:5:analyzing',
    ]);
    expect(parseNotification(frame('timeline-deleted'))[0]).toMatchObject({ itemId: '50991', state: 9, metadataState: 'deleted' });
    const numeric = JSON.stringify({ NotificationContainer: { type: 'timeline', TimelineEntry: [{ identifier: 'com.plexapp.plugins.library', sectionID: 3, itemID: 77, type: 10, state: 0 }] } });
    expect(parseNotification(numeric)[0]).toMatchObject({ sectionId: '3', itemId: '77' });
  });

  it('gives nothing for other messages, other identifiers, sectionless entries and junk', () => {
    expect(parseNotification(frame('playing'))).toEqual([]);
    const dvr = JSON.stringify({ NotificationContainer: { type: 'timeline', TimelineEntry: [{ identifier: 'tv.plex.providers.epg', sectionID: '2', itemID: '5', type: 1, state: 0 }] } });
    expect(parseNotification(dvr)).toEqual([]);
    const noSection = JSON.stringify({ NotificationContainer: { type: 'timeline', TimelineEntry: [{ identifier: 'com.plexapp.plugins.library', sectionID: '-1', itemID: '5', type: 1, state: 0 }] } });
    expect(parseNotification(noSection)).toEqual([]);
    expect(parseNotification('not json')).toEqual([]);
    expect(parseNotification('{"NotificationContainer":{"type":"activity","ActivityNotification":[{"event":"exploded","uuid":"x"}]}}')).toEqual([]);
  });
});

describe('PlexNotifications', () => {
  const make = (clock = new SteppedClock()) => {
    const { dial, sockets } = scriptedDial();
    const n = new PlexNotifications({ url: 'https://plex.example:32400/', token: 'tok-1234', clock, dial, firstBackoffMs: 1000, maxBackoffMs: 8000 });
    const seen: PlexNotification[] = [];
    n.subscribe((e) => seen.push(e));
    n.start();
    return { n, clock, sockets, seen };
  };

  it('opens wss://…/:/websockets/notifications with the token in a header, not in the URL', async () => {
    const { n, sockets } = make();
    expect(sockets).toHaveLength(1);
    expect(sockets[0].url).toBe('wss://plex.example:32400/:/websockets/notifications');
    expect(sockets[0].url).not.toContain('tok-1234');
    expect(sockets[0].headers['X-Plex-Token']).toBe('tok-1234');
    sockets[0].terminate();
    await n.stop();
  });

  it('says when it is connected and hands every event to every subscriber', async () => {
    const { n, sockets, seen } = make();
    const other: PlexNotification[] = [];
    n.subscribe((e) => other.push(e));
    expect(n.connected).toBe(false);
    sockets[0].open();
    expect(n.connected).toBe(true);
    sockets[0].text(frame('timeline-created'));
    expect(seen.map((e) => e.kind)).toEqual(['connection', 'timeline', 'timeline', 'timeline']);
    expect(other).toHaveLength(4);
    sockets[0].close('closed (1001)');
    expect(n.connected).toBe(false);
    expect(seen.at(-1)).toEqual({ kind: 'connection', connected: false, why: 'closed (1001)' });
    await n.stop();
  });

  it('dials again after 1, 2, 4, 8, 8 s while the server refuses, and quickly again after a socket that had opened', async () => {
    const { n, clock, sockets } = make();
    const waits: number[] = [];
    for (let i = 0; i < 5; i++) {
      sockets.at(-1)!.close('the server answered the upgrade with HTTP 404');
      await settle();
      waits.push(await clock.release());
    }
    expect(waits).toEqual([1000, 2000, 4000, 8000, 8000]);
    expect(sockets).toHaveLength(6);
    sockets.at(-1)!.open();
    sockets.at(-1)!.close();
    await settle();
    expect(await clock.release()).toBe(1000);
    await n.stop();
  });

  it('is alive only once the server answers: a socket that opens and answers no ping is ended, and counts as a failure', async () => {
    const { n, clock, sockets, seen } = make();
    sockets[0].answersPings = false;
    sockets[0].open();
    expect(sockets[0].pings).toBe(1); // at once: Plex says nothing until something happens
    expect(n.connected).toBe(false);
    expect(n.status()).toEqual({ state: 'opening' });
    expect(await clock.release()).toBe(LIVENESS.pongDeadlineMs);
    expect(sockets[0].terminated).toBe(true);
    expect(seen.at(-1)).toEqual({ kind: 'connection', connected: false, why: 'it opened but answered no ping within 5 s' });
    expect(n.status()).toMatchObject({ state: 'reconnecting', why: 'it opened but answered no ping within 5 s' });
    expect(await clock.release()).toBe(1000);
    sockets[1].answersPings = false;
    sockets[1].open();
    await clock.release(LIVENESS.pongDeadlineMs);
    // Mute again: the next dial waits longer, as after a refused upgrade.
    expect(await clock.release()).toBe(2000);
    sockets[2].open(); // this one answers its ping: alive
    expect(n.connected).toBe(true);
    expect(n.status()).toEqual({ state: 'open', lastFrameAt: clock.now() });
    await n.stop();
  });

  it('while scans are outstanding, pings after 5 s without a frame and ends the socket when neither a frame nor a pong comes within 5 s', async () => {
    const clock = new SteppedClock();
    const { dial, sockets } = scriptedDial();
    const n = new PlexNotifications({ url: 'http://plex:32400', token: 't', clock, dial, busy: () => true });
    const seen: PlexNotification[] = [];
    n.subscribe((e) => seen.push(e));
    n.start();
    sockets[0].open();
    // Answered each time: one ping every 5 s of quiet, and the socket stays.
    for (let i = 1; i <= 3; i++) expect(await clock.release()).toBe(LIVENESS.pongDeadlineMs);
    expect(sockets[0].pings).toBe(4);
    expect(sockets[0].terminated).toBe(false);
    sockets[0].answersPings = false; // the flow is gone: nothing comes any more
    await clock.release(); // the 4th ping was answered before: a 5th goes out, unanswered
    expect(sockets[0].pings).toBe(5);
    await clock.release();
    expect(sockets[0].terminated).toBe(true);
    expect(n.connected).toBe(false);
    expect(seen.at(-1)).toEqual({ kind: 'connection', connected: false, why: 'it went silent: no frame and no pong within 5 s of a ping' });
    // It had been alive: the first retry is quick.
    expect(await clock.release()).toBe(1000);
    expect(sockets).toHaveLength(2);
    await n.stop();
  });

  it('while nothing is outstanding, pings after 30 s of quiet; scans becoming outstanding bring the busy pace at once', async () => {
    const clock = new SteppedClock();
    const { dial, sockets } = scriptedDial();
    let busy = false;
    const n = new PlexNotifications({ url: 'http://plex:32400', token: 't', clock, dial, busy: () => busy });
    n.start();
    sockets[0].open();
    await clock.release(LIVENESS.pongDeadlineMs);
    expect(clock.sleeps.map((s) => s.ms)).toEqual([LIVENESS.idlePingMs - LIVENESS.pongDeadlineMs]);
    busy = true;
    n.heedNow();
    await settle();
    // Quiet for 5 s already: the ping goes out now.
    expect(sockets[0].pings).toBe(2);
    await n.stop();
  });

  it('stops: the socket is ended and no new one is dialled', async () => {
    const { n, clock, sockets } = make();
    sockets[0].open();
    await n.stop();
    expect(sockets[0].terminated).toBe(true);
    while (clock.sleeps.length) await clock.release();
    expect(sockets).toHaveLength(1);
  });
});
