// Per-target path rewrite and include/exclude: longest form at a path boundary, Windows forms, and the same
// folder reaching two real (fake) servers at their own paths.
import { afterEach, describe, expect, it } from 'vitest';
import { embyTarget } from '../../src/targets/emby.js';
import { jellyfinTarget } from '../../src/targets/jellyfin.js';
import { rewritePath } from '../../src/targets/rewrite.js';
import type { ScanContext, ScanOutcome } from '../../src/scan.js';
import type { Capabilities } from '../../src/targets/kind.js';
import { startFakeEmby } from '../fakes/emby.js';
import { startFakeJellyfin, type FakeMediaBrowser } from '../fakes/jellyfin.js';
import { named, type TableKeys } from '../support/target.js';

const ctx: ScanContext = { event: 'Download', source: 'sonarr', deleted: false, file: '/mnt/unionfs/TV/Show/S01/e1.mkv' };

describe('rewritePath', () => {
  const mappings = {
    '/data/media': ['/mnt/unionfs'],
    '/data/media/tv4k': ['/mnt/unionfs/TV 4K/', '/mnt/other/4k'],
    'D:\\Media': ['/mnt/win'],
    '/from-windows': ['\\\\NAS\\Share\\Media', 'E:\\Media'],
    '/everything': ['/'],
  };

  it.each([
    ['/mnt/unionfs/TV/Show', '/data/media/TV/Show'],
    ['/mnt/unionfs/TV 4K/Show/Season 01', '/data/media/tv4k/Show/Season 01'], // longest form wins
    ['/mnt/unionfs', '/data/media'],
    ['/mnt/unionfs/', '/data/media'],
    ['/mnt/win/Movies/Dune', 'D:\\Media\\Movies\\Dune'],
    ['\\\\NAS\\Share\\Media\\TV\\Show', '/from-windows/TV/Show'],
    ['e:\\media\\TV\\Show', '/from-windows/TV/Show'], // Windows forms compare case-insensitively
    ['/opt/x', '/everything/opt/x'],
  ])('%s -> %s', (input, output) => {
    expect(rewritePath(input, mappings)).toBe(output);
  });

  it('matches only at a path boundary and leaves unmatched paths alone', () => {
    expect(rewritePath('/mnt/unionfs2/TV', { '/data': ['/mnt/unionfs'] })).toBe('/mnt/unionfs2/TV');
    expect(rewritePath('/mnt/UNIONFS/TV', { '/data': ['/mnt/unionfs'] })).toBe('/mnt/UNIONFS/TV');
    expect(rewritePath('/x', {})).toBe('/x');
  });

  it('maps to a root server path without doubling the separator', () => {
    expect(rewritePath('/mnt/unionfs/TV', { '/': ['/mnt/unionfs'] })).toBe('/TV');
    expect(rewritePath('/mnt/unionfs/TV', { 'D:\\': ['/mnt/unionfs'] })).toBe('D:\\TV');
  });
});

/** A target that remembers what it was asked to scan. */
function recording(): Capabilities & { seen: { folder: string; context: ScanContext }[] } {
  const seen: { folder: string; context: ScanContext }[] = [];
  return {
    kind: 'jellyfin',
    seen,
    async scan(folder, context): Promise<ScanOutcome> {
      seen.push({ folder, context });
      return { status: 'scanned' };
    },
    available: async () => ({ ok: true }),
  };
}

const withRewrite = (inner: Capabilities, keys: Omit<TableKeys, 'name'>) => named(inner, { name: 'rec', pauseMs: 1234, ...keys });

describe('the table: PATH_MAPPINGS, INCLUDE and EXCLUDE', () => {
  it('hands the inner target the rewritten folder and file, keeping name, kind and pause', async () => {
    const inner = recording();
    const t = withRewrite(inner, { mappings: { '/data/media': ['/mnt/unionfs'] } });
    expect([t.name, t.kind, t.pauseMs]).toEqual(['rec', 'jellyfin', 1234]);
    expect(await t.scan('/mnt/unionfs/TV/Show/S01', ctx)).toEqual({ status: 'scanned' });
    expect(inner.seen).toEqual([
      { folder: '/data/media/TV/Show/S01', context: { ...ctx, file: '/data/media/TV/Show/S01/e1.mkv' } },
    ]);
    expect(await t.available()).toEqual({ ok: true });
  });

  it('stops excluded folders (either form) before the target, at a path boundary', async () => {
    const inner = recording();
    const t = withRewrite(inner, { mappings: { '/data/media': ['/mnt/unionfs'] }, exclude: ['/data/media/Kids'] });
    expect(await t.scan('/mnt/unionfs/Kids/Bluey', ctx)).toEqual({
      status: 'unmatched',
      detail: "excluded by EXCLUDE '/data/media/Kids'",
    });
    expect((await t.scan('/mnt/unionfs/Kidsville/X', ctx)).status).toBe('scanned');
    expect(inner.seen.map((s) => s.folder)).toEqual(['/data/media/Kidsville/X']);
  });

  it('lets only included folders through when INCLUDE is set', async () => {
    const inner = recording();
    const t = withRewrite(inner, { include: ['/mnt/unionfs/Movies', '/mnt/unionfs/TV'] });
    expect(await t.scan('/mnt/unionfs/Music/Abba', ctx)).toEqual({
      status: 'unmatched',
      detail: "excluded by INCLUDE (not under '/mnt/unionfs/Movies', '/mnt/unionfs/TV')",
    });
    expect((await t.scan('/mnt/unionfs/TV/Show', ctx)).status).toBe('scanned');
    expect(inner.seen).toHaveLength(1);
  });
});

describe('the same folder on two servers', () => {
  const servers: FakeMediaBrowser[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => s.close()));
  });

  it('lands at each server own path', async () => {
    const jf = await startFakeJellyfin({
      libraries: [{ Name: 'Shows', Locations: ['/media/tv'] }],
    });
    const em = await startFakeEmby({
      libraries: { Items: [{ Name: 'TV', ItemId: '4', Locations: ['/srv/library/series'] }], TotalRecordCount: 1 },
    });
    servers.push(jf, em);
    const jellyfin = named(jellyfinTarget({ scanMethod: 'media-updated', name: 'jellyfin', url: jf.url, token: 'jellyfin-token-1234' }), {
      name: 'jellyfin',
      mappings: { '/media/tv': ['/mnt/unionfs/TV'] },
    });
    const emby = named(embyTarget({ name: 'emby', url: em.url, token: 'emby-token-5678' }), {
      name: 'emby',
      mappings: { '/srv/library/series': ['/mnt/unionfs/TV'] },
    });

    const folder = '/mnt/unionfs/TV/The Expanse (2015)/Season 01';
    expect(await jellyfin.scan(folder, ctx)).toMatchObject({ status: 'scanned', detail: 'Shows' });
    expect(await emby.scan(folder, ctx)).toEqual({ status: 'scanned', detail: 'TV', sections: ['4'] });
    expect(jf.updates()).toEqual([{ Path: '/media/tv/The Expanse (2015)/Season 01', UpdateType: 'Modified' }]);
    expect(em.updates()).toEqual([{ Path: '/srv/library/series/The Expanse (2015)/Season 01', UpdateType: 'Modified' }]);
  });
});
