// The intake benchmark's payload is a Sonarr v4 import as the parser sees it: one file request, and the same
// when the benchmark gives each request a series folder of its own.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseScanBody } from '../../src/triggers/index.js';
import { ownFixture } from '../support/fixtures.js';
import { scan, withoutIds } from '../support/requests.js';

const UA = 'Sonarr/4.0.14.2939 (ubuntu 24.04)';
const file = (folder: string) => `${folder}/Season 02/Severance (2022) - S02E03 - Who Is Alive [WEBDL-2160p][DV HDR10][EAC3 Atmos 5.1][h265]-FLUX.mkv`;

describe('the intake benchmark payload (Sonarr v4 Download)', () => {
  it('asks for the imported file', () => {
    const parsed = parseScanBody(ownFixture('arr/sonarr-v4-download-bench.json'), UA);
    expect(withoutIds(parsed)).toStrictEqual(scan('sonarr', 'Download', (r) => [r.file(file('/tv/Severance (2022)'))]));
    // The series' IDs ride along for PLEX_FIX_MISMATCHED.
    expect(parsed.kind === 'scan' && parsed.requests[0].ids).toEqual({ tvdb: '371980', tmdb: '95396', imdb: 'tt11280740', title: 'Severance' });
  });

  it('with a per-request series folder, as the benchmark sends it, asks for the file in that folder', () => {
    const text = readFileSync(join(__dirname, '../fixtures/arr/sonarr-v4-download-bench.json'), 'utf8');
    const varied = text.replaceAll('Severance (2022)', 'Severance 2-417 (2022)');
    const result = parseScanBody(JSON.parse(varied), UA);
    expect(result.kind === 'scan' && result.requests.map((r) => r.path)).toEqual([
      '/tv/Severance 2-417 (2022)/Season 02/Severance 2-417 (2022) - S02E03 - Who Is Alive [WEBDL-2160p][DV HDR10][EAC3 Atmos 5.1][h265]-FLUX.mkv',
    ]);
  });
});
