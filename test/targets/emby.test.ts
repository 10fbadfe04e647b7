// Emby target against a fake Emby on loopback: X-Emby-Token, VirtualFolders/Query, 200 as success.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { defaultConfig } from '../../src/config/load.js';
import { targetSchema, type Config } from '../../src/config/schema.js';
import { silentLogger } from '../../src/log/logger.js';
import { buildTargets } from '../../src/targets/build.js';
import { embyTarget } from '../../src/targets/emby.js';
import type { ScanContext } from '../../src/scan.js';
import type { Capabilities } from '../../src/targets/kind.js';
import { startFakeEmby, type FakeMediaBrowser } from '../fakes/emby.js';

const TOKEN = 'emby-token-5678';
const ctx: ScanContext = { event: 'Download', source: 'radarr', deleted: false };

let server: FakeMediaBrowser;
let target: Capabilities;

beforeEach(async () => {
  server = await startFakeEmby({ token: TOKEN });
  target = embyTarget({ name: 'emby', url: server.url, token: TOKEN });
});
afterEach(() => server.close());

describe('emby target', () => {
  it('lists libraries from VirtualFolders/Query and posts with X-Emby-Token', async () => {
    const outcome = await target.scan('/data/media/movies/Dune Part Two (2024)', ctx);
    expect(outcome).toEqual({ status: 'scanned', detail: 'Movies', sections: ['4'] });
    expect(server.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      'GET /Library/VirtualFolders/Query',
      'POST /Library/Media/Updated',
    ]);
    for (const r of server.requests) {
      expect(r.headers['x-emby-token']).toBe(TOKEN);
      expect(r.headers.authorization).toBeUndefined();
    }
    expect(server.updates()).toEqual([{ Path: '/data/media/movies/Dune Part Two (2024)', UpdateType: 'Modified' }]);
  });

  it('is unmatched outside its Locations', async () => {
    const outcome = await target.scan('/mnt/archive/tv/Firefly', ctx);
    expect(outcome).toEqual({
      status: 'unmatched',
      detail: "'/mnt/archive/tv/Firefly' is in no library of emby 'emby' (known locations: /data/media/movies, /data/media/tv)",
    });
  });

  it('maps 403 to a refused token naming TOKEN, and 500 to a failure of the folder', async () => {
    server.fail(403);
    const refused = await target.scan('/data/media/tv/Show', ctx);
    expect(refused).toMatchObject({ status: 'retry', targetDown: false, tokenRefused: true });
    expect(refused.status === 'retry' && refused.error).toMatch(/^emby 'emby' at http:\S+ refused the token \(HTTP 403 .*check TOKEN$/);
    expect(refused.status === 'retry' && refused.error).not.toContain(TOKEN);

    server.fail(500, { path: '/Library/Media/Updated' });
    expect(await target.scan('/data/media/tv/Show', ctx)).toMatchObject({ status: 'retry', targetDown: false });
  });

  it('hints at the /emby prefix on a 404', async () => {
    const wrongBase = embyTarget({ name: 'emby', url: server.url + '/nothing-here', token: TOKEN });
    const outcome = await wrongBase.scan('/data/media/tv/Show', ctx);
    expect(outcome).toMatchObject({ status: 'retry', targetDown: false });
    expect(outcome.status === 'retry' && outcome.error).toContain('check URL; Emby may need the /emby prefix');
  });

  it('probes /System/Info/Public for available()', async () => {
    expect(await target.available()).toEqual({ ok: true });
    server.fail('down');
    expect((await target.available()).ok).toBe(false);
  });
});

describe('emby SCAN_METHOD', () => {
  const build = (keys: Record<string, unknown>) =>
    buildTargets({ ...defaultConfig(() => 'x'.repeat(32)), PLEX_ENABLED: false, TARGETS: [targetSchema().parse({ NAME: 'emby', TYPE: 'emby', URL: server.url, TOKEN, ...keys })] } as Config, {
      clock: new ManualClock(),
      logger: silentLogger,
    })[0];

  it('defaults to media-updated (the call Emby points integrators to; docs/targets.md has the evidence)', async () => {
    await build({}).scan('/data/media/movies/Dune Part Two (2024)', ctx);
    expect(server.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /Library/VirtualFolders/Query', 'POST /Library/Media/Updated']);
  });

  it('library refreshes the library item with Emby’s documented Recursive flag, held to gather a burst', async () => {
    const clock = new ManualClock();
    const target = embyTarget({ name: 'emby', url: server.url, token: TOKEN, scanMethod: 'library', clock, rootHoldMs: 0 });
    await target.scan('/data/media/movies/Dune Part Two (2024)', ctx);
    const refresh = server.requests.find((r) => r.method === 'POST');
    expect(refresh?.path).toBe('/Items/4/Refresh');
    expect(refresh?.query).toMatchObject({ Recursive: 'true', MetadataRefreshMode: 'Default' });
  });
});
