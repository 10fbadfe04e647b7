// Every request's path is classified at intake the way the path doctor sees it: mapped, already a library path,
// or in no library at all. The last is answered 202 with what to change and lands in history as unmatched at
// once, without a file-check wait. Retry and Scan now map the path as received again with the current config.
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { explainPath } from '../../src/doctor/explain.js';
import { SECRET, testService, type TestService } from '../support/service.js';

let services: TestService[] = [];
afterEach(async () => {
  for (const s of services) await s.close();
  services = [];
});

async function start(opts: Parameters<typeof testService>[0] = {}): Promise<{ t: TestService; url: string }> {
  const t = await testService(opts);
  services.push(t);
  const url = await t.service.listen(0, '127.0.0.1');
  return { t, url };
}

const manual = (url: string, filepath: string) =>
  fetch(`${url}/${SECRET}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ eventType: 'Manual', filepath }) });

describe('classification at intake', () => {
  it('unmapped and in no library: 202 with a warning naming the closest prefixes and the libraries; unmatched in history at once; no file check', async () => {
    const checked: string[] = [];
    const { t, url } = await start({
      config: { SERVER_MAX_FILE_CHECKS: 10 } as never,
      pathState: async (p) => (checked.push(p), 'missing'),
    });
    const res = await manual(url, '/downloads/complete/Show/Season 01/x.mkv');
    expect(res.status).toBe(202);
    const body = (await res.json()) as { ok: boolean; warning: string; queued: unknown[]; unmatched: { folder: string; unmatched?: string }[] };
    expect(body.ok).toBe(true);
    expect(body.queued).toEqual([]);
    expect(body.unmatched[0].unmatched).toMatch(/is in no library of plex and no SERVER_PATH_MAPPINGS entry matched it/);
    expect(body.warning).toMatch(/Add a SERVER_PATH_MAPPINGS entry/);
    expect(body.warning).toMatch(/Closest prefixes: '\/data\/media\/'/);
    expect(body.warning).toMatch(/TV Shows \(section 2\) \(\/data\/media\/tv\)/);
    expect(body.warning).toContain(`npx scanrelay explain '/downloads/complete/Show/Season 01/x.mkv'`);

    expect(t.service.queue.count()).toBe(0);
    const [h] = t.service.queue.history(1);
    expect(h).toMatchObject({ outcome: 'unmatched', folder: '/downloads/complete/Show/Season 01', received: '/downloads/complete/Show/Season 01/x.mkv' });
    expect(checked.filter((p) => p.startsWith('/downloads/complete/Show/Season 01/') && p !== '/downloads/complete/Show/Season 01/x.mkv')).toEqual([]);
    expect(t.logs.join('')).toMatch(/"level":"?(warn|40)"?.*is in no library of plex/);

    // A path the doctor can place: the entry to add and the key as it would read, the configured entries kept.
    const placed = await manual(url, '/tvshows/Show/Season 01/x.mkv');
    expect(placed.status).toBe(202);
    const advice = `Add "/data/media/tv/": ["/tvshows/"] to SERVER_PATH_MAPPINGS in config.json, keeping every entry there (a second SERVER_PATH_MAPPINGS key would replace the first), so that it reads "SERVER_PATH_MAPPINGS": { "/data/media/": ["/mnt/unionfs/Media/", "My Drive/Media/", "D:\\\\Media\\\\"], "/data/media/tv/": ["/tvshows/"] }, then press Retry`;
    expect(((await placed.json()) as { warning: string }).warning).toContain(advice);
    expect(t.logs.join('')).toContain(JSON.stringify(advice).slice(1, -1));

    // The path doctor predicts exactly that.
    const e = await explainPath('/downloads/complete/Show/Season 01/x.mkv', { config: t.service.config, targets: t.service.targets, pathState: async () => 'missing' });
    expect(e.verdict).toBe('unmatched');
    expect(e.summary).toMatch(/recorded as unmatched at once, not queued/);
  });

  it('mapped, but the mapping leads outside every library: 202 naming the mapping entry to fix', async () => {
    const { t, url } = await start({ config: { SERVER_PATH_MAPPINGS: { '/data/medai/': ['/mnt/unionfs/Media/'] } } as never });
    const res = await manual(url, '/mnt/unionfs/Media/tv/Show/Season 01/e1.mkv');
    expect(res.status).toBe(202);
    const body = (await res.json()) as { warning: string };
    expect(body.warning).toContain(`'/mnt/unionfs/Media/tv/Show/Season 01/e1.mkv' was mapped to '/data/medai/tv/Show/Season 01', which is in no library of plex`);
    expect(body.warning).toContain(`The SERVER_PATH_MAPPINGS entry '/data/medai/' ← '/mnt/unionfs/Media/' leads outside every library`);
    expect(t.service.queue.count()).toBe(0);
  });

  it('mapped, or already a library path: queued as always (200)', async () => {
    const { t, url } = await start();
    expect((await manual(url, '/mnt/unionfs/Media/tv/Show/Season 01/e1.mkv')).status).toBe(200);
    expect((await manual(url, '/data/media/movies/Heat (1995)/Heat.mkv')).status).toBe(200);
    expect(t.service.queue.count()).toBe(2);
    expect(t.service.queue.get('/data/media/tv/Show/Season 01')?.received).toBe('/mnt/unionfs/Media/tv/Show/Season 01/e1.mkv');
  });

  it('when the libraries cannot be known (Plex down), nothing is refused: the path is queued as today', async () => {
    const { t, url } = await start();
    t.plex.failure = 'reset';
    expect((await manual(url, '/downloads/complete/Other/x.mkv')).status).toBe(200);
    expect(t.service.queue.count()).toBe(1);
  });

  it('the JSON API\'s POST /scan answers 202 with the same warning', async () => {
    const { t, url } = await start();
    const res = await fetch(`${url}/api/${SECRET}/scan`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ path: '/downloads/y/z.mkv' }) });
    expect(res.status).toBe(202);
    expect(await res.json()).toMatchObject({ ok: true, folder: '/downloads/y', unmatched: expect.stringMatching(/in no library of plex.*SERVER_PATH_MAPPINGS/) });
    expect(t.service.queue.count()).toBe(0);
  });

  it('the manual page says "Not queued: in no library" with the advice', async () => {
    const { url } = await start();
    const res = await fetch(`${url}/${SECRET}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html' },
      body: 'eventType=Manual&filepath=/downloads/x/y.mkv',
    });
    const page = await res.text();
    expect(page).toContain('Not queued: in no library');
    expect(page).toContain('Add a SERVER_PATH_MAPPINGS entry');
  });
});

describe('the path as received is kept and mapped again', () => {
  it('Retry from history after fixing the mapping (restart on the same queue) reaches the right folder', async () => {
    const first = await start({ config: { SERVER_PATH_MAPPINGS: { '/data/media/': ['/mnt/unionfs/Media/'] } } as never });
    const queuefile = first.t.queuefile;
    expect((await manual(first.url, '/downloads/tv/Show/Season 01/e1.mkv')).status).toBe(202);
    await first.t.close();
    services = [];

    const second = await start({ queuefile, config: { SERVER_PATH_MAPPINGS: { '/data/media/tv/': ['/downloads/tv/'] } } as never });
    const page = await (await fetch(`${second.url}/${SECRET}/dashboard`)).text();
    // Both forms, and the short sentence with the technical rest behind "details".
    expect(page).toContain('<dt>Received</dt><dd><code>/downloads/tv/Show/Season 01/e1.mkv</code></dd>');
    expect(page).toContain(
      '<p class="err">&#39;/downloads/tv/Show/Season 01/e1.mkv&#39; is in no library of plex and no SERVER_PATH_MAPPINGS entry matched it: not queued.</p><details class="detail"><summary>details</summary>',
    );

    const res = await fetch(`${second.url}/${SECRET}/dashboard/retry`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `folder=${encodeURIComponent('/downloads/tv/Show/Season 01')}`,
      redirect: 'manual',
    });
    expect(res.status).toBe(303);
    expect(decodeURIComponent(res.headers.get('location') ?? '')).toContain(`Mapped '/downloads/tv/Show/Season 01/e1.mkv' again to: /data/media/tv/Show/Season 01`);
    await second.t.service.processor.drain();
    expect(second.t.plex.refreshes).toEqual([{ section: '2', path: '/data/media/tv/Show/Season 01' }]);
  });

  it('Scan now on a folder queued under an old mapping moves it to the folder the current mapping names', async () => {
    const first = await start({ config: { SERVER_PATH_MAPPINGS: { '/data/media/': ['/mnt/unionfs/Media/'] } } as never });
    first.t.plex.failure = 'reset'; // libraries unknown: queued under the wrong folder, as before this check
    expect((await manual(first.url, '/downloads/tv/Show/Season 02/e1.mkv')).status).toBe(200);
    expect(first.t.service.queue.get('/downloads/tv/Show/Season 02')).toBeTruthy();
    const queuefile = join(first.t.dir, 'queue.db');
    await first.t.close();
    services = [];

    const second = await start({ queuefile, config: { SERVER_PATH_MAPPINGS: { '/data/media/tv/': ['/downloads/tv/'] } } as never });
    const page = await (await fetch(`${second.url}/${SECRET}/dashboard`)).text();
    expect(page).toContain('<code class="folder">/downloads/tv/Show/Season 02</code>');
    expect(page).toContain('<dt>Received</dt><dd><code>/downloads/tv/Show/Season 02/e1.mkv</code></dd>');
    const res = await fetch(`${second.url}/api/${SECRET}/queue/scan-now`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ folder: '/downloads/tv/Show/Season 02' }),
    });
    expect(await res.json()).toMatchObject({ ok: true, folder: '/data/media/tv/Show/Season 02' });
    expect(second.t.service.queue.get('/downloads/tv/Show/Season 02')).toBeUndefined();
    expect(second.t.service.queue.history(1)[0]).toMatchObject({ folder: '/downloads/tv/Show/Season 02', outcome: 'dropped' });
    await second.t.service.processor.drain();
    expect(second.t.plex.refreshes).toEqual([{ section: '2', path: '/data/media/tv/Show/Season 02' }]);
  });

  it('"Unable to map" from Plex names the path as received in its hint, never the mapped one', async () => {
    const { t, url } = await start({ config: { SERVER_PATH_MAPPINGS: { '/data/other/': ['/srv/tv/'] } } as never });
    t.plex.failure = 'reset'; // libraries unknown at intake: queued, and Plex itself answers later
    expect((await manual(url, '/srv/tv/Show/Season 01/e1.mkv')).status).toBe(200);
    t.plex.failure = undefined;
    t.clock.advance(t.service.config.SERVER_SCAN_DELAY * 1000);
    await t.service.processor.drain();
    const [h] = t.service.queue.history(1);
    expect(h.outcome).toBe('unmatched');
    expect(h.detail).toMatch(/^'\/data\/other\/Show\/Season 01' is in no library of plex, so nothing was scanned there\.\nUnable to map/);
    expect(h.detail).toContain(`Try: npx scanrelay explain '/srv/tv/Show/Season 01/e1.mkv'.`);
    expect(h.detail).not.toContain(`explain '/data/other`);
  });
});
