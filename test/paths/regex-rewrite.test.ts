// Regex rules in any mapping ({"FROM": "<regex>", "TO": "<replacement>"}, autoscan's rewrite form): how they map,
// how they load, and a webhook through the real server mapped by one, as the path doctor then explains it.
import { afterEach, describe, expect, it } from 'vitest';
import { configSchema } from '../../src/config/schema.js';
import { pathMappings } from '../../src/value-rules.js';
import { mapPath } from '../../src/paths/mapping.js';
import { rewritePath } from '../../src/targets/rewrite.js';
import { SECRET, testService, type TestService } from '../support/service.js';
import { explanationText } from '../../src/doctor/text.js';

const rules = (value: unknown) => pathMappings().parse(value);

describe('regex rules in a mapping', () => {
  it('map with Go-style groups ($1, ${1}, ${name}, $$) after no prefix matched', () => {
    const m = rules({
      '/data/Movies/': ['/movies/'],
      'tv by drive': { FROM: '^/mnt/(?<drive>disk\\d+)/tv/(.*)$', TO: '/data/TV/${drive}/$2' },
      literal: { FROM: '^/costs/', TO: '/data/$$/' },
    });
    expect(mapPath('/mnt/disk3/tv/Show/S01/e.mkv', m)).toEqual({
      path: '/data/TV/disk3/Show/S01/e.mkv',
      match: { from: '^/mnt/(?<drive>disk\\d+)/tv/(.*)$', to: '/data/TV/${drive}/$2', rule: 'tv by drive' },
    });
    expect(mapPath('/costs/x', m).path).toBe('/data/$/x');
    // The prefix entry wins where both could apply; an unmatched path passes unchanged.
    expect(mapPath('/movies/Heat (1995)/Heat.mkv', m)).toEqual({ path: '/data/Movies/Heat (1995)/Heat.mkv', match: { to: '/data/Movies/', from: '/movies/' } });
    expect(mapPath('/elsewhere/x.mkv', m)).toEqual({ path: '/elsewhere/x.mkv' });
  });

  it('only the first matching rule applies, to every place it matches (autoscan: ReplaceAllString)', () => {
    const m = rules({ one: { FROM: 'a', TO: 'b' }, two: { FROM: '^/b', TO: '/never' } });
    expect(mapPath('/a/a/x', m).path).toBe('/b/b/x');
    expect(mapPath('/a/a/x', m).match?.rule).toBe('one');
  });

  it("work in a target's PATH_MAPPINGS too (the same mapping code)", () => {
    expect(rewritePath('/data/TV/Show', rules({ jf: { FROM: '^/data/(\\w+)/', TO: '/media/$1/' } }))).toBe('/media/TV/Show');
  });

  it('a pattern that does not compile stops the config with its key; the prefix entries read as before', () => {
    const bad = configSchema().safeParse({ SERVER_PASS: 'x'.repeat(32), SERVER_PATH_MAPPINGS: { broken: { FROM: '^/(tv', TO: '/x/' } } });
    expect(bad.success).toBe(false);
    expect(bad.error!.issues[0]).toMatchObject({ path: ['SERVER_PATH_MAPPINGS', 'broken', 'FROM'], message: expect.stringMatching(/a regular expression that compiles/) });
    const good = configSchema().parse({ SERVER_PASS: 'x'.repeat(32), SERVER_PATH_MAPPINGS: { '/data/': ['/tv/'], r: { FROM: '^/x/', TO: '/data/' } } });
    expect(Object.entries(good.SERVER_PATH_MAPPINGS)).toEqual([['/data/', ['/tv/']]]);
    expect(JSON.stringify(good.SERVER_PATH_MAPPINGS)).toBe('{"/data/":["/tv/"]}');
  });
});

describe('regex rules through the real server', () => {
  let t: TestService;
  afterEach(async () => t?.close());

  it('a Sonarr import is queued at the path a regex rule wrote, and the path doctor names the rule', async () => {
    t = await testService({
      config: { SERVER_PATH_MAPPINGS: rules({ 'disk to media': { FROM: '^/mnt/disk\\d+/(tv|movies)/', TO: '/data/media/$1/' } }) },
    });
    t.plex.sections.push({ key: '9', title: 'TV', locations: ['/data/media/tv'] });
    const payload = { eventType: 'Download', series: { path: '/mnt/disk2/tv/Show' }, episodeFile: { path: '/mnt/disk2/tv/Show/Season 1/e.mkv' } };
    const res = await t.service.app.inject({ method: 'POST', url: `/${SECRET}`, payload });
    expect(res.statusCode).toBe(200);
    expect(t.service.queue.list().map((r) => r.folder)).toEqual(['/data/media/tv/Show/Season 1']);
    const doctor = await t.service.app.inject({ url: `/api/${SECRET}/explain?path=${encodeURIComponent('/mnt/disk7/movies/M (1999)/m.mkv')}` });
    expect(doctor.json().mapping).toMatchObject({ result: '/data/media/movies/M (1999)/m.mkv', match: { rule: 'disk to media' } });
  });

  it("the path doctor names the rule that rewrote a folder for a target (TARGETS[].PATH_MAPPINGS)", async () => {
    const targets = configSchema().parse({
      SERVER_PASS: 'x'.repeat(32),
      TARGETS: [{ NAME: 'nas', TYPE: 'command', COMMAND: ['true'], PATH_MAPPINGS: { 'media to srv': { FROM: '^/data/media/(tv|movies)/', TO: '/srv/$1/' } } }],
    }).TARGETS;
    t = await testService({ config: { TARGETS: targets } });
    const doctor = await t.service.app.inject({ url: `/api/${SECRET}/explain?path=${encodeURIComponent('/data/media/tv/Show/Season 1/e.mkv')}` });
    const nas = (doctor.json().targets as { name: string; path: string; rewrite: { rule?: string } | null }[]).find((x) => x.name === 'nas');
    expect(nas).toMatchObject({ path: '/srv/tv/Show/Season 1', rewrite: { rule: 'media to srv' } });
    expect(explanationText(doctor.json())).toContain("rewritten by rule 'media to srv'");
  });
});
