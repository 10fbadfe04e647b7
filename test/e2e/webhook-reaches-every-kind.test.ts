// The new targets end to end: one Sonarr Download through the real server (webhook → intake → queue → processor)
// reaches the command, Audiobookshelf, Tdarr, Sonarr and relay targets, each with the call it expects; Radarr is
// asked only about movies, so a Radarr Download reaches it.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { targetSchema } from '../../src/config/schema.js';
import { commands, startFakeArr } from '../fakes/arr.js';
import { ABS_TOKEN, startFakeAudiobookshelf } from '../fakes/audiobookshelf.js';
import type { Recorder } from '../fakes/recorder.js';
import { basicAuth } from '../fakes/recorder.js';
import { relayed, startFakeRelay } from '../fakes/relay.js';
import { startFakeTdarr } from '../fakes/tdarr.js';
import { repoRoot } from '../support/fixtures.js';
import { SECRET, testService, type TestService } from '../support/service.js';

const DELAY_S = 60;
let t: TestService;
let fakes: Record<'abs' | 'tdarr' | 'sonarr' | 'radarr' | 'relay', Recorder>;
let commandLog: string;

beforeEach(async () => {
  fakes = {
    abs: await startFakeAudiobookshelf([{ id: 'lib-tv', name: 'TV (spoken)', folders: [{ id: 'f1', fullPath: '/abs/tv' }] }]),
    tdarr: await startFakeTdarr('tdarr-key-77aa'),
    sonarr: await startFakeArr('sonarr', 'sonarr-key-5e5e', [
      { id: 3, title: 'Andor', path: '/tv/Andor' },
      { id: 7, title: 'The Expanse', path: '/tv/The Expanse' },
    ]),
    radarr: await startFakeArr('radarr', 'radarr-key-6f6f', [{ id: 12, title: 'Heat', path: '/movies/Heat (1995)' }]),
    relay: await startFakeRelay('edge', 'relay-pass-8c8c'),
  };
  commandLog = join(mkdtempSync(join(tmpdir(), 'scanrelay-cmd-')), 'calls.jsonl');
  const entries = [
    { NAME: 'notify', TYPE: 'command', COMMAND: [process.execPath, join(repoRoot, 'test/fakes/command-target.mjs'), commandLog] },
    { NAME: 'abs', TYPE: 'audiobookshelf', URL: fakes.abs.url, TOKEN: ABS_TOKEN, PATH_MAPPINGS: { '/abs/': ['/data/media/'] } },
    { NAME: 'tdarr', TYPE: 'tdarr', URL: fakes.tdarr.url, TOKEN: 'tdarr-key-77aa', LIBRARY_ID: 'Hk3Lx9', PATH_MAPPINGS: { '/mnt/media/': ['/data/media/'] } },
    { NAME: 'sonarr', TYPE: 'sonarr', URL: fakes.sonarr.url, TOKEN: 'sonarr-key-5e5e', PATH_MAPPINGS: { '/tv/': ['/data/media/tv/'] } },
    { NAME: 'radarr', TYPE: 'radarr', URL: fakes.radarr.url, TOKEN: 'radarr-key-6f6f', PATH_MAPPINGS: { '/movies/': ['/data/media/movies/'] } },
    { NAME: 'edge', TYPE: 'relay', URL: fakes.relay.url, USER: 'edge', PASSWORD: 'relay-pass-8c8c', PATH_MAPPINGS: { '/srv/media/': ['/data/media/'] } },
  ].map((e) => targetSchema().parse(e));
  t = await testService({ config: { SERVER_SCAN_DELAY: DELAY_S, PLEX_ENABLED: false, TARGETS: entries } });
});

afterEach(async () => {
  await t.close();
  await Promise.all(Object.values(fakes).map((f) => f.close()));
});

async function webhook(body: object, userAgent: string): Promise<void> {
  const res = await t.service.app.inject({ method: 'POST', url: `/${SECRET}`, headers: { 'user-agent': userAgent }, payload: body });
  expect(res.statusCode).toBe(200);
}

async function run(ms: number): Promise<void> {
  for (let done = 0; done < ms; done += 10_000) {
    t.clock.advance(10_000);
    await t.service.processor.drain();
  }
}

const EPISODE = '/mnt/unionfs/Media/tv/The Expanse/Season 01/The Expanse - S01E01.mkv';

describe('new targets, end to end', () => {
  it('one Sonarr Download reaches command, audiobookshelf, tdarr, sonarr and relay with the right call', async () => {
    await webhook(
      { eventType: 'Download', series: { id: 7, title: 'The Expanse', path: '/mnt/unionfs/Media/tv/The Expanse' }, episodeFile: { id: 1, relativePath: 'Season 01/The Expanse - S01E01.mkv', path: EPISODE }, isUpgrade: false },
      'Sonarr/4.0.17.2952 (ubuntu 24.04)',
    );
    await run(DELAY_S * 1000);

    const calls = readFileSync(commandLog, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(calls).toEqual([
      {
        SCANRELAY_TARGET: 'notify',
        SCANRELAY_FOLDER: '/data/media/tv/The Expanse/Season 01',
        SCANRELAY_PATH: '/data/media/tv/The Expanse/Season 01/The Expanse - S01E01.mkv',
        SCANRELAY_FILE: '/data/media/tv/The Expanse/Season 01/The Expanse - S01E01.mkv',
        SCANRELAY_EVENT: 'Download',
        SCANRELAY_SOURCE: 'sonarr',
        SCANRELAY_DELETED: '0',
      },
    ]);
    expect(fakes.abs.requests.filter((r) => r.method === 'POST').map((r) => [r.path, r.body])).toEqual([
      ['/api/watcher/update', { libraryId: 'lib-tv', path: '/abs/tv/The Expanse/Season 01/The Expanse - S01E01.mkv', type: 'add' }],
    ]);
    expect(fakes.tdarr.requests.filter((r) => r.method === 'POST').map((r) => [r.path, r.body, r.headers['x-api-key']])).toEqual([
      ['/api/v2/scan-files', { data: { scanConfig: { dbID: 'Hk3Lx9', arrayOrPath: ['/mnt/media/tv/The Expanse/Season 01/The Expanse - S01E01.mkv'], mode: 'scanFindNew' } } }, 'tdarr-key-77aa'],
    ]);
    expect(commands(fakes.sonarr)).toEqual([{ name: 'RescanSeries', seriesId: 7 }]);
    expect(relayed(fakes.relay)).toEqual(['/srv/media/tv/The Expanse/Season 01']);
    expect(fakes.relay.requests.find((r) => r.method === 'POST')?.headers.authorization).toBe(basicAuth('edge', 'relay-pass-8c8c'));
    // Radarr owns no TV folder: asked, recorded as unmatched, no command.
    expect(commands(fakes.radarr)).toEqual([]);
    const outcomes = Object.fromEntries(t.service.queue.history().map((h) => [h.target, h.outcome]));
    expect(outcomes).toEqual({ notify: 'scanned', abs: 'scanned', tdarr: 'scanned', sonarr: 'scanned', radarr: 'unmatched', edge: 'scanned' });
  });

  it('a Radarr Download reaches radarr as RescanMovie for the movie owning the folder', async () => {
    await webhook(
      { eventType: 'Download', movie: { id: 12, title: 'Heat', folderPath: '/mnt/unionfs/Media/movies/Heat (1995)' }, movieFile: { id: 3, relativePath: 'Heat.mkv', path: '/mnt/unionfs/Media/movies/Heat (1995)/Heat.mkv' }, isUpgrade: false },
      'Radarr/5.2.6.8376 (ubuntu 22.04)',
    );
    await run(DELAY_S * 1000);
    expect(commands(fakes.radarr)).toEqual([{ name: 'RescanMovie', movieId: 12 }]);
    expect(commands(fakes.sonarr)).toEqual([]);
  });
});
