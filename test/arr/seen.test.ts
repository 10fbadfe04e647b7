// What people see of the connected apps: /health and the dashboard show each app (reachable, version, last event
// caught up, how many since start), the doctor page each app's root folders with the library holding them or the
// mapping line to add, /metrics the events caught up by app. The API key is on none of them.
import { afterEach, describe, expect, it } from 'vitest';
import { SECRET } from '../support/service.js';
import { arrHarness, type ArrHarness } from './harness.js';

let h: ArrHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function caughtUpTwice(): Promise<ArrHarness> {
  const t = await arrHarness(['sonarr', 'radarr']);
  const [sonarr, radarr] = t.apps;
  sonarr.rootFolders = ['/tv', '/media/movies'];
  await t.arr.catchUp();
  for (const n of [1, 2]) {
    sonarr.write({ episodeId: n, seriesId: n, eventType: 'downloadFolderImported', downloadId: `d${n}`, data: { importedPath: `/tv/Show ${n}/Season 01/e.mkv` }, id: n }, t.clock.now());
  }
  t.clock.advance(1_000);
  radarr.failure = 'down';
  await t.arr.catchUp();
  return t;
}

describe('the connected apps', () => {
  it('/health shows each app with its state, version, last event and count; never its key', async () => {
    h = await caughtUpTwice();
    const res = await h.service.app.inject({ method: 'GET', url: '/health' });
    expect(res.statusCode).toBe(200);
    const body = res.json() as { arr: unknown[] };
    expect(body.arr).toEqual([
      {
        name: 'sonarr',
        type: 'sonarr',
        state: 'up',
        reachable: true,
        version: '4.0.14.2939',
        lastEvent: '2026-01-01T00:00:00.000Z',
        caughtUp: 2,
        cursor: '2026-01-01T00:00:00.000Z',
        lastCatchUp: '2026-01-01T00:00:01.000Z',
        intervalSeconds: 300,
        error: null,
        skipped: null,
      },
      expect.objectContaining({ name: 'radarr', state: 'down', reachable: false, version: '5.21.1.9799', caughtUp: 0, error: expect.stringMatching(/did not answer GET \/system\/status/) }),
    ]);
    for (const app of h.apps) expect(res.body).not.toContain(app.apiKey);
  });

  it('the dashboard shows each app; /metrics counts the events caught up by app', async () => {
    h = await caughtUpTwice();
    const page = await h.service.app.inject({ method: 'GET', url: `/${SECRET}/dashboard` });
    expect(page.statusCode).toBe(200);
    const apps = page.body.slice(page.body.indexOf('id="apps-h"'));
    expect(apps).toContain('<strong>sonarr</strong> <span class="muted">sonarr 4.0.14.2939</span> <span class="badge b-ok">up</span>');
    expect(apps).toMatch(/<dt>Caught up since start \([^)]+ ago\)<\/dt><dd>2<\/dd>/);
    expect(apps).toContain('<strong>radarr</strong> <span class="muted">radarr 5.21.1.9799</span> <span class="badge b-bad">not answering</span>');
    const metrics = await h.service.app.inject({ method: 'GET', url: '/metrics' });
    expect(metrics.body).toContain('scanrelay_arr_events_caught_up_total{app="sonarr"} 2');
    for (const app of h.apps) {
      expect(page.body).not.toContain(app.apiKey);
      expect(metrics.body).not.toContain(app.apiKey);
    }
  });

  it('the doctor page lists each app\'s root folders with the library holding each, or the mapping line to add', async () => {
    h = await caughtUpTwice();
    const page = await h.service.app.inject({ method: 'GET', url: `/${SECRET}/doctor` });
    expect(page.statusCode).toBe(200);
    const roots = page.body.slice(page.body.indexOf('id="app-roots"'));
    expect(roots).toContain('<code>/tv</code> → <code>/data/media/tv</code> <span class="badge b-ok">in a library</span>: plex: TV Shows (section 2)');
    expect(roots).toContain('<code>/media/movies</code> <span class="badge b-bad">unmatched</span>');
    // The entry goes into the key the config has, its other entries kept.
    expect(roots).toContain('<code class="mapping">Add &quot;/media/movies/&quot; to the SERVER_PATH_MAPPINGS entry &quot;/data/media/movies/&quot; in config.json, keeping every entry there');
    expect(roots).toContain('&quot;/data/media/movies/&quot;: [&quot;/movies/&quot;, &quot;/media/movies/&quot;], &quot;/data/media/music/&quot;: [&quot;/music/&quot;] }</code>');
    expect(roots).toMatch(/<strong>radarr<\/strong> <span class="muted">radarr<\/span><p class="err">radarr &#39;radarr&#39; at http:\/\/127\.0\.0\.1:\d+\/api\/v3 did not answer GET \/rootfolder/);
    for (const app of h.apps) expect(page.body).not.toContain(app.apiKey);
  });
});
