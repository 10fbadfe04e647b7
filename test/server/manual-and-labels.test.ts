// SERVER_ALLOW_MANUAL_SCAN false closes every manual entry point with a 403 that says so; metric labels come
// from closed sets, so a made-up eventType can never become a Prometheus label.
import { afterEach, describe, expect, it } from 'vitest';
import { eventsBySource } from '../../src/triggers/events.js';
import { SECRET, testService, type TestService } from '../support/service.js';

/** The samples of one counter family: its label sets and values (the format itself is checked in metrics.test.ts). */
function samplesOf(text: string, name: string): { labels: Record<string, string>; value: number }[] {
  return text
    .split('\n')
    .filter((l) => l.startsWith(`${name}{`))
    .map((l) => {
      const [, labels, value] = /^[^{]+\{(.*)\} (\S+)$/.exec(l)!;
      return { labels: Object.fromEntries([...labels.matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1], m[2]])), value: Number(value) };
    });
}

let t: TestService;
afterEach(async () => t?.close());

describe('SERVER_ALLOW_MANUAL_SCAN: false', () => {
  it('closes the page, the manual POST (form and JSON) and the control API scan, each with a 403 naming the key', async () => {
    t = await testService({ config: { SERVER_ALLOW_MANUAL_SCAN: false } });
    const base = await t.service.listen(0, '127.0.0.1');
    const answers = [
      await fetch(`${base}/${SECRET}`),
      await fetch(`${base}/${SECRET}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'eventType=Manual&filepath=/mnt/unionfs/Media/tv/S/e.mkv' }),
      await fetch(`${base}/${SECRET}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ eventType: 'Manual', filepath: '/mnt/unionfs/Media/tv/S/e.mkv' }) }),
      await fetch(`${base}/api/${SECRET}/scan`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ path: '/mnt/unionfs/Media/tv/S/e.mkv' }) }),
    ];
    for (const res of answers) {
      expect(res.status, res.url).toBe(403);
      expect((await res.json()).error).toMatch(/manual scans are off: set SERVER_ALLOW_MANUAL_SCAN to true/);
    }
    expect(t.service.queue.count()).toBe(0);
    // Webhooks are not manual: they still work.
    const hook = await fetch(`${base}/${SECRET}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ eventType: 'Download', series: { path: '/mnt/unionfs/Media/tv/S' }, episodeFile: { path: '/mnt/unionfs/Media/tv/S/e.mkv' } }) });
    expect(hook.status).toBe(200);
    expect(t.service.queue.count()).toBe(1);
  });

  it('a browser opening the URL gets a page saying it is the webhook URL and how to turn manual scans on', async () => {
    t = await testService({ config: { SERVER_ALLOW_MANUAL_SCAN: false } });
    const res = await t.service.app.inject({ url: `/${SECRET}`, headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.body).toContain("scanrelay's webhook URL");
    expect(res.body).toContain('<code>"SERVER_ALLOW_MANUAL_SCAN": true</code>');
    expect(res.body).not.toContain('<form');
    expect(res.body).not.toContain(SECRET);
    const json = await t.service.app.inject({ url: `/${SECRET}`, headers: { accept: 'application/json' } });
    expect(json.statusCode).toBe(403);
  });

  it('with SERVER_ALLOW_MANUAL_SCAN true the control API scan works', async () => {
    t = await testService({ config: { SERVER_ALLOW_MANUAL_SCAN: true } });
    const res = await t.service.app.inject({ method: 'POST', url: `/api/${SECRET}/scan`, payload: { path: '/mnt/unionfs/Media/tv/S/e.mkv' } });
    expect(res.statusCode).toBe(200);
    expect(t.service.queue.count()).toBe(1);
  });
});

describe('metric labels come from closed sets', () => {
  it('an unknown eventType (2 KB of it) is counted as "other", never as a label of its own', async () => {
    t = await testService();
    const base = await t.service.listen(0, '127.0.0.1');
    const weird = 'Evil' + 'x'.repeat(2048);
    for (const eventType of [weird, 'AnotherMadeUpEvent', 'Download']) {
      const res = await fetch(`${base}/${SECRET}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'user-agent': 'Sonarr/4.0.17.2952 (ubuntu 24.04)' },
        body: JSON.stringify({ eventType, series: { path: '/mnt/unionfs/Media/tv/S' }, episodeFile: { path: '/mnt/unionfs/Media/tv/S/e.mkv' } }),
      });
      expect(res.status).toBe(200);
    }
    await t.service.app.inject({ method: 'POST', url: `/${SECRET}`, payload: { eventType: 'Nonsense' } });
    await t.service.app.inject({ method: 'POST', url: `/${SECRET}`, payload: 'not a scan' });
    const text = await (await fetch(`${base}/metrics`)).text();
    expect(text).not.toContain('Evil');
    expect(text).not.toContain('AnotherMadeUpEvent');
    expect(text).not.toContain('Nonsense');
    const samples = samplesOf(text, 'scanrelay_requests_total');
    expect(samples.length).toBeGreaterThan(0);
    const value = (labels: Record<string, string>) => samples.find((s) => Object.entries(labels).every(([k, v]) => s.labels[k] === v))?.value;
    expect(value({ source: 'sonarr', event: 'other', outcome: 'ignored' })).toBe(2);
    expect(value({ source: 'sonarr', event: 'Download', outcome: 'queued' })).toBe(1);
    expect(value({ source: 'unknown', event: 'other', outcome: 'ignored' })).toBe(1);
    for (const s of samples) {
      expect(Object.keys(eventsBySource).concat('other'), s.labels.source).toContain(s.labels.source);
      expect([...(eventsBySource[s.labels.source] ?? []), 'other'], s.labels.event).toContain(s.labels.event);
      expect(['queued', 'ignored', 'unmatched', 'rejected', 'test', 'other']).toContain(s.labels.outcome);
    }
    // The answer and the log line quote at most the start of the name.
    expect(t.logs.join('').includes('x'.repeat(300))).toBe(false);
  });
});
