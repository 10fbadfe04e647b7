// The dashboard's charts: the numbers behind them (src/server/chart-data.ts) and their SVG with text
// alternatives, with data and without.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Activity } from '../../src/activity.js';
import { ManualClock } from '../../src/clock.js';
import { Queue } from '../../src/queue/store.js';
import { chartData, FailureLog, LATENCY_SERIES } from '../../src/server/chart-data.js';
import { chartsSection } from '../../src/server/charts.js';

const MIN = 60_000;
const HOUR = 60 * MIN;
const open: Queue[] = [];
afterEach(() => open.splice(0).forEach((q) => q.close()));

function queue() {
  const clock = new ManualClock(Date.UTC(2026, 5, 1, 12, 0));
  const q = new Queue(join(mkdtempSync(join(tmpdir(), 'scanrelay-charts-')), 'queue.db'), clock, { delayMs: 0 });
  open.push(q);
  return { q, clock };
}

function finished(q: Queue, folder: string, firstAt: number, finishedAt: number, targets: [string, string][], requests = 1, stages: { deliveryMs?: number; followMs?: number } = {}): void {
  const insert = q.db.prepare(
    `INSERT INTO history (folder, source, event, requests, first_at, finished_at, target, outcome, detail_id, attempts, delivery_ms, follow_ms)
     VALUES (?, 'sonarr', 'Download', ?, ?, ?, ?, ?, NULL, 1, ?, ?)`,
  );
  for (const [target, outcome] of targets) insert.run(folder, requests, firstAt, finishedAt, target, outcome, stages.deliveryMs ?? null, stages.followMs ?? null);
}

/** Every aria-labelledby id names an element of the page. */
function labelsResolve(html: string): void {
  const ids = new Set([...html.matchAll(/ id="([^"]+)"/g)].map((m) => m[1]));
  const refs = [...html.matchAll(/aria-labelledby="([^"]+)"/g)].flatMap((m) => m[1].split(' '));
  expect(refs.length).toBeGreaterThan(0);
  for (const r of refs) expect(ids.has(r), r).toBe(true);
}

describe('charts without data', () => {
  it('draw empty frames that say so, in words too', () => {
    const { q, clock } = queue();
    const d = chartData(q.db, clock.now());
    expect(d.requests.every((v) => v === 0) && d.scans.every((v) => v === 0) && d.depth.every((v) => v === 0)).toBe(true);
    expect(d.latency[0].p50.every((v) => v === null)).toBe(true);
    const html = chartsSection(d, ['plex']);
    expect(html.match(/<svg viewBox="0 0 320 120" role="img"/g)).toHaveLength(3);
    expect(html.match(/>no data yet</g)).toHaveLength(3);
    expect(html).toContain('No requests or scans in the last 24 hours.');
    expect(html).toContain('The queue was empty for the last 24 hours.');
    expect(html).toContain('request to scan: nothing finished in the last 24 hours.');
    expect(html).toContain('plex: nothing finished in the last 24 hours.');
    expect(html).not.toMatch(/<path [^>]*d=""/);
    labelsResolve(html);
  });

  it("a scan the server took and that is still followed is said beside the strip, which counts only what finished", () => {
    const { q, clock } = queue();
    const html = chartsSection(chartData(q.db, clock.now()), ['plex', 'jellyfin'], new Map([['plex', 1]]));
    expect(html).toContain('plex: nothing finished in the last 24 hours. 1 being followed now (in the queue).');
    expect(html).toContain('jellyfin: nothing finished in the last 24 hours.</span>');
  });

  it('with no media server configured, the outcome chart says so', () => {
    const { q, clock } = queue();
    expect(chartsSection(chartData(q.db, clock.now()), [])).toContain('No media server is configured.');
  });
});

describe('charts with data', () => {
  it('count requests and scans per minute, queue depth and latency percentiles from history and the queue', () => {
    const { q, clock } = queue();
    const now = clock.now();
    // Two hours ago: 30 folders asked within one 10-minute bucket (3 merged requests each), each scanned on
    // two servers 5 minutes later.
    const t0 = now - 2 * HOUR;
    for (let i = 0; i < 30; i++) finished(q, `/tv/Show ${i}`, t0 + i * 1000, t0 + 5 * MIN + i * 1000, [['plex', 'scanned'], ['jellyfin', 'scanned']], 3);
    // One folder still queued, asked for 20 minutes ago.
    clock.set(now - 20 * MIN);
    q.enqueue({ folder: '/movies/Heat (1995)', priority: 0, source: 'radarr', event: 'Download', deleted: false });
    clock.set(now);
    const d = chartData(q.db, now);
    expect(d.requests.length).toBe(144);
    const perMinute = (c: number) => c / 10;
    expect(d.requests.reduce((a, b) => a + b, 0)).toBeCloseTo(perMinute(90 + 1));
    expect(Math.max(...d.requests)).toBeCloseTo(perMinute(90));
    expect(d.scans.reduce((a, b) => a + b, 0)).toBeCloseTo(perMinute(60));
    // 30 folders waited between t0 and t0 + 5 min; the queued one is there at the end.
    expect(Math.max(...d.depth)).toBe(30);
    expect(d.depth.at(-1)).toBe(1);
    expect(d.queuedNow).toBe(1);
    const p50 = d.latency[0].p50.filter((v) => v !== null);
    expect(p50).toEqual([5 * MIN]);
    expect(d.strips.map((s) => [s.target, s.outcomes.length])).toEqual([['jellyfin', 30], ['plex', 30]]);

    const html = chartsSection(d, ['plex', 'jellyfin']);
    expect(html).not.toContain('no data yet');
    expect(html).toContain('Last 24 hours: 91 requests and 60 scans. The busiest 10 minutes: 90 requests (about 2 h ago); 60 scans (about 2 h ago).');
    expect(html).toContain('1 folder queued now; at most 30 folders, about 2 h ago.');
    expect(html).toContain('Requests and scans per 10 minutes');
    expect(html).toContain('request to scan: lately half within 5m, 95% within 5m');
    expect(html).toContain('plex, latest 30 finished in the last 24 hours: 30 scanned.');
    for (const path of html.matchAll(/<path class="[^"]*" d="([^"]*)"/g)) expect(path[1]).toMatch(/^M\d/);
    labelsResolve(html);
  });

  it('each target strip shows its latest outcomes in time order, failures (retries) included, escaped', () => {
    const { q, clock } = queue();
    const now = clock.now();
    const activity = new Activity();
    const failures = new FailureLog(activity, () => clock.now());
    finished(q, '/tv/<b>Bold</b>', now - 3 * HOUR, now - 3 * HOUR + MIN, [['plex', 'scanned']]);
    clock.set(now - 2 * HOUR);
    activity.emit('delivery', { folder: '/tv/Down', target: 'plex', outcome: 'retry', detail: 'HTTP 500', latencyMs: 1 });
    activity.emit('delivery', { folder: '/tv/Up', target: 'plex', outcome: 'scanned', latencyMs: 1 });
    clock.set(now);
    finished(q, '/tv/Nowhere', now - HOUR, now - HOUR + MIN, [['plex', 'unmatched']]);
    const d = chartData(q.db, now, { failures: failures.list() });
    expect(d.strips[0].outcomes.map((o) => o.outcome)).toEqual(['scanned', 'retry', 'unmatched']);
    const html = chartsSection(d, ['plex']);
    expect(html).toContain('plex, latest 3 finished in the last 24 hours: 1 scanned, 1 retry, 1 unmatched.');
    expect(html).toMatch(/class="o-ok".*class="o-bad".*class="o-warn"/s);
    expect(html).toContain('/tv/&lt;b&gt;Bold&lt;/b&gt;');
    expect(html).not.toContain('<b>Bold</b>');
    failures.close();
    expect(activity.listenerCount('delivery')).toBe(0);
  });

  it('latency has three series: request to outcome, the delivery and the follow-up of each scan; another is one line in LATENCY_SERIES', () => {
    const { q, clock } = queue();
    const now = clock.now();
    finished(q, '/tv/A', now - HOUR - 4 * MIN, now - HOUR, [['plex', 'confirmed']], 1, { deliveryMs: 2_000, followMs: MIN });
    LATENCY_SERIES.push({ key: 'quarter', label: 'quarter', sql: '(finished_at - first_at) / 4' });
    try {
      const d = chartData(q.db, now);
      expect(d.latency.map((s) => [s.key, s.p50.find((v) => v !== null)])).toEqual([
        ['delivery', 4 * MIN],
        ['stage-delivery', 2_000],
        ['stage-follow', MIN],
        ['quarter', MIN],
      ]);
      const html = chartsSection(d, ['plex']);
      expect(html).toContain('follow-up p50');
      expect(html).toContain('follow-up: lately half within 60s');
    } finally {
      LATENCY_SERIES.pop();
    }
  });


  it('history older than the window is left out', () => {
    const { q, clock } = queue();
    const now = clock.now();
    finished(q, '/tv/Old', now - 30 * HOUR, now - 29 * HOUR, [['plex', 'scanned']]);
    const d = chartData(q.db, now);
    expect(d.scans.every((v) => v === 0)).toBe(true);
    expect(d.strips).toEqual([]);
  });
});

describe('words a person reads on the charts', () => {
  it('one request two minutes ago: singular words, "in the last 10 min", whole numbers on the axis', () => {
    const { q, clock } = queue();
    const now = clock.now();
    finished(q, '/tv/Show/Season 01', now - 2 * MIN, now - MIN, [['plex', 'scanned']], 1);
    finished(q, '/tv/Show/Season 02', now - 25 * MIN, now - 24 * MIN, [['plex', 'scanned']], 1);
    clock.set(now - 25 * MIN);
    q.enqueue({ folder: '/movies/Heat (1995)', priority: 0, source: 'radarr', event: 'Download', deleted: false });
    clock.set(now);
    const html = chartsSection(chartData(q.db, now), ['plex']);
    expect(html).toContain('Last 24 hours: 3 requests and 2 scans. The busiest 10 minutes: 2 requests (20–30 min ago); 1 scan (20–30 min ago).');
    expect(html).toContain('1 folder queued now; at most 2 folders, 20–30 min ago.');
    expect(html).not.toMatch(/\b1 (requests|scans|folders)\b/);
    // The count axis reads 0, 1, 2: never 0.5 of a request.
    expect(html).not.toMatch(/>0\.5</);
    expect(html).toMatch(/>2<\/text>/);
  });
});
