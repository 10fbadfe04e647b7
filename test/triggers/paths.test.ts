// Paths reach the queue exactly as the sender wrote them; joined ones use the base's own separator.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ScanRequest } from '../../src/request.js';
import { parseScanBody } from '../../src/triggers/index.js';
import { ownFixture } from '../support/fixtures.js';

type Body = Record<string, unknown>;

function pathsOf(body: unknown, userAgent?: string): Array<Pick<ScanRequest, 'path' | 'kind' | 'deleted'>> {
  const result = parseScanBody(body, userAgent);
  if (result.kind !== 'scan') throw new Error(`expected a scan, got ${JSON.stringify(result)}`);
  return result.requests.map(({ path, kind, deleted }) => (deleted ? { path, kind, deleted } : { path, kind }));
}

const nonBlank = fc.string({ unit: 'grapheme', minLength: 1 }).filter((s) => s.trim() !== '');

describe('paths pass through byte for byte', () => {
  it('any non-blank episodeFile.path', () => {
    fc.assert(
      fc.property(nonBlank, (path) => {
        const body = { series: { path: '/tv/Show' }, episodeFile: { path }, eventType: 'Download' };
        expect(pathsOf(body)).toStrictEqual([{ path, kind: 'file' }]);
      }),
    );
  });

  it('any non-blank manual filepath', () => {
    fc.assert(
      fc.property(nonBlank, (filepath) => {
        const result = parseScanBody({ eventType: 'Manual', filepath });
        expect(result.kind === 'scan' && result.requests[0]!.path).toBe(filepath);
      }),
    );
  });

  it.each([
    ['decomposed unicode is not normalised', '/tv/Poke\u0301mon (2023)/Season 01/Poke\u0301mon - S01E01.mkv'],
    ['precomposed unicode is not normalised', '/tv/Pok\u00e9mon (2023)/Season 01/Pok\u00e9mon - S01E01.mkv'],
    ['dots in folder names', '/tv/Mr. Robot (2015)/Season 01/Mr. Robot - S01E01 - eps1.0_hellofriend.mov.mkv'],
    ['quotes, $ and backticks', `/tv/"Show" $HOME \`x\` 'y' (2020)/Season 01/e.mkv`],
    ['percent escapes and plus signs', '/tv/Show%20Name+1 (2020)/Season 01/e.mkv'],
    ['doubled and trailing spaces', '/tv/Show  Name /Season 01/e .mkv'],
    ['a Windows drive path', 'D:\\Media\\TV\\Show\\Season 01\\x.mkv'],
    ['a UNC path', '\\\\nas\\media\\TV\\Show\\Season 01\\x.mkv'],
    ['emoji and CJK', '/tv/東京 🎬 Show/Season 01/e.mkv'],
  ])('%s', (_name, path) => {
    expect(pathsOf({ series: { path: '/tv' }, episodeFile: { path }, eventType: 'Download' })).toStrictEqual([
      { path, kind: 'file' },
    ]);
  });
});

describe('relative paths are joined with the base folder separator', () => {
  it.each<[string, Body, string]>([
    ['Sonarr on Linux', { series: { path: '/tv/Show' }, episodeFile: { relativePath: 'Season 01/e.mkv' } }, '/tv/Show/Season 01/e.mkv'],
    ['a base with a trailing slash', { series: { path: '/tv/Show/' }, episodeFile: { relativePath: 'Season 01/e.mkv' } }, '/tv/Show/Season 01/e.mkv'],
    ['Sonarr on Windows', { series: { path: 'D:\\Media\\TV\\Show' }, episodeFile: { relativePath: 'Season 01\\e.mkv' } }, 'D:\\Media\\TV\\Show\\Season 01\\e.mkv'],
    ['Windows base, slash relative', { series: { path: 'D:\\Media\\TV\\Show' }, episodeFile: { relativePath: 'Season 01/e.mkv' } }, 'D:\\Media\\TV\\Show\\Season 01\\e.mkv'],
    ['a UNC share', { series: { path: '\\\\nas\\tv\\Show' }, episodeFile: { relativePath: 'Season 01\\e.mkv' } }, '\\\\nas\\tv\\Show\\Season 01\\e.mkv'],
    ['Radarr on Windows', { movie: { folderPath: 'D:\\Media\\Movies\\Amélie (2001)' }, movieFile: { relativePath: 'Amélie (2001).mkv' } }, 'D:\\Media\\Movies\\Amélie (2001)\\Amélie (2001).mkv'],
  ])('%s', (_name, payload, path) => {
    expect(pathsOf({ ...payload, eventType: 'Download' })).toStrictEqual([{ path, kind: 'file' }]);
  });

  /** Removes `path`/`previousPath` wherever a relative form sits beside it, so only the join is left. */
  function withoutAbsolutePaths(value: unknown): unknown {
    if (Array.isArray(value)) return value.map(withoutAbsolutePaths);
    if (value === null || typeof value !== 'object') return value;
    const copy: Body = {};
    for (const [key, inner] of Object.entries(value)) {
      if (key === 'path' && 'relativePath' in value) continue;
      if (key === 'previousPath' && 'previousRelativePath' in value) continue;
      copy[key] = withoutAbsolutePaths(inner);
    }
    return copy;
  }

  /** Every fixture whose files carry a relativePath beside the absolute path. */
  const withRelative = [
    'sonarr-v4-download-unicode.json',
    'radarr-windows-download.json',
    'sonarr-importcomplete-24.json',
    'sonarr-v3-download.json',
    'sonarr-download.json',
    'sonarr-upgrade.json',
    'sonarr-importcomplete.json',
    'sonarr-rename.json',
    'sonarr-episodefiledelete.json',
    'radarr-download.json',
    'radarr-upgrade.json',
    'radarr-rename.json',
    'radarr-moviefiledelete.json',
    'whisparr-download.json',
    'whisparr-v3-download.json',
  ];

  it.each(withRelative)('%s: the join gives the same requests as the absolute paths', (file) => {
    const body = ownFixture(`arr/${file}`);
    expect(pathsOf(withoutAbsolutePaths(body))).toStrictEqual(pathsOf(body));
  });
});

describe('distinct folders use the path separator of the paths', () => {
  it('a Windows multi-disc album gives one request per disc', () => {
    const album = 'D:\\Music\\The Beatles\\The Beatles (1968)';
    const body = {
      artist: { path: 'D:\\Music\\The Beatles' },
      trackFiles: [
        { path: `${album}\\CD 01\\01 - Back in the U.S.S.R..flac` },
        { path: `${album}\\CD 01\\02 - Dear Prudence.flac` },
        { path: `${album}\\CD 02\\01 - Birthday.flac` },
        { path: `${album}\\CD 02\\02 - Yer Blues.flac` },
      ],
      eventType: 'Download',
    };
    expect(pathsOf(body)).toStrictEqual([
      { path: `${album}\\CD 01\\01 - Back in the U.S.S.R..flac`, kind: 'file' },
      { path: `${album}\\CD 02\\01 - Birthday.flac`, kind: 'file' },
    ]);
  });

  it('folders differing only in case are different folders', () => {
    const body = {
      artist: { path: '/music/A' },
      trackFiles: [{ path: '/music/A/Album/01.flac' }, { path: '/music/A/album/02.flac' }],
      eventType: 'Download',
    };
    expect(pathsOf(body)).toStrictEqual([
      { path: '/music/A/Album/01.flac', kind: 'file' },
      { path: '/music/A/album/02.flac', kind: 'file' },
    ]);
  });
});
