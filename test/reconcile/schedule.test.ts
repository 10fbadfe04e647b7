// The reconcile in the server: every RECONCILE_INTERVAL hours per ARR entry on the injected clock, never two at
// once, its results on /health, /metrics, the dashboard and the doctor page; and its guards: a server that lists
// far fewer items than at the last audit queues nothing and says why, an app that lists no file queues nothing.
import { afterEach, describe, expect, it } from 'vitest';
import { ReconcileAudits } from '../../src/reconcile/audits.js';
import { FIRST_AFTER_MS } from '../../src/reconcile/schedule.js';
import { arrHarness, type ArrHarness } from '../arr/harness.js';
import { SECRET } from '../support/service.js';

let h: ArrHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const HOUR = 3_600_000;
const appFile = (n: number) => `/tv/Show ${n}/Season 01/Show ${n} - S01E01.mkv`;
const plexFile = (n: number) => `/data/media/tv/Show ${n}/Season 01/Show ${n} - S01E01.mkv`;

/** Sonarr with `n` series of one file each; Plex with all of them but the ones in `lacking`, and one file Sonarr does not list. */
async function setUp(n: number, lacking: number[], hours = 24): Promise<ArrHarness> {
  h = await arrHarness(['sonarr'], { reconcileHours: hours });
  const [app] = h.apps;
  app.rootFolders = ['/tv'];
  for (let i = 1; i <= n; i++) app.addFile(app.addItem(`/tv/Show ${i}`), appFile(i));
  for (let i = 1; i <= n; i++) if (!lacking.includes(i)) h.plex.addToLibrary(plexFile(i));
  h.plex.addToLibrary('/data/media/tv/Gone Show/Season 01/Gone Show - S01E01.mkv');
  return h;
}

const seriesReads = (t: ArrHarness) => t.apps[0].requests.filter((r) => r.path === '/api/v3/series').length;

describe('the reconcile in the server', () => {
  it('runs FIRST_AFTER_MS after start, then every RECONCILE_INTERVAL; shows on /health, /metrics, the dashboard and the doctor page', async () => {
    const t = await setUp(3, [2]);
    const reconcile = t.service.reconcile!;
    await reconcile.tick();
    expect(seriesReads(t)).toBe(0);
    t.clock.advance(FIRST_AFTER_MS);
    await reconcile.tick();
    expect(seriesReads(t)).toBe(1);
    // The missing file's folder is queued as the reconcile's.
    const queued = t.service.queue.list(10);
    expect(queued.map((f) => [f.folder, f.source, f.event])).toEqual([['/data/media/tv/Show 2/Season 01', 'sonarr-reconcile', 'Reconcile']]);

    const health = (await t.service.app.inject({ url: '/health' })).json() as { reconcile: { apps: { app: string; next: string }[]; audits: { app: string; target: string; files: number; missing: number; unknown: number }[] } };
    expect(health.reconcile.audits).toEqual([expect.objectContaining({ app: 'sonarr', target: 'plex', files: 3, missing: 1, unknown: 1 })]);
    // /health answers anyone: counts, never the library's paths.
    expect(JSON.stringify(health)).not.toContain('Show 2');
    expect(health.reconcile.apps[0].next).toBe(new Date(t.clock.now() + 24 * HOUR).toISOString());
    const metrics = (await t.service.app.inject({ url: '/metrics' })).body;
    expect(metrics).toContain('scanrelay_reconcile_missing{app="sonarr",target="plex"} 1');
    expect(metrics).toContain('scanrelay_reconcile_unknown{app="sonarr",target="plex"} 1');
    const dashboard = (await t.service.app.inject({ url: `/${SECRET}/dashboard` })).body;
    expect(dashboard).toMatch(/data-reconcile="sonarr\/plex"[\s\S]*1 missing[\s\S]*<dt>Files<\/dt><dd>3<\/dd>[\s\S]*<dt>Unknown to the app<\/dt><dd>1<\/dd>/);
    const doctor = (await t.service.app.inject({ url: `/${SECRET}/doctor` })).body;
    expect(doctor).toContain(`<code>${appFile(2)}</code>`);
    expect(doctor).toContain('<code>/data/media/tv/Gone Show/Season 01/Gone Show - S01E01.mkv</code>');
    expect(dashboard + doctor + metrics + JSON.stringify(health)).not.toContain(t.apps[0].apiKey);

    // Not again before the interval; again once it has passed.
    t.clock.advance(23 * HOUR);
    await reconcile.tick();
    expect(seriesReads(t)).toBe(1);
    t.clock.advance(HOUR);
    await reconcile.tick();
    expect(seriesReads(t)).toBe(2);
  });

  it('takes the ARR entries read again while it runs (connect): an app removed is not audited, one added is', async () => {
    const t = await setUp(2, []);
    const reconcile = t.service.reconcile!;
    const [entry] = t.service.config.ARR;
    reconcile.read([]);
    t.clock.advance(FIRST_AFTER_MS);
    await reconcile.tick();
    expect(seriesReads(t)).toBe(0);
    expect(reconcile.status().apps).toEqual([]);
    reconcile.read([entry]);
    await reconcile.tick();
    expect(seriesReads(t)).toBe(1);
    expect(reconcile.status().apps.map((a) => a.app)).toEqual(['sonarr']);
  });

  it('never runs twice at once: a tick while an audit runs waits for it and starts none', async () => {
    const t = await setUp(2, []);
    t.clock.advance(FIRST_AFTER_MS);
    const first = t.service.reconcile!.tick();
    const second = t.service.reconcile!.tick();
    expect(second).toBe(first);
    await Promise.all([first, second]);
    expect(seriesReads(t)).toBe(1);
  });

  it('while `scanrelay reconcile` holds the queue file\'s lease (a live process), the server audits nothing; once released, it does', async () => {
    const t = await setUp(2, [1]);
    const audits = new ReconcileAudits(t.service.queue.db);
    // Another live process: this test's parent.
    expect(audits.take(process.ppid, t.clock.now())).toBeUndefined();
    t.clock.advance(FIRST_AFTER_MS);
    await t.service.reconcile!.tick();
    expect(seriesReads(t)).toBe(0);
    expect(t.messages()).toContain(`Reconcile: \`scanrelay reconcile\` (PID ${process.ppid}) is running on this queue file; the audit waits for it to end.`);
    audits.release(process.ppid);
    await t.service.reconcile!.tick();
    expect(seriesReads(t)).toBe(1);
    // A lease whose holder is gone holds nothing.
    expect(audits.take(2 ** 22 + 12_345, t.clock.now())).toBeUndefined();
    expect(audits.take(process.pid, t.clock.now())).toBeUndefined();
  });

  it('RECONCILE_INTERVAL 0: never', async () => {
    const t = await setUp(2, [1], 0);
    t.clock.advance(100 * HOUR);
    await t.service.reconcile!.tick();
    expect(seriesReads(t)).toBe(0);
    expect(t.service.reconcile!.status().apps).toEqual([{ app: 'sonarr', intervalHours: 0, next: null, error: null }]);
  });

  it('a server that lists far fewer items than at the last audit queues nothing and says why; it queues again once it lists them', async () => {
    const t = await setUp(40, []);
    t.clock.advance(FIRST_AFTER_MS);
    await t.service.reconcile!.tick();
    expect(t.service.queue.count()).toBe(0);
    // A mount gone: Plex lists 5 of its 41 items.
    const kept = new Set([1, 2, 3, 4, 5].map(plexFile));
    const gone = [...t.plex.library.keys()].filter((f) => !kept.has(f));
    for (const f of gone) t.plex.library.delete(f);
    t.clock.advance(24 * HOUR);
    await t.service.reconcile!.tick();
    expect(t.service.queue.count()).toBe(0);
    const audit = t.service.reconcile!.status().audits[0];
    expect(audit).toMatchObject({ missing: 35, items: 5 });
    expect(audit.held).toMatch(/plex lists 5 item\(s\) where it listed 41 at the last audit.*nothing is queued/);
    expect(t.messages().some((m) => /Reconcile of sonarr with plex lists 5 item/.test(m))).toBe(true);
    // Back: the one file really missing is queued.
    for (const f of gone) if (f !== plexFile(7)) t.plex.addToLibrary(f);
    t.clock.advance(24 * HOUR);
    await t.service.reconcile!.tick();
    expect(t.service.queue.list(10).map((f) => f.folder)).toEqual(['/data/media/tv/Show 7/Season 01']);
  });

  it('an app that lists no file queues nothing and says so; one that does not answer is asked again within the hour', async () => {
    const t = await setUp(0, []);
    t.clock.advance(FIRST_AFTER_MS);
    await t.service.reconcile!.tick();
    expect(t.service.queue.count()).toBe(0);
    expect(t.service.reconcile!.status().apps[0].error).toMatch(/listed no media file: nothing is compared or queued/);
    t.apps[0].failure = { status: 500 };
    t.clock.advance(24 * HOUR);
    await t.service.reconcile!.tick();
    expect(t.service.reconcile!.status().apps[0].error).toMatch(/answered 500/);
    t.apps[0].failure = undefined;
    const before = seriesReads(t);
    t.clock.advance(HOUR);
    await t.service.reconcile!.tick();
    expect(seriesReads(t)).toBe(before + 1);
  });
});
