// Effects of keys that no other test showed from the config file's side: the first Plex's mode, pause and
// switch, the listen address, the folder fallback when a file never appears, and the start-up lines of the keys
// accepted for compatibility.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { compatibilityNotes } from '../../src/config/compat.js';
import { defaultConfig } from '../../src/config/load.js';
import type { Config } from '../../src/config/schema.js';
import { silentLogger } from '../../src/log/logger.js';
import { BLIND_FAST_MS } from '../../src/targets/plex/follow/follower.js';
import type { PathState } from '../../src/paths/disk.js';
import { buildTargets } from '../../src/targets/build.js';
import { freePort } from '../support/net.js';
import { testService, type TestService } from '../support/service.js';
import { until } from '../support/until.js';

let t: TestService | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

const config = (over: Partial<Config>): Config => ({ ...defaultConfig(() => '0123456789abcdef0123456789abcdef'), ...over }) as Config;
const targets = (c: Config) => buildTargets(c, { clock: new ManualClock(), logger: silentLogger });

describe('the first Plex from the PLEX_* keys', () => {
  it('PLEX_SCAN_MODE picks the HTTP API or the scanner; auto follows PLEX_TOKEN', () => {
    expect(targets(config({ PLEX_SCAN_MODE: 'api', PLEX_TOKEN: 'tok-1234' })).map((x) => x.kind)).toEqual(['plex']);
    expect(targets(config({ PLEX_SCAN_MODE: 'scanner', PLEX_TOKEN: 'tok-1234' })).map((x) => x.kind)).toEqual(['plex-scanner']);
    // Without a token, auto takes the scanner where there is a Plex database (test/server/start-lines.test.ts: none
    // at the default path of a machine without Plex).
    const database = join(mkdtempSync(join(tmpdir(), 'scanrelay-keys-')), 'com.plexapp.plugins.library.db');
    writeFileSync(database, '');
    expect(targets(config({ PLEX_SCAN_MODE: 'auto', PLEX_TOKEN: '', PLEX_DATABASE_PATH: database })).map((x) => x.kind)).toEqual(['plex-scanner']);
    // A first start: no token and no database where a local Plex keeps it: no scanner that could never run.
    expect(targets(config({ PLEX_SCAN_MODE: 'auto', PLEX_TOKEN: '' })).map((x) => x.kind)).toEqual([]);
    expect(targets(config({ PLEX_SCAN_MODE: 'auto', PLEX_TOKEN: 'tok-1234' })).map((x) => x.kind)).toEqual(['plex']);
  });

  it('PLEX_SCAN_PAUSE becomes the pause between its scans; PLEX_ENABLED false builds no first Plex', () => {
    expect(targets(config({ PLEX_SCAN_MODE: 'api', PLEX_TOKEN: 'tok-1234', PLEX_SCAN_PAUSE: 2.5 }))[0].pauseMs).toBe(2500);
    expect(targets(config({ PLEX_SCAN_MODE: 'scanner', PLEX_SCAN_PAUSE: 4 }))[0].pauseMs).toBe(4000);
    expect(targets(config({ PLEX_ENABLED: false, PLEX_TOKEN: 'tok-1234' }))).toEqual([]);
  });
});

describe('TARGETS[].ENABLED', () => {
  it('false keeps the entry in the file but builds no target for it', () => {
    const entry: Config['TARGETS'][number] = { NAME: 'jf', TYPE: 'jellyfin', URL: 'http://127.0.0.1:1', TOKEN: 'jf-token', ENABLED: true, PATH_MAPPINGS: {}, INCLUDE: [], EXCLUDE: [], SCAN_PAUSE: 0 };
    const names = (enabled: boolean) => targets(config({ PLEX_ENABLED: false, TARGETS: [{ ...entry, ENABLED: enabled }] })).map((x) => x.name);
    expect(names(true)).toEqual(['jf']);
    expect(names(false)).toEqual([]);
  });
});

describe('SERVER_IP and SERVER_PORT', () => {
  it('the server listens where they say', async () => {
    const port = await freePort();
    t = await testService({ config: { SERVER_IP: '127.0.0.1', SERVER_PORT: port } });
    const url = await t.service.listen();
    expect(url).toBe(`http://127.0.0.1:${port}`);
    expect((await fetch(`${url}/health`)).status).toBe(200);
  });
});

describe('SERVER_SCAN_FOLDER_ON_FILE_EXISTS_EXHAUSTION', () => {
  const FILE = '/data/media/tv/Show/Season 01/e1.mkv';
  async function exhausted(on: boolean) {
    t = await testService({
      config: { SERVER_MAX_FILE_CHECKS: 2, SERVER_FILE_CHECK_DELAY: 30, SERVER_SCAN_FOLDER_ON_FILE_EXISTS_EXHAUSTION: on },
      // The folder is there, the file never appears.
      pathState: async (p): Promise<PathState> => (p === '/data/media/tv/Show/Season 01' ? 'folder' : 'missing'),
    });
    t.service.intake.submitKnown([{ path: FILE, source: 'sonarr', event: 'Download', kind: 'file' }], 'sonarr');
    for (let i = 0; i < 3; i++) {
      t.clock.advance(t.service.config.SERVER_SCAN_DELAY * 1000 + 30_000);
      await t.service.processor.drain();
    }
    return t;
  }

  it('true: the folder is scanned once the checks run out', async () => {
    const s = await exhausted(true);
    expect(s.plex.refreshes).toEqual([{ section: '2', path: '/data/media/tv/Show/Season 01' }]);
  });

  it('false: the request ends as exhausted and nothing is scanned', async () => {
    const s = await exhausted(false);
    expect(s.plex.refreshes).toEqual([]);
    expect(s.service.queue.history(1)[0]).toMatchObject({ outcome: 'exhausted' });
  });
});

describe('keys accepted for compatibility', () => {
  it('SERVER_USE_SQLITE and RCLONE.BINARY each get a line that says what happens instead', () => {
    const notes = compatibilityNotes(config({ SERVER_USE_SQLITE: false, RCLONE: { ...config({}).RCLONE, CRYPT_MAPPINGS: { 'My Drive/enc/': ['c:'] } } }));
    expect(notes).toEqual([
      expect.objectContaining({ key: 'SERVER_USE_SQLITE', level: 'info', text: expect.stringContaining('has no effect: requests are always kept in the queue database') }),
      expect.objectContaining({ key: 'RCLONE.BINARY', text: expect.stringContaining('not run: scanrelay decodes rclone crypt names itself') }),
    ]);
    expect(compatibilityNotes(config({})).map((n) => [n.key, n.level])).toEqual([['SERVER_USE_SQLITE', 'debug']]);
  });
});

describe('delivery and follow-up keys', () => {
  let svc: TestService | undefined;
  afterEach(async () => {
    await svc?.close();
    svc = undefined;
  });

  it('PLEX_SCAN_CONCURRENCY bounds the scans in flight to the first Plex; TARGETS[].SCAN_CONCURRENCY sets an entry\'s own', async () => {
    svc = await testService({ config: { PLEX_SCAN_CONCURRENCY: 2, PLEX_CONFIRM_SCANS: false, SERVER_SCAN_DELAY: 0 } });
    svc.plex.latencyMs = 100;
    for (let i = 0; i < 6; i++) svc.service.queue.enqueue({ folder: `/data/media/tv/Show ${i}/Season 01`, priority: 0, source: 'sonarr', event: 'Download', deleted: false });
    let most = 0;
    const sample = setInterval(() => (most = Math.max(most, svc!.service.processor.health()[0].inFlight)), 2);
    try {
      await svc.service.processor.drain();
    } finally {
      clearInterval(sample);
    }
    expect(svc.plex.refreshes).toHaveLength(6);
    expect(most).toBe(2);
    const entry = { NAME: 'jf', TYPE: 'jellyfin', URL: 'http://127.0.0.1:1', TOKEN: 'jf-token', ENABLED: true, PATH_MAPPINGS: {}, INCLUDE: [], EXCLUDE: [], SCAN_PAUSE: 0, SCAN_CONCURRENCY: 3 } as Config['TARGETS'][number];
    expect(targets(config({ PLEX_ENABLED: false, TARGETS: [entry] }))[0].concurrency).toBe(3);
  });

  it('PLEX_FOLLOW_INTERVAL is the time between two /activities requests, however many scans are followed', async () => {
    svc = await testService({ config: { PLEX_FOLLOW_INTERVAL: 0.25, SERVER_SCAN_DELAY: 0, PLEX_CONFIRM_TIMEOUT: 3600 } });
    const s = svc;
    s.plex.scanPolls = Infinity;
    for (let i = 0; i < 8; i++) s.service.queue.enqueue({ folder: `/data/media/tv/Show ${i}/Season 01`, priority: 0, source: 'sonarr', event: 'Download', fileHint: `/data/media/tv/Show ${i}/Season 01/e.mkv`, deleted: false });
    await s.service.processor.tick();
    await s.service.processor.idle();
    expect(s.service.queue.summary().followingByTarget.plex).toBe(8);
    const polls = () => s.plex.requests.filter((r) => r.path === '/activities').length;
    const acceptedAt = s.clock.now();
    s.service.processor.followUps.start();
    // No socket here: for BLIND_FAST_MS after Plex took them the scans are polled every BLIND_POLL_MS (test/plex/blind-poll.test.ts).
    await until(() => s.clock.now() - acceptedAt >= BLIND_FAST_MS && polls() >= 2);
    // The service runs on a ManualClock that only the follower's pauses move: time per poll is the interval.
    const [n0, t0] = [polls(), s.clock.now()];
    await until(() => polls() >= n0 + 40);
    const [n1, t1] = [polls(), s.clock.now()];
    expect((t1 - t0) / (n1 - n0)).toBeGreaterThan(225);
    expect((t1 - t0) / (n1 - n0)).toBeLessThan(275);
  });
});
