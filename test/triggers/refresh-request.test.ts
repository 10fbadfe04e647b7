// A request can ask for an item refresh: refresh=item or eventType=Refresh on a manual request, "refresh": "item" on
// the API scan; Sonarr/Radarr Rename and upgrades carry 'item-if-enabled' (the target's REFRESH_ITEMS decides).
import { afterEach, describe, expect, it } from 'vitest';
import type { ScanRequest } from '../../src/request.js';
import { parseScanBody } from '../../src/triggers/index.js';
import { SECRET, testService, type TestService } from '../support/service.js';

describe('parsing the refresh flag', () => {
  it('eventType=Refresh is a manual request that asks for the item refresh', () => {
    expect(parseScanBody({ eventType: 'Refresh', filepath: '/tv/S/e1.mkv' })).toEqual({
      kind: 'scan',
      source: 'manual',
      event: 'Refresh',
      requests: [{ path: '/tv/S/e1.mkv', source: 'manual', event: 'Refresh', kind: 'auto', refresh: 'item' }],
    });
  });

  it('refresh=item on a manual request; an empty refresh is no refresh; any other value is refused', () => {
    expect(parseScanBody({ eventType: 'Manual', filepath: '/x/a.mkv', refresh: 'item' })).toMatchObject({ requests: [{ refresh: 'item' }] });
    expect((parseScanBody({ eventType: 'Manual', filepath: '/x/a.mkv', refresh: '' }) as { requests: ScanRequest[] }).requests[0].refresh).toBeUndefined();
    expect(parseScanBody({ eventType: 'Manual', filepath: '/x/a.mkv', refresh: 'all' })).toEqual({
      kind: 'invalid',
      reason: 'refresh must be "item" (to refresh the metadata of the item holding the file), got "all"',
    });
    expect(parseScanBody({ eventType: 'Refresh', filepath: '/x/a.mkv', refresh: ['item', 'item'] })).toMatchObject({ kind: 'invalid' });
  });

  it('a Lidarr rename does not ask for it; a Sonarr download (not an upgrade) does not either', () => {
    const lidarr = parseScanBody({ eventType: 'Rename', artist: { path: '/music/A' }, renamedTrackFiles: [{ previousPath: '/music/A/1.flac', path: '/music/A/01.flac' }] });
    expect((lidarr as { requests: ScanRequest[] }).requests.some((r) => r.refresh)).toBe(false);
    const download = parseScanBody({ eventType: 'Download', series: { path: '/tv/S' }, episodeFile: { path: '/tv/S/e1.mkv' } });
    expect((download as { requests: ScanRequest[] }).requests[0].refresh).toBeUndefined();
  });
});

describe('the routes pass the flag to the intake', () => {
  let t: TestService;
  afterEach(async () => t.close());

  it('POST /<SERVER_PASS> with eventType=Refresh, and POST /api/<SERVER_PASS>/scan with "refresh": "item"', async () => {
    t = await testService();
    const seen: ScanRequest[] = [];
    const submit = t.service.intake.submit.bind(t.service.intake);
    t.service.intake.submit = async (requests, client) => (seen.push(...requests), submit(requests, client));
    const form = await t.service.app.inject({
      method: 'POST',
      url: `/${SECRET}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: `eventType=Refresh&filepath=${encodeURIComponent('/mnt/unionfs/Media/tv/S/e1.mkv')}`,
    });
    expect(form.statusCode).toBe(200);
    const api = await t.service.app.inject({ method: 'POST', url: `/api/${SECRET}/scan`, payload: { path: '/mnt/unionfs/Media/tv/S/e2.mkv', refresh: 'item' } });
    expect(api.statusCode).toBe(200);
    const wrong = await t.service.app.inject({ method: 'POST', url: `/api/${SECRET}/scan`, payload: { path: '/x', refresh: 'everything' } });
    expect(wrong.statusCode).toBe(400);
    expect(seen.map((r) => [r.event, r.refresh])).toEqual([
      ['Refresh', 'item'],
      ['Manual', 'item'],
    ]);
  });
});
