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
    const page = (await t.service.app.inject({ url: `/${SECRET}/dashboard?said=${encodeURIComponent(said)}` })).body;
    expect(page).not.toContain('\ufffd');
    expect(page).toContain(`<p class="said" role="status">${'x'.repeat(499)}</p>`);
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
