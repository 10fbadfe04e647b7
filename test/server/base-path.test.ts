// SERVER_BASE_PATH through the real HTTP server: a webhook under the prefix is scanned, one outside it is a 404
// and queues nothing, /health answers at both places, the API's OpenAPI document names the prefix, and the
// dashboard in Chromium makes no request outside the prefix.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configFiles } from '../support/config-file.js';
import { ownFixtureText } from '../support/fixtures.js';
import { SECRET, testService, type TestService } from '../support/service.js';
import { chromiumPages, type ChromiumPages } from '../support/chromium.js';

const SEASON = '/data/media/tv/The Expanse (2015)/Season 01';

let t: TestService;
let origin: string;
let base: string;
beforeAll(async () => {
  t = await testService({ config: { SERVER_BASE_PATH: '/scanrelay', SERVER_PATH_MAPPINGS: {}, SERVER_IGNORE_LIST: [] } });
  base = await t.service.listen(0, '127.0.0.1');
  origin = new URL(base).origin;
});
afterAll(async () => t?.close());

const sonarr = (url: string) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', 'user-agent': 'Sonarr/4.0.17.2952' }, body: ownFixtureText('arr/sonarr-download.json') });

describe('SERVER_BASE_PATH', () => {
  it('listen() and the banner give the URL under the prefix', () => {
    expect(base).toBe(`${origin}/scanrelay`);
  });

  it('a Sonarr webhook to <base>/<SERVER_PASS> is scanned', async () => {
    const res = await sonarr(`${base}/${SECRET}`);
    expect(res.status).toBe(200);
    t.clock.advance(t.service.config.SERVER_SCAN_DELAY * 1000);
    await t.service.processor.drain();
    expect(t.plex.refreshes.map((r) => r.path)).toEqual([SEASON]);
  });

  it('the same webhook to /<SERVER_PASS> (outside the prefix) is a 404 and queues nothing', async () => {
    const before = t.plex.refreshes.length;
    const res = await sonarr(`${origin}/${SECRET}`);
    expect(res.status).toBe(404);
    expect(t.service.queue.count()).toBe(0);
    t.clock.advance(t.service.config.SERVER_SCAN_DELAY * 1000);
    await t.service.processor.drain();
    expect(t.plex.refreshes.length).toBe(before);
    // A prefix that only starts the same is outside too.
    expect((await sonarr(`${origin}/scanrelayx/${SECRET}`)).status).toBe(404);
  });

  it('every route of the table is outside reach without the prefix, and /health answers at both places', async () => {
    for (const route of t.service.app.routeTable) {
      if (route.method !== 'GET' || route.url === '/health') continue;
      const url = route.url.replace(':secret', SECRET).replace(/:[a-z]+/g, 'x');
      expect((await fetch(`${origin}${url}`)).status, url).toBe(404);
    }
    expect((await fetch(`${origin}/health`)).status).toBe(200);
    // The page that says where the dashboard is answers under the prefix, and names it.
    const front = await fetch(`${base}/`);
    expect(front.status).toBe(200);
    expect(await front.text()).toContain('Dashboard: <code>/scanrelay/&lt;SERVER_PASS&gt;/dashboard</code>');
    expect((await fetch(`${base}/health`)).status).toBe(200);
    expect((await fetch(`${base}/metrics`)).status).toBe(200);
    expect((await fetch(`${base}/api/${SECRET}/queue`)).status).toBe(200);
  });

  it("the OpenAPI document's servers entry is the prefix", async () => {
    const doc = (await (await fetch(`${base}/api/${SECRET}/openapi.json`)).json()) as { servers: { url: string }[] };
    expect(doc.servers).toEqual([{ url: '/scanrelay' }]);
  });

  it('the config refuses a prefix that is not a path, and drops a trailing slash', () => {
    const files = configFiles();
    try {
      expect(files.problem({ SERVER_BASE_PATH: 'scanrelay' })).toMatch(/SERVER_BASE_PATH: expected a path like "\/scanrelay"/);
      expect(files.problem({ SERVER_BASE_PATH: '/a/../b' })).toMatch(/SERVER_BASE_PATH/);
      expect(files.problem({ SERVER_BASE_PATH: '/a b' })).toMatch(/SERVER_BASE_PATH/);
      expect(files.load({ SERVER_BASE_PATH: '/scanrelay/' }).SERVER_BASE_PATH).toBe('/scanrelay');
      expect(files.load({ SERVER_BASE_PATH: '/' }).SERVER_BASE_PATH).toBe('');
    } finally {
      files.cleanup();
    }
  });
});

describe('SERVER_BASE_PATH in Chromium', () => {
  let browser: ChromiumPages;
  beforeAll(async () => {
    browser = await chromiumPages();
  });
  afterAll(async () => browser?.close());

  it('the manual page, the dashboard and the doctor make no request outside the prefix', async () => {
    const page = await browser.newPage();
    page.setDefaultTimeout(5000);
    const asked: string[] = [];
    page.on('request', (r) => asked.push(r.url()));
    await page.goto(`${base}/${SECRET}`);
    await page.getByRole('link', { name: 'Dashboard' }).click();
    await page.waitForURL(`${base}/${SECRET}/dashboard`);
    await expect.poll(() => page.locator('#live-status').textContent()).toBe('Live');
    await page.goto(`${base}/${SECRET}/doctor`);
    await page.getByLabel('Path to explain').fill('/data/media/tv/The Expanse (2015)/Season 01/e1.mkv');
    await page.getByRole('button', { name: 'Explain' }).click();
    await page.waitForLoadState('load');
    expect(asked.length).toBeGreaterThan(3);
    expect(asked.filter((u) => !u.startsWith(`${base}/`))).toEqual([]);
    await page.close();
  });
});
