// A user and password written into a configured URL (src/http/url-credentials.ts): split off once, sent as Basic auth
// to the URL without them (httpFetch and the API caller), never shown; a call's own Authorization is the one sent.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SERVER_STATUS } from '../../src/http/answer-caps.js';
import { apiCaller } from '../../src/http/api-call.js';
import { httpFetch } from '../../src/http/fetch.js';
import { shownUrl, splitUserinfo, withBasicAuth } from '../../src/http/url-credentials.js';
import { startRecorder, type Recorder } from '../fakes/recorder.js';
import { logCollector } from '../drive/harness.js';

/** Audited in every log line of the suite (test/support/log-audit.ts). */
const PASS = 'userinfo-pass-5150';
const basic = (user: string, pass: string) => `Basic ${Buffer.from(`${user}:${pass}`).toString('base64')}`;

let server: Recorder;
let port: string;
beforeAll(async () => {
  server = await startRecorder(() => ({ status: 200, body: { ok: true } }));
  port = new URL(server.url).port;
});
afterAll(() => server.close());

describe('splitUserinfo and shownUrl', () => {
  it('splits user and password off, percent-decoded into the Basic header', () => {
    const written = splitUserinfo(`http://scan%20user:${PASS}%40x@127.0.0.1:32400/plex/`);
    expect(written.url).toBe('http://127.0.0.1:32400/plex/');
    expect(written.authorization).toBe(basic('scan user', `${PASS}@x`));
    expect(written.secrets).toEqual(expect.arrayContaining([`${PASS}%40x`, `${PASS}@x`, `scan user:${PASS}@x`, written.authorization!.slice(6)]));
    // A user name alone is no secret: "plex" would star out every line naming the server.
    expect(written.secrets).not.toContain('scan user');
  });

  it('leaves a URL without them, and a text that is no URL, as written', () => {
    expect(splitUserinfo('http://plex:32400')).toEqual({ url: 'http://plex:32400', secrets: [] });
    expect(splitUserinfo('')).toEqual({ url: '', secrets: [] });
    expect(splitUserinfo('http://user@plex:32400').authorization).toBe(basic('user', ''));
  });

  it('shows every URL of a text without user and password, whatever the password holds', () => {
    const text = `Plex at http://u:${PASS}@plex:32400 answered 500; see https://a:b@c@proxy/x?y=1 and mail me@example.org`;
    expect(shownUrl(text)).toBe('Plex at http://plex:32400 answered 500; see https://proxy/x?y=1 and mail me@example.org');
  });

  it("adds Basic auth unless the headers carry an Authorization of their own, in any case", () => {
    expect(withBasicAuth({ 'X-Plex-Token': 't' }, 'Basic eA==')).toEqual({ 'X-Plex-Token': 't', Authorization: 'Basic eA==' });
    expect(withBasicAuth({ authorization: 'MediaBrowser Token="t"' }, 'Basic eA==')).toEqual({ authorization: 'MediaBrowser Token="t"' });
    expect(withBasicAuth({ a: 'b' }, undefined)).toEqual({ a: 'b' });
  });
});

describe('httpFetch with a user and password in the URL', () => {
  it('sends them as Basic auth to the URL without them, which is also the answer\'s url', async () => {
    const res = await httpFetch(`http://scan-user:${PASS}@127.0.0.1:${port}/x`);
    const seen = server.requests.at(-1)!;
    expect(seen.headers.authorization).toBe(basic('scan-user', PASS));
    expect(seen.headers.host).toBe(`127.0.0.1:${port}`);
    expect(res.url).toBe(`http://127.0.0.1:${port}/x`);
  });

  it("a call's own Authorization is sent instead", async () => {
    await httpFetch(`http://scan-user:${PASS}@127.0.0.1:${port}/x`, { headers: { Authorization: 'Bearer own' } });
    expect(server.requests.at(-1)!.headers.authorization).toBe('Bearer own');
  });
});

describe('the API caller with a user and password in the URL', () => {
  const caller = (headers: Record<string, string>, logger = logCollector().logger) =>
    apiCaller({ who: 'sonarr \'s\'', url: `http://scan-user:${PASS}@127.0.0.1:${port}/`, urlKey: 'the URL of TARGETS entry "s"', headers, secrets: [], logger, authHint: 'check TOKEN' });

  it('sends Basic auth beside the token, to the URL without them, and shows that URL', async () => {
    const api = caller({ 'X-Api-Key': 'k' });
    expect(api.base).toBe(`http://127.0.0.1:${port}`);
    await api.call('GET', '/api/v3/system/status', { cap: SERVER_STATUS });
    const seen = server.requests.at(-1)!;
    expect([seen.headers.authorization, seen.headers['x-api-key']]).toEqual([basic('scan-user', PASS), 'k']);
    // A public call without the server's own token still passes the proxy that asked for the password.
    await api.call('GET', '/ping', { cap: SERVER_STATUS, auth: false });
    expect([server.requests.at(-1)!.headers.authorization, server.requests.at(-1)!.headers['x-api-key']]).toEqual([basic('scan-user', PASS), undefined]);
  });

  it("a server whose calls carry their own Authorization (Jellyfin's MediaBrowser) gets that one, and a WARN says so once", async () => {
    const log = logCollector();
    const api = caller({ Authorization: 'MediaBrowser Token="jf"' }, log.logger);
    await api.call('GET', '/Library/VirtualFolders', { cap: SERVER_STATUS });
    await api.call('GET', '/Library/VirtualFolders', { cap: SERVER_STATUS });
    expect(server.requests.at(-1)!.headers.authorization).toBe('MediaBrowser Token="jf"');
    expect(log.messages()).toEqual([
      'The user and password in the URL of TARGETS entry "s" are not sent to sonarr \'s\': its calls carry an Authorization header of their own, and a request has one.',
    ]);
  });

  it('a failure names the server without them, and an echo of the password is starred out', async () => {
    server.fail(500);
    const api = caller({});
    const err = (await api.call('GET', `/echo/${PASS}`, { cap: SERVER_STATUS }).catch((e: Error) => e)) as Error;
    server.fail(null);
    expect(err.message).toMatch(new RegExp(`^sonarr 's' at http://127\\.0\\.0\\.1:${port} answered 500`));
    expect(err.message).not.toContain(PASS);
    expect(err.message).not.toContain('scan-user');
  });
});
