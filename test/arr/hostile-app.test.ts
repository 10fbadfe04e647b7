// Issue 52: a hostile Sonarr of the test's own (test/fakes/arr-app.ts on 127.0.0.1) against a real service, each
// attack of the findings replayed: its URL's password on the public /health, an answer too large to read
// met at every catch-up, a record dated 9999-12-31, a version of 250 KB.
import { afterEach, describe, expect, it } from 'vitest';
import { secretsOf } from '../../src/config/secrets.js';
import type { Config } from '../../src/config/schema.js';
import { FakeArrApp } from '../fakes/arr-app.js';
import { SECRET, testService, type TestService } from '../support/service.js';
import { until } from '../support/until.js';
import { ARR_KEYS } from './harness.js';

const PASSWORD = 'proxy-pass-9e1c44d0';
let t: TestService | undefined;
let sonarr: FakeArrApp | undefined;
afterEach(async () => {
  await t?.close();
  await sonarr?.stop();
  t = sonarr = undefined;
});

async function start(url: (fake: string) => string = (u) => u): Promise<{ t: TestService; sonarr: FakeArrApp }> {
  sonarr = await new FakeArrApp('sonarr', ARR_KEYS.sonarr).start();
  const entry = { NAME: 'sonarr', TYPE: 'sonarr', URL: url(sonarr.url), API_KEY: sonarr.apiKey, CATCH_UP_INTERVAL: 300, RECONCILE_INTERVAL: 0 } as const;
  t = await testService({ config: { SERVER_PATH_MAPPINGS: { '/data/media/tv/': ['/tv/'] }, ARR: [entry] } as Partial<Config> });
  return { t, sonarr };
}

const health = async (s: TestService) => (await s.service.app.inject({ method: 'GET', url: '/health' })).json() as { status: string; arr: { version: string | null; error: string | null; skipped: string | null; cursor: string | null }[] };
const page = async (s: TestService) => (await s.service.app.inject({ method: 'GET', url: `/${SECRET}/dashboard` })).body;
const lines = (s: TestService) => s.logs.flatMap((l) => l.split('\n').filter(Boolean)).map((l) => JSON.parse(l) as { level: string; msg: string });
const warnings = (s: TestService) => lines(s).filter((l) => l.level === 'warn').map((l) => l.msg);
const imported = (n: number) => ({ episodeId: n, seriesId: n, sourceTitle: `S.${n}`, downloadId: `d${n}`, eventType: 'downloadFolderImported', data: { importedPath: `/tv/Show ${n}/Season 01/e.mkv` }, id: n });

describe('finding 3: the password of an ARR URL', () => {
  it('is on no page and in no line when the app answers its status without a version', async () => {
    const s = await start((u) => u.replace('http://', `http://relay:${PASSWORD}@`));
    s.sonarr.failureFor = /system\/status/;
    s.sonarr.failure = { status: 200, body: '{"appName":"Sonarr"}' };
    await s.t.service.arr!.catchUp();
    const shown = await health(s.t);
    expect(shown.arr[0].error).toMatch(/without a version: is http:\/\/127\.0\.0\.1:\d+ a sonarr\?/);
    expect(shown.status).toBe('degraded');
    expect(JSON.stringify(shown)).not.toContain(PASSWORD);
    expect(await page(s.t)).not.toContain(PASSWORD);
    expect(s.t.logs.join('')).not.toContain(PASSWORD);
  });

  it("is among the secrets every logger scrubs", () => {
    expect(secretsOf({ ARR: [{ NAME: 'a', TYPE: 'sonarr', URL: `http://u:${PASSWORD}@sonarr:8989`, API_KEY: 'k', CATCH_UP_INTERVAL: 300 }] } as unknown as Config)).toContain(PASSWORD);
  });
});

describe('finding 6: what the app chose to say', () => {
  it('a 250 KB version, with escape sequences, is shown cut and escaped on /health and the dashboard', async () => {
    const s = await start();
    s.sonarr.version = `4.0.\u001b[2J${'9'.repeat(250_000)}`;
    await s.t.service.arr!.catchUp();
    const { version } = (await health(s.t)).arr[0];
    expect(version!.length).toBeLessThanOrEqual(64);
    expect(version).toMatch(/^4\.0\.\\u001b\[2J9+…$/);
    expect((await page(s.t)).length).toBeLessThan(200_000);
  });
});

describe('finding 2: a history answer too large to read', () => {
  it('is skipped with one WARN naming the app and why, /health degraded, the cursor moved past it; not met again', async () => {
    const s = await start();
    await s.t.service.arr!.catchUp();
    s.t.clock.advance(60_000);
    // Over the history's cap: refused on its Content-Length, before a byte is read.
    s.sonarr.failureFor = /\/history$/;
    s.sonarr.failure = { status: 200, body: '[' + '0,'.repeat(3 * 1024 * 1024) + '0]' };
    const askedAt = s.t.clock.now();
    await s.t.service.arr!.catchUp();
    const shown = await health(s.t);
    expect(shown.status).toBe('degraded');
    expect(shown.arr[0].skipped).toMatch(/^its history since .* was skipped unread: the records asked to find where to start: sonarr 'sonarr' at .* answered GET \/history with more than 4 MiB/);
    expect(shown.arr[0].cursor).toBe(new Date(askedAt).toISOString());
    expect(await page(s.t)).toContain('was skipped unread');
    s.t.clock.advance(60_000);
    await s.t.service.arr!.catchUp();
    expect(warnings(s.t).filter((w) => w.includes('was skipped'))).toHaveLength(1);
    expect(warnings(s.t)[warnings(s.t).length - 1]).toMatch(/^sonarr 'sonarr''s history since .* was skipped: .*The catch-up moves on from/);
    // The app answers well again: what it did since is caught up, and /health is ok.
    s.sonarr.failure = undefined;
    s.sonarr.write(imported(5), s.t.clock.now() + 1_000);
    s.t.clock.advance(2_000);
    await s.t.service.arr!.catchUp();
    expect(s.t.service.queue.list(100).map((f) => f.folder)).toEqual(['/data/media/tv/Show 5/Season 01']);
    expect((await health(s.t)).status).toBe('ok');
  }, 60_000);
});

describe('finding 5: a record dated 9999-12-31', () => {
  it('does not move the cursor past now; what comes after it is caught up, the record itself once', async () => {
    const s = await start();
    await s.t.service.arr!.catchUp();
    s.sonarr.write(imported(7), Date.UTC(9999, 11, 31));
    s.t.clock.advance(60_000);
    await s.t.service.arr!.catchUp();
    expect(Date.parse((await health(s.t)).arr[0].cursor!)).toBeLessThanOrEqual(s.t.clock.now());
    s.sonarr.write(imported(8), s.t.clock.now() + 1_000);
    s.t.clock.advance(2_000);
    await s.t.service.arr!.catchUp();
    await s.t.service.arr!.catchUp();
    expect(s.t.service.queue.list(100).map((f) => f.folder).sort()).toEqual(['/data/media/tv/Show 7/Season 01', '/data/media/tv/Show 8/Season 01']);
  });
});

describe('finding 5: stopping while a catch-up waits on the app', () => {
  it.each([
    ['a history answer that never comes', /\/history$/],
    ['series look-ups that never answer', /\/series\/\d+/],
  ])('%s: the service closes at once, without a warning about the app', async (_, path) => {
    const s = await start();
    await s.t.service.arr!.catchUp();
    s.sonarr.owners.clear();
    for (let n = 1; n <= 20; n++) s.sonarr.write(imported(n), s.t.clock.now() + 1_000);
    s.t.clock.advance(2_000);
    s.sonarr.failureFor = path;
    s.sonarr.failure = 'hang';
    const pending = s.t.service.arr!.catchUp();
    await until(() => s.sonarr.requests.some((r) => path.test(r.path)));
    // Nothing moves the manual clock: a stop that waited for the calls' timeouts would never end.
    await s.t.service.arr!.stop();
    await pending;
    expect(warnings(s.t).filter((w) => w.includes('sonarr'))).toEqual([]);
  });
});

describe('finding 6: the record of folders asked for while an app is down', () => {
  it('is bounded: past its bound the folder noted longest ago goes, the newest stay', async () => {
    const { AskedFolders, MAX_ASKED } = await import('../../src/arr/asked.js');
    const asked = new AskedFolders();
    for (let i = 0; i < MAX_ASKED + 5_000; i++) asked.note(`/data/media/tv/Show ${i}`, i);
    asked.note('/data/media/tv/Show 5000', MAX_ASKED + 5_000);
    expect(asked.size).toBe(MAX_ASKED);
    expect(asked.askedSince(`/data/media/tv/Show ${MAX_ASKED + 4_999}`, 0)).toBe(true);
    expect(asked.askedSince('/data/media/tv/Show 5000', MAX_ASKED + 5_000)).toBe(true);
    expect(asked.askedSince('/data/media/tv/Show 4999', 0)).toBe(false);
  });
});

// The finding's 115,000 were short entries; the fake's are longer, so fewer fit its 4 MiB cap.
describe('finding 6: an app answering 30,000 root folders', () => {
  it('has the first 200 explained on the doctor page, the rest counted', async () => {
    const s = await start();
    s.sonarr.rootFolders = Array.from({ length: 30_000 }, (_, i) => `/tv${i}`);
    const page = await s.t.service.app.inject({ method: 'GET', url: `/${SECRET}/doctor` });
    expect(page.statusCode).toBe(200);
    const roots = page.body.slice(page.body.indexOf('id="app-roots"'));
    expect(roots.match(/<li><code>/g)).toHaveLength(200);
    expect(roots).toContain('And 29800 more root folders, not explained (only the first 200 are).');
  }, 60_000);
});
