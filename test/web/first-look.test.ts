// A newcomer's first look at the pages, in real headless Chromium on a phone-sized screen: the latency chart of
// the first hour (one point per series) draws a mark and says so; the queue comes above the charts; each count
// says over what window, and the ones that count the same thing agree; the manual page, the dashboard and the
// path doctor share one header; and the bare address (the Unraid template's WebUI) says where the dashboard is,
// answering without a 401 or a WARN and without the secret. Screenshots go to test-artifacts/.
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ScanOutcome, Target } from '../../src/scan.js';
import { repoRoot } from '../support/fixtures.js';
import { SECRET, testService, type TestService } from '../support/service.js';
import { chromiumPages, type ChromiumPages } from '../support/chromium.js';

const artifacts = join(repoRoot, 'test-artifacts');

/** A media server that scans at once (no follow-up), so what it scanned is in history as soon as it answers. */
const plex: Target = { name: 'plex', kind: 'test', pauseMs: 0, scan: async (): Promise<ScanOutcome> => ({ status: 'scanned' }), available: async () => ({ ok: true }) };

describe('the first look at the pages', () => {
  let t: TestService;
  let browser: ChromiumPages;
  let page: Page;
  let base: string;

  const post = (path: string) =>
    t.service.app.inject({ method: 'POST', url: `/${SECRET}`, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: `eventType=Manual&filepath=${encodeURIComponent(path)}` });

  /** The dashboard once its live part has been refreshed (the event stream opened), so nothing read is replaced. */
  async function dashboard(): Promise<void> {
    await page.goto(`${base}/${SECRET}/dashboard`);
    await expect.poll(() => page.locator('#live-status').textContent()).toBe('Live');
  }

  beforeAll(async () => {
    mkdirSync(artifacts, { recursive: true });
    t = await testService({ targets: [plex] });
    base = await t.service.listen(0, '127.0.0.1');
    browser = await chromiumPages();
    page = await browser.newPage({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 1 });
    page.setDefaultTimeout(5000);
    // The first scans of a new relay: one folder scanned (one latency point per series), one still queued.
    await t.service.processor.stop();
    await post('/mnt/unionfs/Media/tv/Show/Season 01/e1.mkv');
    t.clock.advance(t.service.config.SERVER_SCAN_DELAY * 1000);
    await t.service.processor.drain();
    await post('/mnt/unionfs/Media/tv/Show/Season 02/e1.mkv');
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('a latency series with one point draws a visible mark, and its words say it is one hour', async () => {
    expect(t.service.queue.history(10)).toHaveLength(1);
    await dashboard();
    const marks = await page.evaluate(() =>
      [...document.querySelectorAll('#chart-latency svg circle')].map((c) => {
        const box = c.getBoundingClientRect();
        const style = getComputedStyle(c);
        return { width: box.width, height: box.height, fill: style.fill, stroke: style.stroke, dashed: c.classList.contains('p95') };
      }),
    );
    // p50 and p95 of each series shown: a filled dot and a ring.
    const solid = marks.filter((m) => !m.dashed);
    expect(solid.length).toBeGreaterThanOrEqual(1);
    expect(marks.filter((m) => m.dashed)).toHaveLength(solid.length);
    for (const m of marks) expect(Math.min(m.width, m.height)).toBeGreaterThanOrEqual(4);
    for (const m of solid) expect(m.fill).not.toMatch(/^(none|rgba\(0, 0, 0, 0\))$/);
    expect(await page.locator('#chart-latency .sum').textContent()).toMatch(/^request to scan: lately half within \d+m, 95% within \d+m \(one hour with scans so far: a dot\)\./);
    // A live update may replace the chart between two steps of an element screenshot: take the page's, clipped to it.
    const box = await page.locator('#chart-latency').boundingBox();
    await page.screenshot({ path: join(artifacts, 'first-look-latency-one-point.png'), fullPage: true, ...(box ? { clip: box } : {}) });
  });

  it('at 390 px the queue comes first, above the charts', async () => {
    const top = (selector: string) => page.locator(selector).evaluate((e) => e.getBoundingClientRect().top + window.scrollY);
    const queue = await top('#queue-h');
    expect(queue).toBeLessThan(await top('#charts-h'));
    expect(await page.locator('#queue li').count()).toBe(1);
    // The whole first card is on the first screen.
    expect(await page.locator('#queue li').evaluate((e) => e.getBoundingClientRect().bottom)).toBeLessThan(844);
    await page.screenshot({ path: join(artifacts, 'first-look-dashboard-phone.png'), fullPage: true });
  });

  it("each count says its window, and the server card's count agrees with the strip's", async () => {
    const card = page.locator('#targets li', { hasText: 'plex' });
    const facts = await card.locator('dt').allTextContents();
    // The service started when the test did; the clock moved SERVER_SCAN_DELAY on since.
    expect(facts).toContain('Scans since start (3m 0s ago)');
    expect(facts).toContain('Failures since start (3m 0s ago)');
    const scans = Number(await card.locator('dt', { hasText: 'Scans since start' }).locator('xpath=following-sibling::dd').textContent());
    const strip = await page.locator('#chart-outcomes li > span').textContent();
    expect(strip).toBe(`plex, latest ${scans} finished in the last 24 hours: ${scans} scanned.`);
    expect(await page.locator('#charts-h').textContent()).toBe('Last 24 hours');
    expect(await page.locator('#history-h').textContent()).toBe('Recent history (1 finished, newest first)');
  });

  it('the manual page, the dashboard and the path doctor have one header', async () => {
    const header = () =>
      page.evaluate(() => {
        const h = document.querySelector('header')!;
        const h1 = h.querySelector('h1')!;
        const box = h1.getBoundingClientRect();
        return {
          title: h1.textContent,
          links: [...h.querySelectorAll('nav a')].map((a) => a.textContent),
          current: h.querySelector('nav a[aria-current=page]')?.textContent,
          currentWeight: getComputedStyle(h.querySelector('nav a[aria-current=page]')!).fontWeight,
          font: getComputedStyle(h1).fontSize,
          linkFont: getComputedStyle(h.querySelector('nav a')!).fontSize,
          at: [Math.round(box.left), Math.round(box.top)],
        };
      });
    const seen = [];
    for (const [url, name] of [
      [`${base}/${SECRET}`, 'Manual scan'],
      [`${base}/${SECRET}/dashboard`, 'Dashboard'],
      [`${base}/${SECRET}/doctor`, 'Path doctor'],
    ]) {
      await page.goto(url);
      const h = await header();
      expect(h.current, url).toBe(name);
      seen.push({ ...h, current: undefined });
      await page.screenshot({ path: join(artifacts, `first-look-header-${name.replace(' ', '-').toLowerCase()}-phone.png`) });
      // Every link leads to its page under the secret.
      const hrefs = await page.locator('header nav a').evaluateAll((as) => as.map((a) => (a as HTMLAnchorElement).href));
      expect(hrefs, url).toEqual([`${base}/${SECRET}/`, `${base}/${SECRET}/dashboard`, `${base}/${SECRET}/doctor`].map((u, i) => (i === 0 && url === `${base}/${SECRET}` ? `${base}/${SECRET}` : u)));
    }
    expect(seen[0]).toEqual({ title: 'scanrelay', links: ['Manual scan', 'Dashboard', 'Path doctor'], current: undefined, currentWeight: '600', font: seen[0].font, linkFont: '15px', at: seen[0].at });
    expect(seen[1]).toEqual(seen[0]);
    expect(seen[2]).toEqual(seen[0]);
  });

  it("the Unraid template's WebUI opens a page that says where the dashboard is, and takes one there", async () => {
    const webUi = /<WebUI>http:\/\/\[IP\]:\[PORT:3468\](\/[^<]*)<\/WebUI>/.exec(readFileSync(join(repoRoot, 'deploy', 'unraid', 'scanrelay.xml'), 'utf8'))?.[1];
    expect(webUi).toBe('/');
    const before = t.logs.length;
    const res = await page.goto(`${base}${webUi}`);
    expect(res?.status()).toBe(200);
    const text = await page.locator('main').textContent();
    expect(text).toContain('Dashboard: /<SERVER_PASS>/dashboard');
    expect(text).toMatch(/SERVER_PASS is in config\.json .*start-up banner/s);
    expect(await page.content()).not.toContain(SECRET);
    // Nothing in the log: no WARN about a wrong secret, no line at all.
    expect(t.logs.slice(before)).toEqual([]);
    await page.screenshot({ path: join(artifacts, 'first-look-front-page-phone.png'), fullPage: true });
    await page.getByLabel('SERVER_PASS').fill(SECRET);
    await page.getByRole('button', { name: 'Open the dashboard' }).click();
    await page.waitForURL(`${base}/${SECRET}/dashboard`);
    expect(await page.locator('h2#queue-h').count()).toBe(1);
  });
});
