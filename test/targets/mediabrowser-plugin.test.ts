// The plugin client (src/targets/mediabrowser/plugin.ts) against a stub server: paths asked while a call is out
// wait and go together in the next, as one ScanPaths; an answer is read by its path; a plugin without the batch
// route is asked one path at a time; Jellyfin's 500 "Failed" for a path gone from disk reads as Removed.
import { describe, expect, it } from 'vitest';
import { apiCaller } from '../../src/http/api-call.js';
import { silentLogger } from '../../src/log/logger.js';
import { TargetedScans } from '../../src/targets/mediabrowser/plugin.js';

interface Sent {
  path: string;
  body: { Path?: string; Paths?: string[] };
}

/** A server whose answers are released by hand, so a test decides what is out at once. */
function stub(answer: (sent: Sent) => [number, unknown]) {
  const sent: Sent[] = [];
  const release: (() => void)[] = [];
  const fetch = (async (url: string, init: RequestInit) => {
    const one: Sent = { path: new URL(url).pathname, body: JSON.parse(String(init.body)) };
    sent.push(one);
    await new Promise<void>((r) => release.push(r));
    const [status, body] = answer(one);
    return new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });
  }) as typeof globalThis.fetch;
  const api = apiCaller({ who: 'jellyfin', url: 'http://127.0.0.1:9', urlKey: 'URL', headers: {}, secrets: [], fetch, authHint: 'check TOKEN' });
  const plugin = new TargetedScans({ api, who: 'jellyfin', name: 'jellyfin', log: silentLogger });
  const settle = () => new Promise((r) => setImmediate(r));
  return { sent, release: async () => (await settle(), release.shift()?.(), await settle()), plugin };
}

const batchOf = (body: Sent['body'], status: (p: string) => string) => ({ Results: (body.Paths ?? []).map((p) => ({ Path: p, Status: status(p), ItemId: 'id' })) });

describe('the Targeted Scans plugin client', () => {
  it('sends the first path at once and the paths asked meanwhile together in one ScanPaths, each answer by its path', async () => {
    const s = stub((one) => (one.path === '/Library/ScanPaths' ? [200, batchOf(one.body, (p) => (p.endsWith('gone.mkv') ? 'Removed' : 'Created'))] : [200, { Status: 'Created', ItemId: 'a' }]));
    const first = s.plugin.ask([{ path: '/m/A/a.mkv', gone: false }]);
    const second = s.plugin.ask([{ path: '/m/B/b.mkv', gone: false }]);
    const third = s.plugin.ask([{ path: '/m/C/gone.mkv', gone: true }]);
    await s.release();
    expect((await first).map((a) => [a.meaning, a.said, a.itemId])).toEqual([['done', 'Created', 'a']]);
    await s.release();
    expect((await second).map((a) => a.said)).toEqual(['Created']);
    expect((await third).map((a) => a.said)).toEqual(['Removed']);
    expect(s.sent.map((x) => [x.path, x.body.Path ?? x.body.Paths])).toEqual([
      ['/Library/ScanPath', '/m/A/a.mkv'],
      ['/Library/ScanPaths', ['/m/B/b.mkv', '/m/C/gone.mkv']],
    ]);
  });

  it('asks one path at a time when the batch route is not there, and reads the 500 "Failed" of a gone path as Removed', async () => {
    const s = stub((one) => (one.path === '/Library/ScanPaths' ? [404, ''] : one.body.Path?.endsWith('gone.mkv') ? [500, { Status: 'Failed' }] : [200, { Status: 'Created' }]));
    const answers = s.plugin.ask([
      { path: '/m/A/new.mkv', gone: false },
      { path: '/m/A/gone.mkv', gone: true },
    ]);
    for (let i = 0; i < 3; i++) await s.release();
    expect((await answers).map((a) => [a.meaning, a.said])).toEqual([
      ['done', 'Created'],
      ['done', 'Removed'],
    ]);
    expect(s.sent.map((x) => x.path)).toEqual(['/Library/ScanPaths', '/Library/ScanPath', '/Library/ScanPath']);
  });

  it('reads Emby’s 200 "Failed" and a PathNotFound of a file that is there as the plugin unable: the item refresh takes it', async () => {
    const s = stub((one) => (one.body.Paths ? [200, batchOf(one.body, (p) => (p.includes('bad') ? 'Failed' : 'PathNotFound'))] : [200, {}]));
    const answers = s.plugin.ask([
      { path: '/tv/S/bad.mkv', gone: false },
      { path: '/tv/S/lag.mkv', gone: false },
    ]);
    await s.release();
    expect((await answers).map((a) => a.meaning)).toEqual(['fallback', 'fallback']);
  });

  it('retries a batch the server failed as a whole', async () => {
    const s = stub(() => [503, { error: 'busy' }]);
    const answers = s.plugin.ask([
      { path: '/tv/S/a.mkv', gone: false },
      { path: '/tv/S/b.mkv', gone: false },
    ]);
    await s.release();
    expect((await answers).map((a) => [a.meaning, a.status])).toEqual([
      ['retry', 503],
      ['retry', 503],
    ]);
  });
});
