// Words a person reads: the Drive card when the monitor is off, the server card's counters, and one word for a
// path in no library in the answer, history and /metrics alike.
import { afterEach, describe, expect, it } from 'vitest';
import { SECRET, testService, type TestService } from '../support/service.js';

let t: TestService | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

describe('words on the dashboard and in the answers', () => {
  it('the Drive card says the monitor is off, never "enabled false"; server counters say they count since start', async () => {
    t = await testService();
    const page = (await t.service.app.inject({ url: `/${SECRET}/dashboard` })).body;
    expect(page).toContain('The Google Drive monitor is off (GOOGLE.ENABLED is false).');
    expect(page).not.toMatch(/<dt>enabled<\/dt>/);
    expect(page).toMatch(/<dt>Scans since start \(\d+s ago\)<\/dt>/);
  });

  it('what an action said, echoed from the URL, is cut to 500 characters on a character, never half an emoji', async () => {
    t = await testService();
    const said = `${'x'.repeat(499)}${'😀'.repeat(10)}`;
    const page = (await t.service.app.inject({ url: `/${SECRET}/dashboard?notice=${encodeURIComponent(said)}` })).body;
    expect(page).not.toContain('\ufffd');
    expect(page).toContain(`<p class="notice" role="status">${'x'.repeat(499)}</p>`);
  });

  it('a path in no library: listed under "unmatched" (not "queued") in the answer, and counted as unmatched in /metrics', async () => {
    t = await testService();
    const res = await t.service.app.inject({
      method: 'POST',
      url: `/${SECRET}`,
      headers: { 'content-type': 'application/json', 'user-agent': 'Sonarr/4.0.17.2952' },
      payload: JSON.stringify({ eventType: 'Download', series: { path: '/elsewhere/Show' }, episodeFile: { path: '/elsewhere/Show/e1.mkv' } }),
    });
    expect(res.statusCode).toBe(202);
    expect(res.json().queued).toEqual([]);
    expect(res.json().unmatched[0]).toMatchObject({ path: '/elsewhere/Show/e1.mkv' });
    const metrics = (await t.service.app.inject({ url: '/metrics' })).body;
    expect(metrics).toMatch(/scanrelay_requests_total\{source="sonarr",event="Download",outcome="unmatched"\} 1/);
    expect(metrics).not.toMatch(/outcome="ignored"\} 1/);
  });
});

describe('counts that agree', () => {
  it('a scan the server took and that is still followed: the server card counts it since start, the strip says it is followed rather than that nothing happened', async () => {
    t = await testService();
    const { dashboardLive } = await import('../../src/server/dashboard-page.js');
    const { chartData } = await import('../../src/server/chart-data.js');
    const now = t.clock.now();
    const delivery = { target: 'plex', state: 'following', attempts: 1, nextAt: now, lastError: null, detail: null, deliveredAt: now - 31_000 };
    const folder = { id: 1, folder: '/data/media/tv/Show/Season 01', priority: 1, state: 'waiting', dueAt: now, dueInMs: 0, firstAt: now - 211_000, lastAt: now - 211_000, requests: 1, source: 'sonarr', event: 'Download', fileChecks: 0, lastError: null, received: null, deliveries: [delivery] };
    const health = { name: 'plex', kind: 'plex', up: true, scanned: 1, failed: 0, inFlight: 0 };
    const html = dashboardLive({ now, startedAt: now - 240_000, queue: [folder], count: 1, history: [], targets: [health], held: null, drive: null, charts: chartData(t.service.queue.db, now) } as never);
    expect(html).toContain('following</span> <span class="muted">delivered 31s ago</span>');
    expect(html).toContain('<dt>Scans since start (4m 0s ago)</dt><dd>1</dd>');
    expect(html).toContain('plex: nothing finished in the last 24 hours. 1 being followed now (in the queue).');
  });
});
