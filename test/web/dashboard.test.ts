// The pages in real headless Chromium on a phone-sized screen: manual scan -> dashboard queue (live),
// scan now with confirmation -> history, and the path doctor. Screenshots go to test-artifacts/.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../support/fixtures.js';
import { SECRET, testService, type TestService } from '../support/service.js';
import { chromiumPages, type ChromiumPages } from '../support/chromium.js';

const artifacts = join(repoRoot, 'test-artifacts');

describe('dashboard and doctor in Chromium', () => {
  let t: TestService;
  let browser: ChromiumPages;
  let page: Page;
  let base: string;

  beforeAll(async () => {
    mkdirSync(artifacts, { recursive: true });
    t = await testService();
    base = await t.service.listen(0, '127.0.0.1');
    browser = await chromiumPages();
    page = await browser.newPage({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 1 });
    page.setDefaultTimeout(5000);
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });
  /** A manual request for `path`, as the scan form sends it. */
  const request = (path: string) =>
    t.service.app.inject({ method: 'POST', url: `/${SECRET}`, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: 'eventType=Manual&filepath=' + encodeURIComponent(path) });

  it('a manual scan from the page shows up in the dashboard queue', async () => {
    await page.goto(`${base}/${SECRET}`);
    await page.getByLabel('Path to scan').fill('/mnt/unionfs/Media/movies/Heat (1995)/Heat.mkv');
    await page.getByRole('button', { name: 'Scan' }).click();
    await expect.poll(() => page.locator('.outcome').textContent()).toContain('Folder to scan: /data/media/movies/Heat (1995)');

    await page.getByRole('link', { name: 'Dashboard' }).click();
    await page.waitForURL(`${base}/${SECRET}/dashboard`);
    const card = page.locator('#queue li', { hasText: '/data/media/movies/Heat (1995)' });
    await expect.poll(() => card.count()).toBe(1);
    expect(await card.textContent()).toMatch(/Due\s*in 3m 0s/);
    expect(await card.textContent()).toContain('manual / Manual');
    expect(await page.content()).not.toContain(SECRET);
  });

  it('updates live when another request arrives (server-sent events)', async () => {
    await expect.poll(() => page.locator('#live-status').textContent()).toBe('Live');
    await request('/mnt/unionfs/Media/tv/Show/Season 01/e1.mkv');
    await expect.poll(() => page.locator('#queue li', { hasText: '/data/media/tv/Show/Season 01' }).count(), { timeout: 5000 }).toBe(1);
    await page.screenshot({ path: join(artifacts, 'dashboard-queue-phone.png'), fullPage: true });
  });

  it('scan now asks first, then the folder reaches Plex and moves to history', async () => {
    const card = page.locator('#queue li', { hasText: '/data/media/movies/Heat (1995)' });
    t.plex.onDisk.add('/data/media/movies/Heat (1995)/Heat.mkv');
    await card.getByRole('button', { name: 'Scan now: /data/media/movies/Heat (1995)' }).click();
    await card.getByRole('button', { name: 'Yes, scan now /data/media/movies/Heat (1995)' }).click();
    await expect.poll(() => page.locator('.notice').textContent()).toContain('Scanning now: /data/media/movies/Heat (1995)');
    await expect.poll(() => t.plex.refreshes, { timeout: 5000 }).toEqual([{ section: '1', path: '/data/media/movies/Heat (1995)' }]);
    const done = page.locator('#history li', { hasText: '/data/media/movies/Heat (1995)' });
    await expect.poll(() => done.count(), { timeout: 10_000 }).toBe(1);
    // Both stages: the delivery, then the follow-up that found the file in the library.
    expect(await done.textContent()).toContain('confirmed');
    expect(await done.textContent()).toMatch(/Delivered in\s*\d/);
    expect(await done.textContent()).toMatch(/Followed for\s*\d/);
    expect(await page.locator('#targets').textContent()).toMatch(/plex\s*plex\s*up/);
    await page.screenshot({ path: join(artifacts, 'dashboard-history-phone.png'), fullPage: true });
  });

  it('drop asks first and removes the folder', async () => {
    const card = page.locator('#queue li', { hasText: '/data/media/tv/Show/Season 01' });
    await card.getByRole('button', { name: 'Drop: /data/media/tv/Show/Season 01' }).click();
    await card.getByRole('button', { name: 'Yes, drop /data/media/tv/Show/Season 01' }).click();
    await expect.poll(() => page.locator('.notice').textContent()).toContain('Dropped');
    expect(t.service.queue.count()).toBe(0);
  });

  it('the path doctor explains a path that matches no library and suggests a mapping', async () => {
    await page.getByRole('link', { name: 'Path doctor' }).click();
    await page.getByLabel('Path to explain').fill('/storage/TV/Show/Season 01/e1.mkv');
    await page.getByRole('button', { name: 'Explain' }).click();
    await expect.poll(() => page.locator('#verdict').textContent()).toContain('unmatched');
    expect(await page.locator('#suggestion').textContent()).toBe('"/data/media/tv/": ["/storage/TV/"]');
    // The key as it would read: the configured entry kept beside the new one.
    expect(await page.locator('#merged').textContent()).toBe('"SERVER_PATH_MAPPINGS": {\n  "/data/media/": ["/mnt/unionfs/Media/", "My Drive/Media/", "D:\\\\Media\\\\"],\n  "/data/media/tv/": ["/storage/TV/"]\n}');
    await page.screenshot({ path: join(artifacts, 'doctor-unmatched-phone.png'), fullPage: true });

    await page.getByLabel('Path to explain').fill('/mnt/unionfs/Media/tv/Show/Season 01/e1.mkv');
    await page.getByRole('button', { name: 'Explain' }).click();
    await expect.poll(() => page.locator('#verdict').textContent()).toContain('Would scan');
    expect(await page.locator('#explanation').textContent()).toContain('TV Shows (section 2)');
    // Nothing on the page is wider than the phone.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await page.screenshot({ path: join(artifacts, 'doctor-scan-phone.png'), fullPage: true });
  });

  /**
   * The dashboard open on `folder`'s card, and the next live update held on its way (brought by a request for
   * `another`) until `land` lets it through and gives it time to replace the page.
   */
  async function withUpdateOnItsWay(folder: string, another: string) {
    await request(`/mnt/unionfs/Media/tv/Show/${folder.split('/').pop()}/e1.mkv`);
    await page.goto(`${base}/${SECRET}/dashboard`);
    await expect.poll(() => page.locator('#live-status').textContent()).toBe('Live');
    const card = page.locator('#queue li', { hasText: folder });
    await expect.poll(() => card.count()).toBe(1);
    let asked!: () => void;
    const onItsWay = new Promise<void>((resolve) => (asked = resolve));
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    await page.route('**/dashboard/live', async (route) => {
      asked();
      await released;
      await route.continue();
    });
    await request(another);
    await onItsWay;
    const land = async () => {
      const arrived = page.waitForResponse('**/dashboard/live');
      release();
      await arrived;
      await page.evaluate(() => new Promise((resolve) => setTimeout(resolve, 100)));
      await page.unroute('**/dashboard/live');
    };
    return { card, land };
  }

  it('a confirmation opened while a live update is on its way stays open when the update arrives', async () => {
    const folder = '/data/media/tv/Show/Season 02';
    const { card, land } = await withUpdateOnItsWay(folder, '/mnt/unionfs/Media/tv/Show/Season 03/e1.mkv');
    await card.getByRole('button', { name: `Scan now: ${folder}` }).click();
    await land();
    expect(await card.locator('details[open]').count()).toBe(1);
    await card.getByRole('button', { name: `Yes, scan now ${folder}` }).click();
    await expect.poll(() => page.locator('.notice').textContent()).toContain(`Scanning now: ${folder}`);
  });

  it('a press begun before a live update arrives and released after it still opens the confirmation', async () => {
    const folder = '/data/media/tv/Show/Season 04';
    const { card, land } = await withUpdateOnItsWay(folder, '/mnt/unionfs/Media/tv/Show/Season 05/e1.mkv');
    // The button pressed, the update let through onto the page, then the button released.
    const box = (await card.getByRole('button', { name: `Scan now: ${folder}` }).boundingBox())!;
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.mouse.down();
    await land();
    await page.mouse.up();
    expect(await card.locator('details[open]').count()).toBe(1);
    await card.getByRole('button', { name: `Yes, scan now ${folder}` }).click();
    await expect.poll(() => page.locator('.notice').textContent()).toContain(`Scanning now: ${folder}`);
    // Released, the page takes live updates again.
    await request('/mnt/unionfs/Media/tv/Show/Season 06/e1.mkv');
    await expect.poll(() => page.locator('#queue li', { hasText: '/data/media/tv/Show/Season 06' }).count(), { timeout: 5000 }).toBe(1);
  });
});
