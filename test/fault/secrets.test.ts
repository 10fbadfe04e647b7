// Secrets: a wrong secret of any length gets the very same 401; neither the secret nor the Plex token appears
// in any log line, whatever the requests and faults.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SECRET, testService, type TestService } from '../support/service.js';

let t: TestService;
beforeAll(async () => {
  t = await testService();
  t.plex.failure = { status: 401 };
});
afterAll(async () => {
  await t.close();
});

function wrongSecrets(): string[] {
  const out: string[] = [];
  for (let n = 1; n <= 96; n++) out.push('a'.repeat(n));
  for (let n = 1; n < SECRET.length; n++) out.push(SECRET.slice(0, n)); // every prefix
  out.push(SECRET + 'x', SECRET.toUpperCase(), SECRET.slice(1) + 'z', SECRET.slice(0, -1) + 'g', 'é'.repeat(32), encodeURIComponent('🔑'.repeat(10)));
  return out;
}

describe('secrets', () => {
  it('every wrong secret, of every length, gets the same 401 on every route', async () => {
    const seen = new Map<string, string[]>();
    for (const s of wrongSecrets()) {
      for (const [method, url] of [
        ['POST', `/${s}`],
        ['PUT', `/${s}`],
        ['GET', `/${s}`],
        ['GET', `/api/${s}?cmd=queue_count`],
        ['POST', `/api/${s}`],
      ] as const) {
        const res = await t.service.app.inject({ method, url, payload: method === 'GET' ? undefined : { eventType: 'Manual', filepath: '/x/y.mkv' } });
        expect(res.statusCode, `${method} ${url}`).toBe(401);
        const key = `${method} ${url.startsWith('/api/') ? 'api' : 'scan'}`;
        const shape = `${res.statusCode} ${res.headers['content-type']} ${res.headers['content-length']} ${res.body}`;
        seen.set(key, [...(seen.get(key) ?? []), shape]);
      }
    }
    for (const [, shapes] of seen) expect(new Set(shapes).size).toBe(1);
    expect(t.service.queue.count()).toBe(0);
  });

  it('the secret and the Plex token appear in no log line, even when requests and Plex errors carry them', async () => {
    // Requests that put the secret and the token where a careless log would copy them.
    await t.service.app.inject({ method: 'POST', url: `/${SECRET}`, headers: { 'content-type': 'application/json' }, payload: '{"broken": ' + SECRET });
    await t.service.app.inject({ method: 'POST', url: `/${SECRET}?token=${t.plex.token}`, payload: { eventType: 'Manual', filepath: `/mnt/unionfs/Media/tv/${t.plex.token}/e.mkv` } });
    await t.service.app.inject({ method: 'POST', url: `/${SECRET}`, payload: { eventType: 'Download', series: { path: `/tv/${SECRET}` }, episodeFile: { path: `/tv/${SECRET}/s/e.mkv` } } });
    await t.service.app.inject({ method: 'GET', url: `/api/${SECRET}?cmd=${SECRET}` });
    await t.service.app.inject({ method: 'POST', url: `/${SECRET.slice(0, 31)}`, payload: {} });
    // Plex answers 401 to the token: the failure is logged without it.
    t.clock.advance(10_000_000);
    await t.service.processor.drain();
    const text = t.logs.join('');
    expect(text).toMatch(/wrong secret/);
    expect(text).toMatch(/401/);
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain(SECRET.slice(0, 31));
    expect(text).not.toContain(t.plex.token);
  });
});
