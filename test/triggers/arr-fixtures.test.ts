// Every arr payload of test/fixtures/arr against the exact scan requests it must produce.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Source } from '../../src/request.js';
import { parseScanBody, type TriggerResult } from '../../src/triggers/index.js';
import { arrEventFixtures, fixturesDir, ownFixture } from '../support/fixtures.js';
import { scan } from '../support/requests.js';
import { withoutIds } from '../support/requests.js';


const userAgents: Record<string, string> = {
  sonarr: 'Sonarr/4.0.17.2952 (ubuntu 24.04)',
  radarr: 'Radarr/6.0.3.10157 (alpine 3.22)',
  lidarr: 'Lidarr/2.14.5.4836 (debian 12)',
  readarr: 'Readarr/0.4.18.2805 (ubuntu 22.04)',
  whisparr: 'Whisparr/2.0.0.1067 (alpine 3.20)',
};

/** Fixture files are named "<app>-<event>.json"; the app is who would have sent it. */
const appOf = (file: string): Source => file.split('-')[0] as Source;

const expanse = '/data/media/tv/The Expanse (2015)/Season 01';
const dune = '/data/media/movies/Dune Part Two (2024)';
const okComputer = '/data/media/music/Radiohead/OK Computer (1997)';
const wayOfKings = '/data/media/books/Brandon Sanderson/The Way of Kings (2010)';

/** Per event fixture (`<app>-<event>.json`), what a request carrying the app's own User-Agent comes to: the files it names, or why none. */
const eventExpectations: Record<string, TriggerResult> = {
  'sonarr-test.json': { kind: 'test', source: 'sonarr', event: 'Test' },
  'sonarr-download.json': scan('sonarr', 'Download', (r) => [
    r.file(`${expanse}/The Expanse (2015) - S01E01 - Dulcinea [WEBDL-1080p][EAC3 5.1][h264]-NTb.mkv`),
  ]),
  'sonarr-upgrade.json': scan('sonarr', 'Upgrade', (r) => [
    r.refreshedFile(`${expanse}/The Expanse (2015) - S01E01 - Dulcinea [Bluray-1080p Remux][TrueHD Atmos 7.1][AVC]-EPSiLON.mkv`),
    r.deletedFile(`${expanse}/The Expanse (2015) - S01E01 - Dulcinea [WEBDL-1080p][EAC3 5.1][h264]-NTb.mkv`),
  ]),
  // Both files are in Season 01: one request, naming the first; destinationPath is not used.
  'sonarr-importcomplete.json': scan('sonarr', 'Download', (r) => [
    r.file(`${expanse}/The Expanse (2015) - S01E01 - Dulcinea [WEBDL-1080p][EAC3 5.1][h264]-NTb.mkv`),
  ]),
  'sonarr-rename.json': scan('sonarr', 'Rename', (r) => [
    r.deletedFile(`${expanse}/The.Expanse.S01E01.Dulcinea.1080p.AMZN.WEB-DL.DDP5.1.H.264-NTb.mkv`),
    r.refreshedFile(`${expanse}/The Expanse (2015) - S01E01 - Dulcinea [WEBDL-1080p][EAC3 5.1][h264]-NTb.mkv`),
    r.deletedFile(`${expanse}/The.Expanse.S01E02.The.Big.Empty.1080p.AMZN.WEB-DL.DDP5.1.H.264-NTb.mkv`),
    r.refreshedFile(`${expanse}/The Expanse (2015) - S01E02 - The Big Empty [WEBDL-1080p][EAC3 5.1][h264]-NTb.mkv`),
  ]),
  'sonarr-episodefiledelete.json': scan('sonarr', 'EpisodeFileDelete', (r) => [
    r.deletedFile(`${expanse}/The Expanse (2015) - S01E01 - Dulcinea [WEBDL-1080p][EAC3 5.1][h264]-NTb.mkv`),
  ]),
  'sonarr-seriesdelete.json': scan('sonarr', 'SeriesDelete', (r) => [
    r.deletedFolder('/data/media/tv/The Expanse (2015)'),
  ]),
  'sonarr-grab.json': {
    kind: 'ignored',
    source: 'sonarr',
    event: 'Grab',
    reason: 'Grab events carry no file on disk yet',
  },
  'sonarr-seriesadd.json': {
    kind: 'ignored',
    source: 'sonarr',
    event: 'SeriesAdd',
    reason: 'SeriesAdd events come before any file is imported',
  },
  'sonarr-health.json': {
    kind: 'ignored',
    source: 'sonarr',
    event: 'Health',
    reason: "Health events are about the app's own state, not media files",
  },
  'sonarr-applicationupdate.json': {
    kind: 'ignored',
    source: 'sonarr',
    event: 'ApplicationUpdate',
    reason: 'ApplicationUpdate events are about the app itself, not media files',
  },
  'sonarr-manualinteractionrequired.json': {
    kind: 'ignored',
    source: 'sonarr',
    event: 'ManualInteractionRequired',
    reason: 'ManualInteractionRequired events mean the download still waits to be imported',
  },

  'radarr-test.json': { kind: 'test', source: 'radarr', event: 'Test' },
  'radarr-download.json': scan('radarr', 'Download', (r) => [
    r.file(`${dune}/Dune Part Two (2024) [Bluray-2160p][DTS-HD MA 7.1][HDR10][h265]-FraMeSToR.mkv`),
  ]),
  'radarr-upgrade.json': scan('radarr', 'Upgrade', (r) => [
    r.refreshedFile(`${dune}/Dune Part Two (2024) [Bluray-2160p][DTS-HD MA 7.1][HDR10][h265]-FraMeSToR.mkv`),
    r.deletedFile(`${dune}/Dune Part Two (2024) [WEBDL-2160p][EAC3 Atmos 5.1][DV HDR10][h265]-FLUX.mkv`),
  ]),
  'radarr-rename.json': scan('radarr', 'Rename', (r) => [
    r.deletedFile(`${dune}/Dune.Part.Two.2024.2160p.UHD.BluRay.REMUX.HDR.HEVC.DTS-HD.MA.7.1-FraMeSToR.mkv`),
    r.refreshedFile(`${dune}/Dune Part Two (2024) [Bluray-2160p][DTS-HD MA 7.1][HDR10][h265]-FraMeSToR.mkv`),
  ]),
  'radarr-moviefiledelete.json': scan('radarr', 'MovieFileDelete', (r) => [
    r.deletedFile(`${dune}/Dune Part Two (2024) [Bluray-2160p][DTS-HD MA 7.1][HDR10][h265]-FraMeSToR.mkv`),
  ]),
  'radarr-moviedelete.json': scan('radarr', 'MovieDelete', (r) => [r.deletedFolder(dune)]),
  'radarr-grab.json': {
    kind: 'ignored',
    source: 'radarr',
    event: 'Grab',
    reason: 'Grab events carry no file on disk yet',
  },
  'radarr-movieadded.json': {
    kind: 'ignored',
    source: 'radarr',
    event: 'MovieAdded',
    reason: 'MovieAdded events come before any file is imported',
  },

  'lidarr-test.json': { kind: 'test', source: 'lidarr', event: 'Test' },
  'lidarr-download.json': scan('lidarr', 'Download', (r) => [r.file(`${okComputer}/01 - Airbag.flac`)]),
  'lidarr-rename.json': scan('lidarr', 'Rename', (r) => [
    r.deletedFile(`${okComputer}/01 Airbag.flac`),
    r.file(`${okComputer}/01 - Airbag.flac`),
    r.deletedFile(`${okComputer}/02 Paranoid Android.flac`),
    r.file(`${okComputer}/02 - Paranoid Android.flac`),
  ]),
  'lidarr-retag.json': scan('lidarr', 'Retag', (r) => [r.file(`${okComputer}/02 - Paranoid Android.flac`)]),
  'lidarr-albumdelete.json': scan('lidarr', 'AlbumDelete', (r) => [r.deletedFolder('/data/media/music/Radiohead')]),
  'lidarr-artistdelete.json': scan('lidarr', 'ArtistDelete', (r) => [r.deletedFolder('/data/media/music/Radiohead')]),
  'lidarr-grab.json': {
    kind: 'ignored',
    source: 'lidarr',
    event: 'Grab',
    reason: 'Grab events carry no file on disk yet',
  },

  'readarr-test.json': { kind: 'test', source: 'readarr', event: 'Test' },
  'readarr-download.json': scan('readarr', 'Download', (r) => [
    r.file(`${wayOfKings}/The Way of Kings - Brandon Sanderson.epub`),
  ]),
  'readarr-rename.json': scan('readarr', 'Rename', (r) => [
    r.deletedFile(`${wayOfKings}/Brandon.Sanderson.-.The.Way.of.Kings.(2010).Retail.epub`),
    r.file(`${wayOfKings}/The Way of Kings - Brandon Sanderson.epub`),
  ]),
  'readarr-retag.json': scan('readarr', 'Retag', (r) => [r.file(`${wayOfKings}/The Way of Kings - Brandon Sanderson.epub`)]),
  'readarr-bookfiledelete.json': scan('readarr', 'BookFileDelete', (r) => [
    r.deletedFile(`${wayOfKings}/The Way of Kings - Brandon Sanderson.epub`),
  ]),

  'whisparr-download.json': scan('whisparr', 'Download', (r) => [
    r.file(
      '/data/media/adult/Example Studio/Season 2024/Example Studio - 2024-06-14 - Example Scene Title [WEBDL-1080p].mp4',
    ),
  ]),
};

/** Without a User-Agent the source comes from the media object; Whisparr v2 then reads as Sonarr. */
function withoutUserAgent(expected: TriggerResult, file: string): TriggerResult {
  if (expected.kind === 'invalid') return expected;
  const body = ownFixture<Record<string, unknown>>(`arr/${file}`);
  const family: Source | 'unknown' = body.series
    ? 'sonarr'
    : body.movie
      ? 'radarr'
      : body.artist
        ? 'lidarr'
        : body.author
          ? 'readarr'
          : 'unknown';
  if (expected.kind !== 'scan') return { ...expected, source: family };
  const source = family as Source;
  return { ...expected, source, requests: expected.requests.map((r) => ({ ...r, source })) };
}

describe('arr fixtures, one per app and event', () => {
  const files = arrEventFixtures();

  it('has an expectation for every fixture file, and a file for every expectation', () => {
    expect(Object.keys(eventExpectations).sort()).toEqual(files);
  });

  it.each(files)('%s with its app User-Agent', (file) => {
    const body = ownFixture(`arr/${file}`);
    expect(withoutIds(parseScanBody(body, userAgents[appOf(file)]))).toStrictEqual(eventExpectations[file]);
  });

  it.each(files)('%s without a User-Agent', (file) => {
    const expected = eventExpectations[file];
    expect(expected, `no expectation for ${file}`).toBeDefined();
    expect(withoutIds(parseScanBody(ownFixture(`arr/${file}`)))).toStrictEqual(withoutUserAgent(expected!, file));
  });

  it('never scans the test paths the apps put in Test payloads', () => {
    for (const file of files.filter((f) => f.endsWith('-test.json'))) {
      expect(parseScanBody(ownFixture(`arr/${file}`)).kind).toBe('test');
    }
  });
});

const robot = '/data/media/tv/Mr. Robot (2015)';
const whiteAlbum = '/data/media/music/The Beatles/The Beatles (1968)';
const exampleScene = '/data/media/adult/Example Studio - Example Scene Title (2024)';

/** Our own payloads: unicode, Windows paths, season packs, multi-disc albums, old app versions. */
const ownExpectations: Array<[file: string, userAgent: string | undefined, expected: TriggerResult]> = [
  [
    'sonarr-v4-download-unicode.json',
    userAgents.sonarr,
    scan('sonarr', 'Download', (r) => [
      r.file(
        "/data/media/tv/Dr. Stone - Ryūsui (2022)/Season 01/Dr. Stone - Ryūsui (2022) - S01E01 - Senkū's $1,000,000 Deal [HDTV-1080p][AAC 2.0][x264]-SubsPlease.mkv",
      ),
    ]),
  ],
  [
    'radarr-windows-download.json',
    'Radarr/5.26.2.10099 (windows 10.0.19045)',
    scan('radarr', 'Download', (r) => [
      r.file('D:\\Media\\Movies\\Amélie (2001)\\Amélie (2001) [Bluray-1080p][DTS 5.1][x264]-CtrlHD.mkv'),
    ]),
  ],
  [
    // 24 files over three season folders: one request per folder, not the common destinationPath.
    'sonarr-importcomplete-24.json',
    userAgents.sonarr,
    scan('sonarr', 'Download', (r) => [
      r.file(
        `${robot}/Season 01/Mr. Robot (2015) - S01E01 - eps1.0_hellofriend.mov [Bluray-1080p][DTS-HD MA 5.1][x264]-SiNNERS.mkv`,
      ),
      r.file(
        `${robot}/Season 02/Mr. Robot (2015) - S02E01 - eps2.0_unm4sk-pt1.tc [Bluray-1080p][DTS-HD MA 5.1][x264]-SiNNERS.mkv`,
      ),
      r.file(
        `${robot}/Season 03/Mr. Robot (2015) - S03E01 - eps3.0_power-saver-mode.h [Bluray-1080p][DTS-HD MA 5.1][x264]-SiNNERS.mkv`,
      ),
    ]),
  ],
  [
    // An upgrade of a two-disc album: one request per disc folder, for the new and the deleted files.
    'lidarr-multidisc-download.json',
    userAgents.lidarr,
    scan('lidarr', 'Upgrade', (r) => [
      r.file(`${whiteAlbum}/CD 01/01 - Back in the U.S.S.R..flac`),
      r.file(`${whiteAlbum}/CD 02/01 - Birthday.flac`),
      r.deletedFile(`${whiteAlbum}/CD 01/01 - Back in the U.S.S.R..mp3`),
      r.deletedFile(`${whiteAlbum}/CD 02/01 - Birthday.mp3`),
    ]),
  ],
  [
    'sonarr-v3-download.json',
    'Sonarr/3.0.9.1549 (ubuntu 20.04)',
    scan('sonarr', 'Download', (r) => [
      r.file('/tv/Mr. Robot (2015)/Season 04/Mr. Robot - S04E13 - Hello, Elliot WEBDL-1080p.mkv'),
    ]),
  ],
  [
    // Lidarr before 0.8 sent "download"; it is reported under today's spelling.
    'lidarr-lowercase-download.json',
    'Lidarr/0.7.1.1381 (debian 10)',
    scan('lidarr', 'Download', (r) => [r.file('/music/Sigur Rós/Ágætis byrjun (1999)/01 - Svefn-g-englar.flac')]),
  ],
  [
    'lidarr-lowercase-download.json',
    undefined,
    scan('lidarr', 'Download', (r) => [r.file('/music/Sigur Rós/Ágætis byrjun (1999)/01 - Svefn-g-englar.flac')]),
  ],
  [
    // Whisparr v3 is Radarr-based: a movie and its movieFile. Only the User-Agent says Whisparr.
    'whisparr-v3-download.json',
    'Whisparr/3.0.1.1181 (alpine 3.21)',
    scan('whisparr', 'Download', (r) => [r.file(`${exampleScene}/Example Studio - 2024-06-14 - Example Scene Title [WEBDL-2160p].mp4`)]),
  ],
  [
    'whisparr-v3-download.json',
    undefined,
    scan('radarr', 'Download', (r) => [r.file(`${exampleScene}/Example Studio - 2024-06-14 - Example Scene Title [WEBDL-2160p].mp4`)]),
  ],
];

/** Variants checked by a test file of their own. */
const checkedElsewhere: Record<string, string> = {
  'sonarr-v4-download-bench.json': 'test/triggers/sonarr-v4-bench-payload.test.ts',
};

describe('variant arr fixtures', () => {
  it.each(ownExpectations)('%s (User-Agent %s)', (file, userAgent, expected) => {
    expect(withoutIds(parseScanBody(ownFixture(`arr/${file}`), userAgent))).toStrictEqual(expected);
  });

  it('every arr fixture has an expectation here or a test of its own', () => {
    const covered = new Set([...Object.keys(eventExpectations), ...ownExpectations.map(([file]) => file), ...Object.keys(checkedElsewhere)]);
    const files = readdirSync(join(fixturesDir, 'arr')).filter((f) => f.endsWith('.json'));
    expect(files.filter((f) => !covered.has(f))).toEqual([]);
    expect([...covered].filter((f) => !files.includes(f))).toEqual([]);
  });
});
