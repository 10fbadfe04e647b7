// PLEX_FIX_MISMATCHED: the match check and fix against the fake Plex over HTTP, for a legacy-agent and a
// current-agent item: validated, fixed through the matches API, split first when merged, and the dry run.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { PlexApi } from '../../src/targets/plex/api.js';
import { MatchFixer, type MatchRequest } from '../../src/targets/plex/match.js';
import { logCollector } from '../drive/harness.js';
import { FakePlex } from '../fakes/plex.js';
import { parseScanBody } from '../../src/triggers/index.js';

let plex: FakePlex;
let log: ReturnType<typeof logCollector>;
beforeEach(async () => {
  plex = await new FakePlex().start();
  log = logCollector();
});
afterEach(() => plex.stop());

function fixer(dryRun = false): MatchFixer {
  return new MatchFixer(new PlexApi({ url: plex.url, token: plex.token }), { lang: 'en', dryRun, clock: new ManualClock(), splitSettleMs: 10_000 }, log.logger);
}

const OFFICE = '/data/media/tv/The Office (US)';
const EPISODE = `${OFFICE}/Season 01/The Office (US) - S01E01.mkv`;

/** A show matched to `guid` holding one episode of the scanned file. */
function show(guid: string, guids: string[] = [], locations = [OFFICE]) {
  const s = plex.meta.addMetadata({ type: 'show', title: 'The Office', guid, guids, locations });
  const e = plex.meta.addMetadata({ type: 'episode', title: 'Pilot', guid: `${guid}/1/1`, grandparentRatingKey: s.ratingKey, files: [EPISODE] });
  return { show: s, episode: e };
}

const sonarr = (ratingKey: string): MatchRequest => ({ file: EPISODE, ratingKey, ids: { tvdb: '73244', imdb: 'tt0386676', title: 'The Office (US)' } });

describe('legacy agents (com.plexapp.agents.thetvdb://ID?lang=…)', () => {
  it('a right match is validated and nothing is changed', async () => {
    const { episode } = show('com.plexapp.agents.thetvdb://73244?lang=en');
    expect(await fixer().check(sonarr(episode.ratingKey))).toMatchObject({ kind: 'validated' });
    expect(plex.meta.metadataCalls).toEqual([]);
    expect(log.messages().join('\n')).toContain("Match validated for 'The Office'");
  });

  it('a wrong match is fixed: the legacy agent is searched by title, the item matched to the ID, then refreshed', async () => {
    const { show: s, episode } = show('com.plexapp.agents.thetvdb://78107?lang=en'); // The Office (UK)
    plex.meta.matchCandidates.push(
      { guid: 'com.plexapp.agents.thetvdb://78107?lang=en', name: 'The Office' },
      { guid: 'com.plexapp.agents.thetvdb://73244?lang=en', name: 'The Office (US)' },
    );
    expect(await fixer().check(sonarr(episode.ratingKey))).toMatchObject({ kind: 'fixed', guid: 'com.plexapp.agents.thetvdb://73244?lang=en', split: false });
    expect(plex.meta.metadataCalls).toEqual([`match ${s.ratingKey} com.plexapp.agents.thetvdb://73244?lang=en`, `refresh ${s.ratingKey}`]);
    expect(plex.meta.metadata.get(s.ratingKey)).toMatchObject({ guid: 'com.plexapp.agents.thetvdb://73244?lang=en', title: 'The Office (US)' });
    const search = plex.requests.find((r) => r.path.endsWith('/matches'))!;
    expect(search.query).toMatchObject({ agent: 'com.plexapp.agents.thetvdb', title: 'The Office (US)', language: 'en', manual: '1' });
    expect(log.messages().join('\n')).toContain("Fixing match of 'The Office'");
  });

  it('with no search hit the GUID is built from the ID and PLEX_FIX_MISMATCHED_LANG, as plex_autoscan did', async () => {
    const { show: s, episode } = show('com.plexapp.agents.thetvdb://78107?lang=de');
    const f = new MatchFixer(new PlexApi({ url: plex.url, token: plex.token }), { lang: 'de', dryRun: false, clock: new ManualClock() }, log.logger);
    expect(await f.check(sonarr(episode.ratingKey))).toMatchObject({ kind: 'fixed', guid: 'com.plexapp.agents.thetvdb://73244?lang=de' });
    expect(plex.meta.metadataCalls).toEqual([`match ${s.ratingKey} com.plexapp.agents.thetvdb://73244?lang=de`, `refresh ${s.ratingKey}`]);
  });
});

describe('current agents (plex://… with a Guid list)', () => {
  const UK = ['tvdb://78107', 'imdb://tt0290978'];
  const US = ['tvdb://73244', 'imdb://tt0386676', 'tmdb://2316'];

  it('a right match is validated from the Guid list', async () => {
    const { episode } = show('plex://show/5d9c086c46115600200aa2fe', US);
    expect(await fixer().check(sonarr(episode.ratingKey))).toMatchObject({ kind: 'validated' });
    expect(plex.meta.metadataCalls).toEqual([]);
  });

  it('a wrong match is fixed: the matches API is asked for "tvdb-<id>", the item matched to the result, then refreshed', async () => {
    const { show: s, episode } = show('plex://show/uk', UK);
    plex.meta.matchCandidates.push({ guid: 'plex://show/uk', name: 'The Office', guids: UK }, { guid: 'plex://show/us', name: 'The Office (US)', guids: US });
    expect(await fixer().check(sonarr(episode.ratingKey))).toMatchObject({ kind: 'fixed', guid: 'plex://show/us' });
    expect(plex.meta.metadataCalls).toEqual([`match ${s.ratingKey} plex://show/us`, `refresh ${s.ratingKey}`]);
    expect(plex.meta.metadata.get(s.ratingKey)!.guids).toEqual(US);
    expect(plex.requests.find((r) => r.path.endsWith('/matches'))!.query.title).toBe('tvdb-73244');
  });

  it('no candidate: a warning that says to fix it by hand, nothing is changed', async () => {
    const { episode } = show('plex://show/uk', UK);
    expect(await fixer().check(sonarr(episode.ratingKey))).toMatchObject({ kind: 'skipped' });
    expect(plex.meta.metadataCalls).toEqual([]);
    expect(log.messages().join('\n')).toContain('fix the match in Plex by hand');
  });

  it('a movie matched through tmdb', async () => {
    const file = '/data/media/movies/Heat (1995)/Heat (1995).mkv';
    const movie = plex.meta.addMetadata({ type: 'movie', title: 'Heat', guid: 'plex://movie/wrong', guids: ['tmdb://99999'], files: [file] });
    plex.meta.matchCandidates.push({ guid: 'plex://movie/heat', name: 'Heat', guids: ['tmdb://949', 'imdb://tt0113277'] });
    expect(await fixer().check({ file, ratingKey: movie.ratingKey, ids: { tmdb: '949', imdb: 'tt0113277' } })).toMatchObject({ kind: 'fixed', guid: 'plex://movie/heat' });
  });
});

describe('merged items are split first', () => {
  it('a show that also holds another folder is split, then the scanned folder\'s show is checked and fixed', async () => {
    const { show: s, episode } = show('com.plexapp.agents.thetvdb://78107?lang=en', [], ['/data/media/tv/The Office (UK)', OFFICE]);
    const fixerRun = await fixer().check(sonarr(episode.ratingKey));
    const after = plex.meta.metadata.get(episode.ratingKey)!.grandparentRatingKey!;
    expect(after).not.toBe(s.ratingKey);
    expect(fixerRun).toMatchObject({ kind: 'fixed', ratingKey: after, split: true });
    expect(plex.meta.metadataCalls).toEqual([`split ${s.ratingKey}`, `match ${after} com.plexapp.agents.thetvdb://73244?lang=en`, `refresh ${after}`]);
    expect(plex.meta.metadata.get(s.ratingKey)!.guid).toBe('com.plexapp.agents.thetvdb://78107?lang=en'); // the UK show is left alone
  });

  it('a movie whose item also holds a file of another folder is split and the file found again by its path', async () => {
    const file = '/data/media/movies/Heat (1995)/Heat (1995).mkv';
    const other = '/data/media/movies/Heat (1986)/Heat (1986).mkv';
    const merged = plex.addToLibrary(file).ratingKey;
    plex.addToLibrary(other).ratingKey = merged;
    plex.meta.addMetadata({ ratingKey: merged, type: 'movie', title: 'Heat', guid: 'plex://movie/heat1986', guids: ['tmdb://1986'], files: [other, file] });
    plex.meta.matchCandidates.push({ guid: 'plex://movie/heat', name: 'Heat', guids: ['tmdb://949'] });
    const outcome = await fixer().check({ file, ratingKey: merged, sectionId: '1', ids: { tmdb: '949' } });
    const mine = plex.library.get(file)!.ratingKey;
    expect(mine).not.toBe(merged);
    expect(outcome).toMatchObject({ kind: 'fixed', ratingKey: mine, split: true });
    expect(plex.meta.metadata.get(mine)!.guid).toBe('plex://movie/heat');
    expect(plex.meta.metadata.get(merged)!.guid).toBe('plex://movie/heat1986');
  });
});

describe('PLEX_FIX_MISMATCHED_DRY_RUN', () => {
  it('logs the split and the fix it would make and changes nothing', async () => {
    const { episode } = show('plex://show/uk', ['tvdb://78107'], ['/data/media/tv/The Office (UK)', OFFICE]);
    plex.meta.matchCandidates.push({ guid: 'plex://show/us', name: 'The Office (US)', guids: ['tvdb://73244'] });
    expect(await fixer(true).check(sonarr(episode.ratingKey))).toMatchObject({ kind: 'dry-run', guid: 'plex://show/us', split: true });
    expect(plex.meta.metadataCalls).toEqual([]);
    const text = log.messages().join('\n');
    expect(text).toContain('Dry run: would split');
    expect(text).toMatch(/Dry run: Fixing match of 'The Office'.*would match it to 'The Office \(US\)'/);
  });
});

describe('what cannot be checked', () => {
  it('a request without IDs, an item without comparable IDs, and a Plex error each leave the match alone', async () => {
    const { episode } = show('com.plexapp.agents.none://x');
    expect(await fixer().check({ file: EPISODE, ratingKey: episode.ratingKey, ids: {} })).toMatchObject({ kind: 'skipped', reason: expect.stringContaining('no tvdb, tmdb or imdb ID') });
    expect(await fixer().check(sonarr(episode.ratingKey))).toMatchObject({ kind: 'skipped', reason: expect.stringContaining('carries none of the IDs') });
    plex.failRoute('GET', /^\/library\/metadata\//, 500);
    expect(await fixer().check(sonarr(episode.ratingKey))).toMatchObject({ kind: 'skipped', reason: expect.stringContaining('answered 500') });
    expect(plex.meta.metadataCalls).toEqual([]);
  });
});

describe('from a Sonarr Download webhook', () => {
  it('the IDs the parse puts on the request are what the fix compares: a wrongly matched show is fixed', async () => {
    const { show: s, episode } = show('plex://show/uk', ['tvdb://78107']);
    plex.meta.matchCandidates.push({ guid: 'plex://show/us', name: 'The Office (US)', guids: ['tvdb://73244'] });
    const body = { eventType: 'Download', series: { title: 'The Office (US)', path: OFFICE, tvdbId: 73244, imdbId: 'tt0386676' }, episodeFile: { relativePath: 'Season 01/The Office (US) - S01E01.mkv' } };
    const parsed = parseScanBody(body, 'Sonarr/4.0.17.2952 (ubuntu 24.04)');
    if (parsed.kind !== 'scan') throw new Error(parsed.kind);
    const [req] = parsed.requests;
    expect(req.path).toBe(EPISODE);
    expect(await fixer().check({ file: req.path, ratingKey: episode.ratingKey, ids: req.ids! })).toMatchObject({ kind: 'fixed', guid: 'plex://show/us' });
    expect(plex.meta.metadata.get(s.ratingKey)!.guids).toEqual(['tvdb://73244']);
  });
});
