// A password written into a server's URL (http://user:pass@host as PLEX_LOCAL_URL or a TARGETS URL), through the
// real service with fake servers on 127.0.0.1: the server gets it as Basic auth, and /health, the dashboard, the
// log and a notification show the URL without it. Before src/http/url-credentials.ts all four carried it.
import { afterEach, describe, expect, it } from 'vitest';
import type { Config } from '../../src/config/schema.js';
import { ManualClock } from '../../src/clock.js';
import { notifySchema } from '../../src/notify/schema.js';
import { PlexNotifications } from '../../src/targets/plex/follow/notifications.js';
import { socketAddress } from '../../src/targets/mediabrowser/socket.js';
import { startRecorder, type Recorder } from '../fakes/recorder.js';
import { SECRET, testService, type TestService } from '../support/service.js';
import { until } from '../support/until.js';

/** Audited in every log line of the suite (test/support/log-audit.ts). */
const PASS = 'userinfo-pass-5150';
const basic = (user: string, pass: string) => `Basic ${Buffer.from(`${user}:${pass}`).toString('base64')}`;
const withUserinfo = (url: string, user: string) => url.replace('http://', `http://${user}:${PASS}@`);

let t: TestService | undefined;
const receivers: Recorder[] = [];
afterEach(async () => {
  await t?.close();
  t = undefined;
  await Promise.all(receivers.splice(0).map((r) => r.close()));
});

describe('a password in PLEX_LOCAL_URL and in a TARGETS URL', () => {
  it('is sent as Basic auth, and /health, the dashboard, the log and a notification show the URLs without it', async () => {
    const hook = await startRecorder(() => ({ status: 204 }));
    const sonarr = await startRecorder(() => ({ status: 500, body: { message: 'sonarr is broken' } }));
    receivers.push(hook, sonarr);
    t = await testService({
      plexUrl: (url) => withUserinfo(url, 'scan-user'),
      config: {
        SERVER_SCAN_DELAY: 1,
        PLEX_CONFIRM_SCANS: false,
        TARGETS: [{ NAME: 'arr', TYPE: 'sonarr', URL: withUserinfo(sonarr.url, 'proxy-user'), TOKEN: 'sonarr-key-1' }] as unknown as Config['TARGETS'],
        NOTIFY: notifySchema().parse([{ NAME: 'hook', TYPE: 'json', URL: `${hook.url}/in`, EVENTS: ['target-down'], DOWN_AFTER: 0 }]) as Config['NOTIFY'],
      },
    });
    const svc = t;
    const plexHost = new URL(svc.plex.url).host;

    // A scan reaches Plex with the token and the Basic auth, at the URL without the password.
    const res = await svc.service.app.inject({
      method: 'POST',
      url: `/${SECRET}`,
      payload: { eventType: 'Download', series: { path: '/data/media/tv/Locked' }, episodeFile: { path: '/data/media/tv/Locked/Season 01/e01.mkv' } },
    });
    expect(res.statusCode).toBe(200);
    svc.clock.advance(1_500);
    await svc.service.processor.drain();
    const refresh = svc.plex.requests.find((r) => r.path === '/library/sections/2/refresh')!;
    expect(refresh).toMatchObject({ token: svc.plex.token, authorization: basic('scan-user', PASS), host: plexHost });
    const deliveries = svc.service.queue.deliveries(svc.service.queue.get('/data/media/tv/Locked/Season 01')!.id);
    expect(deliveries.find((d) => d.target === 'plex')).toMatchObject({ state: 'scanned' });

    // Both servers fail: the errors name them, on /health, the dashboard, in the log and in the notification.
    svc.plex.failure = { status: 500 };
    svc.service.processor.start();
    // Each is asked again after an idle minute, and its failed answer takes it down.
    await until(
      () => {
        svc.clock.advance(5_000);
        return svc.service.processor.health().every((h) => !h.up);
      },
      { every: 20, what: () => JSON.stringify(svc.service.processor.health().map((h) => [h.name, h.up])) },
    );
    expect(sonarr.requests.at(-1)!.headers).toMatchObject({ authorization: basic('proxy-user', PASS), 'x-api-key': 'sonarr-key-1' });
    svc.service.notifications.tick();
    await svc.service.notifications.flush();

    const health = (await svc.service.app.inject({ url: '/health' })).body;
    const dashboard = (await svc.service.app.inject({ url: `/${SECRET}/dashboard` })).body;
    const notified = JSON.stringify(hook.requests.map((r) => r.body));
    const logs = svc.logs.join('');
    expect(health).toContain(`Plex at http://${plexHost} answered 500`);
    expect(health).toContain(`sonarr 'arr' at ${sonarr.url} answered 500`);
    expect(dashboard).toContain(`Plex at http://${plexHost}`);
    expect(hook.requests.length).toBe(2);
    expect(notified).toContain(`Plex at http://${plexHost}`);
    expect(logs).toContain(`Plex at http://${plexHost}`);
    for (const [where, text] of Object.entries({ health, dashboard, notified, logs })) {
      expect(text, where).not.toContain(PASS);
      expect(text, where).not.toContain('scan-user:');
      expect(text, where).not.toContain('proxy-user:');
    }
  });
});

describe("the notification sockets of a server whose URL holds a password", () => {
  it("Plex's: the URL without it, Basic auth beside the token", () => {
    let dialled: { url: string; headers: Record<string, string> } | undefined;
    const socket = new PlexNotifications({
      url: `http://scan-user:${PASS}@127.0.0.1:32400`,
      token: 'plex-token-1',
      clock: new ManualClock(),
      dial: (url, headers) => {
        dialled = { url, headers };
        return { on() {}, send() {}, ping() {}, terminate() {} };
      },
    });
    socket.start();
    void socket.stop();
    expect(dialled).toEqual({
      url: 'ws://127.0.0.1:32400/:/websockets/notifications',
      headers: { 'X-Plex-Token': 'plex-token-1', Accept: 'application/json', Authorization: basic('scan-user', PASS) },
    });
  });

  it("Emby's gets Basic auth; Jellyfin's own Authorization (MediaBrowser) is the one it sends", () => {
    const common = { url: `http://proxy-user:${PASS}@127.0.0.1:8096/emby`, token: 'emby-token-5678', deviceId: 'd', version: '1' };
    const emby = socketAddress({ kind: 'emby', ...common });
    expect(emby.url.startsWith('ws://127.0.0.1:8096/emby/embywebsocket?')).toBe(true);
    expect(emby.headers).toEqual({ 'X-Emby-Token': 'emby-token-5678', Authorization: basic('proxy-user', PASS) });
    const jellyfin = socketAddress({ kind: 'jellyfin', ...common });
    expect(jellyfin.url).toBe('ws://127.0.0.1:8096/emby/socket');
    expect(jellyfin.headers.Authorization).toMatch(/^MediaBrowser /);
  });
});
