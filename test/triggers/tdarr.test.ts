// Tdarr: its Send Webhook Notification plugin's body (fixtures from Tdarr_Plugins) on /<SERVER_PASS>, where the
// plugin (a URL, no headers) can post, and on /triggers/tdarr with Basic auth, with {"path"} from a web request.
import { afterEach, describe, expect, it } from 'vitest';
import type { Config } from '../../src/config/schema.js';
import { parseScanBody } from '../../src/triggers/index.js';
import { ownFixture } from '../support/fixtures.js';
import { SECRET, testService, type TestService } from '../support/service.js';

const complete = ownFixture('tdarr/send-webhook-complete.json') as Record<string, unknown>;
const start = ownFixture('tdarr/send-webhook-start.json') as Record<string, unknown>;
const authorization = `Basic ${Buffer.from('tdarr:tdarr-pass-77').toString('base64')}`;
const autoscan = { ENABLED: true, USER: 'tdarr', PASSWORD: 'tdarr-pass-77', TRIGGERS: [], MANUAL_REWRITE: {}, A_TRAIN_REWRITE: {}, A_TRAIN_DRIVES: {} } as unknown as Config['AUTOSCAN'];

let t: TestService;
afterEach(async () => t?.close());

describe("Tdarr's notification", () => {
  it('the completed transcode asks for its file (item refreshed where REFRESH_ITEMS is on); the start is ignored', () => {
    expect(parseScanBody(complete)).toEqual({
      kind: 'scan',
      source: 'tdarr',
      event: 'Transcoded',
      requests: [{ path: '/media/tv/Show/Season 01/Show - S01E02 - Two.mkv', source: 'tdarr', event: 'Transcoded', kind: 'file', refresh: 'item-if-enabled' }],
    });
    expect(parseScanBody(start)).toMatchObject({ kind: 'ignored', source: 'tdarr', event: 'Started' });
  });

  it('the emoji language shortens the path: ignored with what to change', () => {
    const emoji = structuredClone(complete) as { embeds: { fields: { name: string; value: string }[]; footer: { text: string } }[] };
    emoji.embeds[0].fields[0] = { name: '📁', value: '.../Season 01/Show - S01E02 - Two.mkv' };
    emoji.embeds[0].footer.text = '🎉 Tdarr';
    expect(parseScanBody(emoji)).toMatchObject({ kind: 'ignored', reason: expect.stringMatching(/Language to english or german/) });
  });

  it('posted to /<SERVER_PASS> through the real server, the folder of the transcoded file is queued', async () => {
    t = await testService({ config: { SERVER_PATH_MAPPINGS: { '/data/media/': ['/media/'] } } });
    const res = await t.service.app.inject({ method: 'POST', url: `/${SECRET}`, payload: complete });
    expect(res.statusCode).toBe(200);
    expect(t.service.queue.list().map((r) => [r.folder, r.source, r.event])).toEqual([['/data/media/tv/Show/Season 01', 'tdarr', 'Transcoded']]);
  });

  it('/triggers/tdarr takes the same body or {"path"} with Basic auth', async () => {
    t = await testService({ config: { AUTOSCAN: autoscan, SERVER_PATH_MAPPINGS: { '/data/media/': ['/media/'] } } });
    const post = (payload: unknown, auth = authorization) =>
      t.service.app.inject({ method: 'POST', url: '/triggers/tdarr', headers: { authorization: auth, 'content-type': 'application/json' }, payload: JSON.stringify(payload) });
    expect((await post(complete)).statusCode).toBe(200);
    expect((await post({ path: '/media/movies/M (2001)/M.mkv' })).statusCode).toBe(200);
    expect((await post({ nothing: true })).statusCode).toBe(400);
    expect((await post({ path: '/media/x/y.mkv' }, 'Basic eDp5')).statusCode).toBe(401);
    expect(t.service.queue.list().map((r) => r.folder).sort()).toEqual(['/data/media/movies/M (2001)', '/data/media/tv/Show/Season 01']);
  });
});
