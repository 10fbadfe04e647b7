// What Plex answers to GET /library/sections and GET /identity (test/fixtures/plex), as the Plex client reads it.
import { describe, expect, it } from 'vitest';
import { PlexApi } from '../../src/targets/plex/api.js';
import { ownFixtureText } from '../support/fixtures.js';

/** A Plex that answers each path with a fixture, recording what it was asked. */
function plexAnswering(answers: Record<string, string>) {
  const asked: Array<{ path: string; token: string | null; accept: string | null }> = [];
  const fetch = (async (input: URL | RequestInfo, init?: RequestInit) => {
    const url = new URL(String(input));
    const headers = new Headers(init?.headers);
    asked.push({ path: url.pathname, token: headers.get('x-plex-token'), accept: headers.get('accept') });
    const body = answers[url.pathname];
    if (body === undefined) return new Response('', { status: 404 });
    return new Response(body, { status: 200, headers: { 'content-type': 'application/json' } });
  }) as typeof globalThis.fetch;
  return { api: new PlexApi({ url: 'http://plex.invalid:32400/', token: 'plex-token-1', fetch }), asked };
}

describe('the Plex client on Plex\'s own answers', () => {
  it('GET /library/sections: every section with its key as id, its type and all its Location paths', async () => {
    const { api, asked } = plexAnswering({ '/library/sections': ownFixtureText('plex/library-sections.json') });
    expect(await api.sections()).toStrictEqual([
      { id: '2', title: 'TV Shows', type: 'show', locations: ['/data/media/tv', '/mnt/archive/tv'], refreshing: false },
      { id: '1', title: 'Movies', type: 'movie', locations: ['/data/media/movies'], refreshing: true },
      { id: '4', title: 'Music', type: 'artist', locations: ['/data/media/music'], refreshing: false },
    ]);
    // JSON is asked for (Plex answers XML otherwise), with the token in a header.
    expect(asked).toEqual([{ path: '/library/sections', token: 'plex-token-1', accept: 'application/json' }]);
  });

  it('GET /identity: the machine identifier and version', async () => {
    const { api } = plexAnswering({ '/identity': ownFixtureText('plex/identity.json') });
    expect(await api.identity()).toMatchObject({
      machineIdentifier: '3f9a1c7e5b2d4086a1e3c5b7d9f0a2c4e6b8d0f1',
      version: '1.41.7.9823-59f304c16',
    });
  });
});
