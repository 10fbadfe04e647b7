// The dashboard's charts in real headless Chromium: empty at first, then after a scripted hour of traffic
// (webhooks every minute, one server failing for ten minutes), at phone and desktop width, updating live.
// Screenshots go to test-artifacts/.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ScanOutcome, Target } from '../../src/scan.js';
import { repoRoot } from '../support/fixtures.js';
import { SECRET, testService, type TestService } from '../support/service.js';
import { chromiumPages, type ChromiumPages } from '../support/chromium.js';

const artifacts = join(repoRoot, 'test-artifacts');
const MIN = 60_000;

/** A media server that scans at once; `failing` makes it answer 500 (retried later). */
function server(name: string, unmatched: (folder: string) => boolean = () => false) {
  const state = { failing: false };
  const target: Target = {
    name,
    kind: 'test',
    pauseMs: 0,
    scan: async (folder): Promise<ScanOutcome> =>
      state.failing ? { status: 'retry', error: 'HTTP 500', targetDown: false } : unmatched(folder) ? { status: 'unmatched', detail: 'in no library' } : { status: 'scanned' },
    available: async () => ({ ok: true }),
  };
  return { target, state };
}

describe('dashboard charts in Chromium', () => {
  let t: TestService;
  let browser: ChromiumPages;
  let base: string;
  const plex = server('plex', (f) => f.includes('Extras'));
  const jellyfin = server('jellyfin');

  const post = (path: string) =>
    t.service.app.inject({
      method: 'POST',
      url: `/${SECRET}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: `eventType=Manual&filepath=${encodeURIComponent(path)}`,
    });

  async function open(width: number, height: number): Promise<Page> {
    const page = await browser.newPage({ viewport: { width, height }, deviceScaleFactor: 1 });
    page.setDefaultTimeout(5000);
    // The page refreshes its live part once its event stream opens: wait for that, so nothing read below is
    // replaced while the test looks at it.
    await page.addInitScript(() => {
      document.addEventListener('DOMContentLoaded', () => {
        const live = document.getElementById('live')!;
        new MutationObserver((_, observer) => {
          observer.disconnect();
          (window as unknown as { refreshed: boolean }).refreshed = true;
        }).observe(live, { childList: true });
      });
    });
    await page.goto(`${base}/${SECRET}/dashboard`);
    await page.waitForFunction(() => (window as unknown as { refreshed?: boolean }).refreshed === true, undefined, { timeout: 10_000 });
    return page;
  }

  /** What Chromium drew: each chart's accessible name, its line lengths and its strip cells. */
  const drawn = (page: Page) =>
    page.evaluate(() =>
      [...document.querySelectorAll('figure.chart')].map((f) => ({
        id: f.id,
        caption: f.querySelector('figcaption')?.textContent,
        summary: f.querySelector('.sum')?.textContent,
        width: f.getBoundingClientRect().width,
        lines: [...f.querySelectorAll('path')].map((p) => Math.round((p as SVGPathElement).getTotalLength())),
        cells: [...f.querySelectorAll('rect')].map((r) => r.getAttribute('class')),
        svgHeight: Math.round(f.querySelector('svg')?.getBoundingClientRect().height ?? 0),
      })),
    );

  beforeAll(async () => {
    mkdirSync(artifacts, { recursive: true });
    t = await testService({ targets: [plex.target, jellyfin.target] });
    browser = await chromiumPages();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('without data: every chart is there, empty, and says so in words', async () => {
    base = await t.service.listen(0, '127.0.0.1');
    await t.service.processor.stop();
    const page = await open(390, 844);
    const charts = await drawn(page);
    expect(charts.map((c) => c.id)).toEqual(['chart-rate', 'chart-depth', 'chart-latency', 'chart-outcomes']);
    expect(charts.slice(0, 3).map((c) => c.summary)).toEqual([
      'No requests or scans in the last 24 hours.',
      'The queue was empty for the last 24 hours.',
      'request to scan: nothing finished in the last 24 hours.',
    ]);
    expect(await page.locator('svg text', { hasText: 'no data yet' }).count()).toBe(3);
    await page.locator('#charts-h').scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(artifacts, 'dashboard-charts-empty-phone.png'), fullPage: true });
    await page.close();
  });

  it('after a scripted hour of traffic the charts show it, with text alternatives, at phone width', async () => {
    // An hour, minute by minute: a few episodes land every minute, a movie's extras now and then; the
    // processor runs its passes as the clock moves (SERVER_SCAN_DELAY 180 s). Jellyfin fails 40-50 min in.
    for (let m = 0; m < 60; m++) {
      jellyfin.state.failing = m >= 40 && m < 50;
      for (let k = 0; k < 1 + (m % 4); k++) await post(`/mnt/unionfs/Media/tv/Show ${m % 7}/Season 0${k + 1}/e${m}.mkv`);
      if (m % 15 === 0) await post(`/mnt/unionfs/Media/movies/Film ${m}/Extras/trailer.mkv`);
      t.clock.advance(MIN);
      await t.service.processor.drain();
    }
    jellyfin.state.failing = false;
    t.clock.advance(10 * MIN);
    await t.service.processor.drain();
    expect(t.service.queue.history(1_000).length).toBeGreaterThan(100);

    const page = await open(390, 844);
    const charts = await drawn(page);
    const [rate, depth, latency, outcomes] = charts;
    expect(rate.summary).toMatch(/^Last 24 hours: \d+ requests? and \d+ scans?\. The busiest 10 minutes: \d+ requests? \((in the last \d+ min|\d+–\d+ min ago|about \d+ h ago)\)/);
    expect(depth.summary).toMatch(/^0 folders queued now; at most \d+ folders?, (in the last \d+ min|\d+–\d+ min ago|about \d+ h ago)\.$/);
    expect(latency.summary).toMatch(/^request to scan: lately half within \d+m, 95% within \d+m/);
    // Lines with length: drawn, not just declared.
    expect(Math.min(...rate.lines)).toBeGreaterThan(50);
    expect(depth.lines[0]).toBeGreaterThan(50);
    // Request to scan, and each stage that scans went through (the delivery always; Plex's follow-up when confirmed).
    expect(latency.lines.length).toBeGreaterThanOrEqual(4);
    expect(latency.lines.length % 2).toBe(0);
    expect(latency.summary).toMatch(/delivery: lately half within/);
    expect(Math.min(...latency.lines)).toBeGreaterThan(0);
    // Jellyfin's failures show red among its cells; Plex's extras amber.
    expect(outcomes.cells).toContain('o-bad');
    expect(outcomes.cells).toContain('o-warn');
    expect(outcomes.summary).toContain('red: failed and retried');
    expect(await page.locator('#chart-outcomes li', { hasText: 'jellyfin, latest 48 finished in the last 24 hours:' }).textContent()).toMatch(/\d+ retry/);
    // Text alternatives: each picture is an image whose name is its caption and summary.
    for (const name of ['Requests and scans per 10 minutes', 'Queue depth (folders)', 'Scan latency, p50 and p95 per hour']) {
      await expect.poll(() => page.getByRole('img', { name: new RegExp(`^${name.replace(/[()]/g, '\\$&')} `) }).count()).toBe(1);
    }
    expect(await page.getByRole('img', { name: /^plex, latest \d+ finished in the last 24 hours: \d+ scanned, \d+ unmatched\.$/ }).count()).toBe(1);
    // Phone width: nothing wider than the screen, charts one per row and tall enough to read.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    for (const c of charts) expect(c.width).toBeLessThanOrEqual(390);
    expect(rate.svgHeight).toBeGreaterThan(80);
    await page.locator('#charts-h').scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(artifacts, 'dashboard-charts-phone.png'), fullPage: true });
    await page.locator('section[aria-labelledby=charts-h]').screenshot({ path: join(artifacts, 'dashboard-charts-phone-section.png') });
    await page.close();

    const wide = await open(1280, 900);
    const side = await wide.evaluate(() => [...document.querySelectorAll('figure.chart')].map((f) => Math.round(f.getBoundingClientRect().top)));
    // Two charts side by side on a desktop.
    expect(side[0]).toBe(side[1]);
    await wide.locator('section[aria-labelledby=charts-h]').screenshot({ path: join(artifacts, 'dashboard-charts-desktop.png') });
    await wide.close();
  });

  it('update live with the rest of the page', async () => {
    t.service.processor.start();
    const page = await open(390, 844);
    await expect.poll(() => page.locator('#live-status').textContent()).toBe('Live');
    const before = await page.locator('#chart-rate .sum').textContent();
    const requests = Number(before!.match(/(\d+) requests/)![1]);
    await post('/mnt/unionfs/Media/tv/Late Show/Season 01/e1.mkv');
    await expect.poll(() => page.locator('#chart-rate .sum').textContent(), { timeout: 5000 }).toContain(`${requests + 1} requests`);
    expect(await page.locator('#chart-depth .sum').textContent()).toMatch(/^1 folder queued now/);
    await page.close();
  });
});
