// PLEX_FIX_MISMATCHED end to end: one Sonarr Download through the real server; once the follow-up confirms the
// episode, a show Plex matched wrongly is fixed, for a legacy-agent and a current-agent item; off, or without
// PLEX_CONFIRM_SCANS, it is left as it is (the rule the Plex kind applies, src/targets/plex/target.ts).
import { afterEach, describe, expect, it } from 'vitest';
import type { Config } from '../../src/config/schema.js';
import { SECRET, testService, type TestService } from '../support/service.js';

let t: TestService | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

const SHOW = '/data/media/tv/The Office (US)';
const EPISODE = `${SHOW}/Season 01/The Office (US) - S01E01 - Pilot.mkv`;
const download = JSON.stringify({
  eventType: 'Download',
  series: { id: 3, title: 'The Office (US)', path: '/mnt/unionfs/Media/tv/The Office (US)', tvdbId: 73244, imdbId: 'tt0386676', type: 'standard' },
  episodes: [{ id: 101, episodeNumber: 1, seasonNumber: 1, title: 'Pilot' }],
  episodeFile: { id: 55, relativePath: 'Season 01/The Office (US) - S01E01 - Pilot.mkv', path: `/mnt/unionfs/Media/tv/The Office (US)/Season 01/The Office (US) - S01E01 - Pilot.mkv` },
  isUpgrade: false,
});

/** A show matched to `guid`, its episode being the file the download names (in the library once scanned). */
function wronglyMatched(s: TestService, guid: string, guids: string[] = []) {
  const show = s.plex.meta.addMetadata({ type: 'show', title: 'The Office', guid, guids, locations: [SHOW] });
  const episode = s.plex.meta.addMetadata({ type: 'episode', title: 'Pilot', guid: `${guid}/1/1`, grandparentRatingKey: show.ratingKey, files: [EPISODE] });
  // The scan finds the file as this episode: the confirmation hands its ratingKey to the match check.
  s.plex.library.set(EPISODE, { ratingKey: episode.ratingKey, file: EPISODE, addedAt: Math.floor(Date.now() / 1000) });
  return show;
}

async function oneDownload(config: Partial<Config>): Promise<TestService> {
  t = await testService({ config: { PLEX_FIX_MISMATCHED: true, ...config } });
  return t;
}

async function deliver(s: TestService): Promise<void> {
  const res = await s.service.app.inject({ method: 'POST', url: `/${SECRET}`, headers: { 'content-type': 'application/json' }, payload: download });
  expect(res.statusCode).toBe(200);
  s.clock.advance(s.service.config.SERVER_SCAN_DELAY * 1000);
  await s.service.processor.drain();
}

describe('PLEX_FIX_MISMATCHED after one Sonarr Download', () => {
  it('a legacy-agent show matched to the wrong series is matched to the payload\'s tvdbId and refreshed', async () => {
    const s = await oneDownload({});
    const show = wronglyMatched(s, 'com.plexapp.agents.thetvdb://78107?lang=en');
    s.plex.meta.matchCandidates.push({ guid: 'com.plexapp.agents.thetvdb://73244?lang=en', name: 'The Office (US)' });
    await deliver(s);
    expect(s.plex.refreshes).toEqual([{ section: '2', path: `${SHOW}/Season 01` }]);
    expect(s.plex.meta.metadataCalls).toEqual([`match ${show.ratingKey} com.plexapp.agents.thetvdb://73244?lang=en`, `refresh ${show.ratingKey}`]);
    expect(s.service.queue.history()[0]).toMatchObject({ outcome: 'confirmed', detail: expect.stringContaining('Match fixed (com.plexapp.agents.thetvdb://73244?lang=en).') });
    expect(s.logs.join('\n')).toContain("Fixing match of 'The Office'");
  });

  it('a current-agent (plex://) show is fixed through the matches API from its Guid list', async () => {
    const s = await oneDownload({});
    const show = wronglyMatched(s, 'plex://show/uk', ['tvdb://78107', 'imdb://tt0290978']);
    s.plex.meta.matchCandidates.push({ guid: 'plex://show/us', name: 'The Office (US)', guids: ['tvdb://73244', 'imdb://tt0386676'] });
    await deliver(s);
    expect(s.plex.meta.metadataCalls).toEqual([`match ${show.ratingKey} plex://show/us`, `refresh ${show.ratingKey}`]);
    expect(s.service.queue.history()[0].detail).toContain('Match fixed (plex://show/us).');
  });

  it('off, or on without PLEX_CONFIRM_SCANS (it checks confirmed files only, and the log says so): the wrong match stays', async () => {
    let s = await oneDownload({ PLEX_FIX_MISMATCHED: false });
    wronglyMatched(s, 'plex://show/uk', ['tvdb://78107']);
    s.plex.meta.matchCandidates.push({ guid: 'plex://show/us', name: 'The Office (US)', guids: ['tvdb://73244'] });
    await deliver(s);
    expect(s.service.queue.history()[0]).toMatchObject({ outcome: 'confirmed' });
    expect(s.service.queue.history()[0].detail).not.toMatch(/Match/);
    expect(s.plex.meta.metadataCalls).toEqual([]);
    await t!.close();
    s = await oneDownload({ PLEX_CONFIRM_SCANS: false });
    wronglyMatched(s, 'plex://show/uk', ['tvdb://78107']);
    s.plex.meta.matchCandidates.push({ guid: 'plex://show/us', name: 'The Office (US)', guids: ['tvdb://73244'] });
    await deliver(s);
    expect(s.plex.refreshes).toHaveLength(1);
    expect(s.plex.meta.metadataCalls).toEqual([]);
    expect(s.logs.join('\n')).toContain('PLEX_FIX_MISMATCHED is on but PLEX_CONFIRM_SCANS is false');
  });

  it('a right match is validated, and the dry run only logs', async () => {
    let s = await oneDownload({});
    wronglyMatched(s, 'plex://show/us', ['tvdb://73244']);
    await deliver(s);
    expect(s.plex.meta.metadataCalls).toEqual([]);
    expect(s.service.queue.history()[0].detail).toContain('Match validated.');
    await t!.close();
    s = await oneDownload({ PLEX_FIX_MISMATCHED_DRY_RUN: true });
    wronglyMatched(s, 'plex://show/uk', ['tvdb://78107']);
    s.plex.meta.matchCandidates.push({ guid: 'plex://show/us', name: 'The Office (US)', guids: ['tvdb://73244'] });
    await deliver(s);
    expect(s.plex.meta.metadataCalls).toEqual([]);
    expect(s.service.queue.history()[0].detail).toContain('PLEX_FIX_MISMATCHED_DRY_RUN');
  });
});
