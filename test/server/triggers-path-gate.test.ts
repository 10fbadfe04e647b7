// The finding: a path the gate refused on any /triggers/* route was answered 500 with an ERROR line per request.
// Replayed on every trigger route: each refusal is a 400 that says the rule, nothing is queued, no ERROR is
// written, and a client that keeps sending refused paths writes one WARN a minute, then a count.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Config } from '../../src/config/schema.js';
import { configSchema } from '../../src/config/schema.js';
import { testService, type TestService } from '../support/service.js';

const USER = 'autoscan-user';
const PASSWORD = 'autoscan-pass-7c2e9d41';
const authorization = `Basic ${Buffer.from(`${USER}:${PASSWORD}`).toString('base64')}`;
const autoscan = () => configSchema().parse({ AUTOSCAN: { ENABLED: true, USER, PASSWORD } }).AUTOSCAN as Config['AUTOSCAN'];

let t: TestService;
beforeEach(async () => {
  t = await testService({ config: { AUTOSCAN: autoscan(), SERVER_SCAN_DELAY: 0 } });
  t.plex.sections.push({ key: '9', title: 'TV', locations: ['/data/media/TV'] });
});
afterEach(async () => t.close());

const sonarr = (seriesPath: string) =>
  JSON.stringify({ eventType: 'Download', series: { id: 1, title: 'x', path: seriesPath }, episodeFile: { id: 2, relativePath: 'Season 01/x.mkv' } });
const enc = encodeURIComponent;

/** [what, method, url, body, the rule the gate names] */
const CASES: [string, 'GET' | 'POST', string, string | undefined, string][] = [
  ['an autoscan sonarr trigger', 'POST', '/triggers/sonarr', sonarr('/mnt/unionfs/Media/TV/../../../etc'), 'escapes-prefix'],
  ['an autoscan radarr trigger', 'POST', '/triggers/radarr', JSON.stringify({ eventType: 'Download', movie: { id: 1, title: 'x', folderPath: 'movies/x' }, movieFile: { relativePath: 'x.mkv' } }), 'not-absolute'],
  ['Tdarr', 'POST', '/triggers/tdarr', JSON.stringify({ path: '/data/media/TV/Show/Show\u202evkm.exe' }), 'invisible-character'],
  ['the manual dir=', 'GET', `/triggers/manual?dir=${enc('tv/Show')}`, undefined, 'not-absolute'],
  ['the manual dir= with a NUL', 'GET', `/triggers/manual?dir=${enc('/data/media/TV/a\0b')}`, undefined, 'control-character'],
  ['A-Train', 'POST', '/triggers/a-train/drive0', JSON.stringify({ created: ['/mnt/unionfs/Media/TV/../../../root/.ssh'] }), 'escapes-prefix'],
  ["autopulse's manual path=", 'GET', `/triggers/manual?path=${enc('/data/media/TV/Show/a\u200bb.mkv')}`, undefined, 'invisible-character'],
  ["Bazarr's path=", 'GET', `/triggers/bazarr?path=${enc('/data/media/TV/Show/\u2066x.srt')}`, undefined, 'invisible-character'],
];

const send = (method: 'GET' | 'POST', url: string, payload?: string) =>
  t.service.app.inject({ method, url, headers: { authorization, ...(payload ? { 'content-type': 'application/json', 'user-agent': 'Sonarr/4.0' } : {}) }, payload });
const lines = () => t.logs.map((l) => JSON.parse(l) as { level: string; msg: string; rule?: string; suppressed?: number });

describe('a refused path on /triggers/*', () => {
  it.each(CASES)('%s: 400 naming the rule, nothing queued, no ERROR', async (_what, method, url, body, rule) => {
    const res = await send(method, url, body);
    expect(res.statusCode, res.body).toBe(400);
    // JSON like the other 400s: autoscan's routes as the webhook route answers, autopulse's as a JSON string.
    const answer = res.json() as { error: string; rule: string } | string;
    const text = typeof answer === 'string' ? answer : answer.error;
    expect(text).toContain(`(${rule})`);
    if (typeof answer !== 'string') expect(answer.rule).toBe(rule);
    if (rule === 'invisible-character') expect(text).toMatch(/: U\+(202E|200B|2066) /);
    expect(t.service.queue.count()).toBe(0);
    expect(lines().filter((l) => l.level === 'error')).toEqual([]);
    expect(lines().filter((l) => l.rule === rule && l.level === 'warn')).toHaveLength(1);
  });

  it('a client that keeps sending them writes one WARN a minute, then says how many it did not write', async () => {
    for (let round = 0; round < 3; round++) for (const [, method, url, body] of CASES) expect((await send(method, url, body)).statusCode).toBe(400);
    const refusals = () => lines().filter((l) => /^Refused a .* request from '127\.0\.0\.1'/.test(l.msg));
    expect(refusals()).toHaveLength(1);
    expect(refusals()[0].msg).toMatch(/At most one such line per client per minute is written\.$/);
    // Nothing else said it either: no INFO or ERROR line per request.
    expect(lines().filter((l) => l.level !== 'debug' && !/^Refused a /.test(l.msg) && /refused path/.test(l.msg))).toEqual([]);
    t.clock.advance(60_000);
    expect((await send('GET', CASES[3][2])).statusCode).toBe(400);
    expect(refusals()).toHaveLength(2);
    expect(refusals()[1]).toMatchObject({ level: 'warn', suppressed: 3 * CASES.length - 1 });
    expect(refusals()[1].msg).toContain(`(${3 * CASES.length - 1} more from this client since the last warning)`);
  });
});
