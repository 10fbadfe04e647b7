// A media server that refuses the token is the first thing on the dashboard, and a queued folder says which
// server it waits for and why, instead of "not sent yet".
import { afterEach, describe, expect, it } from 'vitest';
import { serversDownBanner, notSentYet } from '../../src/server/waiting-servers.js';
import { SECRET, testService, type TestService } from '../support/service.js';

let t: TestService | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

describe('a media server that cannot take scans', () => {
  it('refusing the token: a banner at the top of the dashboard, and the queued folder says "waiting for plex: token refused"', async () => {
    t = await testService({ config: { PLEX_TOKEN: 'not-the-token' } });
    const res = await t.service.app.inject({
      method: 'POST',
      url: `/${SECRET}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'eventType=Manual&filepath=' + encodeURIComponent('/mnt/unionfs/Media/tv/Show/Season 01/e1.mkv'),
    });
    expect(res.statusCode).toBe(200);
    t.clock.advance(t.service.config.SERVER_SCAN_DELAY * 1000);
    await t.service.processor.drain();
    expect(t.service.processor.health()[0]).toMatchObject({ name: 'plex', up: false });
    // A folder queued while the server is down, not yet due: its card says what it waits for.
    await t.service.app.inject({
      method: 'POST',
      url: `/${SECRET}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'eventType=Manual&filepath=' + encodeURIComponent('/mnt/unionfs/Media/tv/Other/Season 02/e1.mkv'),
    });
    const page = (await t.service.app.inject({ url: `/${SECRET}/dashboard` })).body;
    const card = page.slice(page.indexOf('data-folder="/data/media/tv/Other/Season 02"'));
    expect(card.slice(0, card.indexOf('</li>'))).toContain('waiting for plex: token refused');
    const live = page.slice(page.indexOf('id="live"'));
    // The banner comes before the charts and the queue.
    expect(live.indexOf('id="servers-down"')).toBeGreaterThan(-1);
    expect(live.indexOf('id="servers-down"')).toBeLessThan(live.indexOf('id="queue'));
    expect(live).toContain('<strong>plex: token refused.</strong>');
    expect(page).not.toContain('not-the-token');
  });

  it('the words for each case, and nothing while every server is up', () => {
    expect(serversDownBanner([{ name: 'plex', up: true }])).toBe('');
    expect(notSentYet([{ name: 'plex', up: true }])).toContain('not sent yet');
    expect(notSentYet([{ name: 'plex', up: false, lastError: "plex answered 401 Unauthorized: check PLEX_TOKEN" }])).toContain('waiting for plex: token refused');
    expect(notSentYet([{ name: 'jf', up: false, lastError: 'connect ECONNREFUSED 127.0.0.1:8096' }])).toContain('waiting for jf: not answering');
    expect(serversDownBanner([{ name: 'jf', up: false, lastError: 'connect ECONNREFUSED' }])).toContain('check that it runs and that its URL is right');
  });
});

describe('the manual page', () => {
  it('carries the header the dashboard and the doctor have: the name and the three pages', async () => {
    t = await testService({ config: { SERVER_ALLOW_MANUAL_SCAN: true } });
    const page = (await t.service.app.inject({ url: `/${SECRET}`, headers: { accept: 'text/html' } })).body;
    expect(page).toMatch(/<header><h1>scanrelay<\/h1><nav aria-label="scanrelay pages"><a href="" aria-current="page">Manual scan<\/a><a data-below="dashboard"[^>]*>Dashboard<\/a><a data-below="doctor"[^>]*>Path doctor<\/a><\/nav><\/header>/);
    const dashboard = (await t.service.app.inject({ url: `/${SECRET}/dashboard` })).body;
    expect(dashboard).toMatch(/<header><h1>scanrelay<\/h1><nav aria-label="scanrelay pages">/);
  });
});
