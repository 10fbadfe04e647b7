// NOTIFY through the real server, with fake Discord, ntfy, Apprise and JSON receivers on 127.0.0.1: a media server
// down past DOWN_AFTER is told once and its return once; scans that give up are told; a failing receiver is retried,
// logged and shown, and never holds anything up; no message carries a token, the secret or the webhook's URL.
import { afterEach, describe, expect, it } from 'vitest';
import type { Config } from '../../src/config/schema.js';
import { notifySchema } from '../../src/notify/schema.js';
import { startRecorder, type Recorder } from '../fakes/recorder.js';
import { SECRET, testService, type TestService } from '../support/service.js';

let t: TestService;
const receivers: Recorder[] = [];
afterEach(async () => {
  await t?.close();
  await Promise.all(receivers.splice(0).map((r) => r.close()));
});

const receiver = async (status = 204) => {
  const r = await startRecorder(() => ({ status }));
  receivers.push(r);
  return r;
};

const start = async (notify: unknown[]) => {
  t = await testService({ config: { NOTIFY: notifySchema().parse(notify) as Config['NOTIFY'] } });
  return t;
};
const down = (target = 'plex') => t.service.activity.emit('target', { target, up: false, error: 'connect ECONNREFUSED 127.0.0.1:32400' });
const up = (target = 'plex') => t.service.activity.emit('target', { target, up: true });
const settle = async () => {
  t.service.notifications.tick();
  await t.service.notifications.flush();
};

describe('notifications', () => {
  it('a server down past DOWN_AFTER reaches Discord once, and its return once; a short outage says nothing', async () => {
    const discord = await receiver();
    await start([{ NAME: 'discord', TYPE: 'discord', URL: `${discord.url}/api/webhooks/123/hook-token-abc`, EVENTS: ['target-down', 'target-up'], DOWN_AFTER: 300 }]);

    down();
    t.clock.advance(120_000);
    up();
    await settle();
    expect(discord.requests).toHaveLength(0);

    down();
    t.clock.advance(299_000);
    await settle();
    expect(discord.requests).toHaveLength(0);
    t.clock.advance(2_000);
    await settle();
    down(); // the processor says it again on each failed probe: still one message
    t.clock.advance(600_000);
    await settle();
    expect(discord.requests).toHaveLength(1);
    expect(discord.requests[0]).toMatchObject({ method: 'POST', path: '/api/webhooks/123/hook-token-abc' });
    const body = discord.requests[0].body as { content: string; embeds: { title: string; description: string }[] };
    expect(body.content).toMatch(/^plex has been down for 5 minute\(s\)/);
    expect(body.embeds[0].title).toBe('scanrelay: plex is down');

    up();
    await settle();
    expect(discord.requests).toHaveLength(2);
    expect((discord.requests[1].body as { content: string }).content).toMatch(/^plex answers again after 15 minute\(s\) down/);
    const sent = JSON.stringify(discord.requests.map((r) => r.body));
    for (const secret of ['hook-token-abc', discord.url, SECRET, t.plex.token]) expect(sent).not.toContain(secret);
  });

  it('ntfy, Apprise and JSON get a scan that gave up in their own formats; EVENTS filters', async () => {
    const [ntfy, apprise, json] = [await receiver(200), await receiver(200), await receiver(200)];
    await start([
      { NAME: 'phone', TYPE: 'ntfy', URL: `${ntfy.url}/scanrelay-alerts`, EVENTS: ['scan-failed'] },
      { NAME: 'apprise', TYPE: 'apprise', URL: `${apprise.url}/notify/media`, EVENTS: ['scan-failed', 'unmatched'] },
      { NAME: 'hook', TYPE: 'json', URL: `${json.url}/in`, EVENTS: ['unmatched'] },
    ]);
    t.service.activity.emit('finished', { folder: '/data/media/tv/Show/Season 1', outcome: 'exhausted', detail: 'The file never appeared where scanrelay looks for it, so nothing was scanned.\nmore' });
    await settle();
    expect(ntfy.requests).toHaveLength(1);
    expect(ntfy.requests[0].headers).toMatchObject({ title: 'scanrelay: a scan gave up', priority: '4', tags: 'scan-failed' });
    expect(ntfy.requests[0].body).toMatch(/^\/data\/media\/tv\/Show\/Season 1: exhausted\. The file never appeared/);
    expect(apprise.requests[0].body).toMatchObject({ title: 'scanrelay: a scan gave up', type: 'failure', body: expect.stringContaining('Season 1') });
    expect(json.requests).toHaveLength(0);

    // A path in no library, through the real intake (the fake Plex has no such library).
    const res = await t.service.app.inject({ method: 'POST', url: `/${SECRET}`, payload: { eventType: 'Manual', filepath: '/nowhere/x.mkv' } });
    expect(res.statusCode).toBe(202);
    const at = new Date(t.clock.now()).toISOString();
    await settle();
    expect(json.requests).toHaveLength(1);
    expect(json.requests[0].body).toMatchObject({ event: 'unmatched', target: null, folder: '/nowhere', outcome: 'unmatched', message: expect.stringMatching(/^\/nowhere: unmatched/) });
    expect((json.requests[0].body as { at: string }).at).toBe(at);
  });

  it('a receiver that fails is retried, then logged; /health and the dashboard show its last result', async () => {
    const broken = await receiver(500);
    await start([{ NAME: 'gotify', TYPE: 'gotify', URL: `${broken.url}/message?token=gotify-app-token`, EVENTS: ['scan-failed'] }]);
    t.service.activity.emit('finished', { folder: '/data/media/movies/M', outcome: 'dropped', detail: 'dropped by a person' });
    await settle();
    expect(broken.requests).toHaveLength(3);
    expect(broken.requests[0].body).toMatchObject({ title: 'scanrelay: a scan gave up', priority: 8 });
    const logs = t.logs.join('');
    expect(logs).toMatch(/Notifier 'gotify' \(gotify\) failed to send a scan-failed message after 3 tries: HTTP 500/);
    expect(logs).not.toContain('gotify-app-token');
    const health = (await t.service.app.inject({ url: '/health' })).json();
    expect(health.notify).toEqual([{ name: 'gotify', type: 'gotify', last: { at: t.clock.now(), ok: false, result: 'HTTP 500', event: 'scan-failed' }, dropped: 0 }]);
    const page = await t.service.app.inject({ url: `/${SECRET}/dashboard` });
    expect(page.body).toMatch(/Notifications<\/h2><ul><li>gotify <span class="muted">gotify<\/span>: <span class="badge b-bad">failed<\/span> scan-failed: HTTP 500/);
  });

  it('an answer past its cap (256 KiB) is a failed try: retried, then logged as what it was', async () => {
    const chatty = await startRecorder(() => ({ status: 200, body: { echo: 'x'.repeat(1024 * 1024) } }));
    receivers.push(chatty);
    await start([{ NAME: 'chatty', TYPE: 'json', URL: `${chatty.url}/in`, EVENTS: ['scan-failed'] }]);
    t.service.activity.emit('finished', { folder: '/data/media/movies/M', outcome: 'dropped', detail: 'dropped by a person' });
    await settle();
    expect(chatty.requests).toHaveLength(3);
    expect(t.logs.join('')).toMatch(/Notifier 'chatty' \(json\) failed to send a scan-failed message after 3 tries: an answer larger than 256 KiB, the most a notifier's answer needs \(dropped unread\)/);
  });

  it('sending never blocks the service: a hung receiver holds only its own queue', async () => {
    const { createServer } = await import('node:http');
    const hung = createServer(() => undefined);
    await new Promise<void>((r) => hung.listen(0, '127.0.0.1', r));
    const port = (hung.address() as { port: number }).port;
    await start([{ NAME: 'slow', TYPE: 'json', URL: `http://127.0.0.1:${port}/`, EVENTS: ['scan-failed'] }]);
    const before = Date.now();
    t.service.activity.emit('finished', { folder: '/x', outcome: 'exhausted' });
    const res = await t.service.app.inject({ method: 'POST', url: `/${SECRET}`, payload: { eventType: 'Manual', filepath: '/data/media/tv/S/e.mkv' } });
    expect(res.statusCode).toBe(200);
    expect(Date.now() - before).toBeLessThan(1_000);
    hung.closeAllConnections();
    await new Promise((r) => hung.close(r));
  });
});

describe('notifications from a real outage', () => {
  it('Plex stops answering: the processor marks it down, the JSON receiver hears once after DOWN_AFTER, and once when it answers again', async () => {
    const json = await receiver(200);
    t = await testService({ config: { NOTIFY: notifySchema().parse([{ NAME: 'hook', TYPE: 'json', URL: `${json.url}/in`, EVENTS: ['target-down', 'target-up'], DOWN_AFTER: 60 }]) as Config['NOTIFY'] } });
    t.plex.failure = 'reset';
    await t.service.listen(0, '127.0.0.1');
    const run = async (seconds: number) => {
      for (let s = 0; s < seconds; s++) {
        t.clock.advance(1_000);
        await t.service.processor.tick();
        await settle();
        // A turn of real I/O, so a probe's connection to the fake gets its answer before the clock runs its timeout out.
        await new Promise((r) => setTimeout(r, 2));
      }
    };
    // Down once the processor has found Plex silent (its first probe runs out on the service's clock).
    let waited = 0;
    while (t.service.processor.health()[0].up && waited++ < 60) await run(1);
    expect(t.service.processor.health()[0].up).toBe(false);
    await run(58);
    expect(json.requests).toHaveLength(0);
    await run(4);
    expect(json.requests.map((r) => (r.body as { event: string }).event)).toEqual(['target-down']);
    await run(120);
    expect(json.requests).toHaveLength(1);
    t.plex.failure = undefined as never;
    waited = 0;
    while (!t.service.processor.health()[0].up && waited++ < 120) await run(1);
    expect(t.service.processor.health()[0].up).toBe(true);
    await run(2);
    expect(json.requests.map((r) => (r.body as { event: string; target: string }).event)).toEqual(['target-down', 'target-up']);
    expect(json.requests[1].body).toMatchObject({ target: 'plex' });
  });
});
