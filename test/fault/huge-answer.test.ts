// A Plex that answers far more than a call needs (a fake Plex on 127.0.0.1 streaming 50 MB, or announcing 1.5 GB),
// replaying the /library/metadata answer that once took the relay to 3.1 GB: the read stops at the call's cap
// (src/http/answer-caps.ts), the call fails as a 500 would (the folder backs off, the server stays up), one log line
// names the server, the call and the cap however often it happens, and the flood is never held in memory.
import { afterEach, describe, expect, it } from 'vitest';
import { ACKNOWLEDGEMENT, PLEX_ITEM } from '../../src/http/answer-caps.js';
import { ANSWER_TOO_LARGE, ApiRefusal } from '../../src/http/api-call.js';
import { ManualClock } from '../../src/clock.js';
import { PlexApi } from '../../src/targets/plex/api.js';
import { itemFiles, plexGet } from '../../src/targets/plex/follow/scan-items.js';
import { logCollector } from '../drive/harness.js';
import { FakePlex } from '../fakes/plex.js';
import { peakArrayBuffers } from '../support/memory-peak.js';
import { SECRET, testService, type TestService } from '../support/service.js';
import { until } from '../support/until.js';

const MiB = 1024 * 1024;
const FLOOD = 50 * 1000 * 1000;
/** What loopback socket buffers may hold beyond the cap when the reader hangs up: the kernel's, not the relay's. */
const SOCKET_SLACK = 16 * MiB;

let plex: FakePlex | undefined;
let t: TestService | undefined;
afterEach(async () => {
  await plex?.stop();
  await t?.close();
  plex = t = undefined;
});

describe("a Plex metadata item answered with 50 MB (the follower's read of an item)", () => {
  it('is dropped past 4 MiB, fails the read (not "the item is gone"), and is never held', async () => {
    plex = await new FakePlex().start();
    plex.flooding = { paths: /^\/library\/metadata\//, bytes: FLOOD };
    const log = logCollector();
    const api = new PlexApi({ url: plex.url, token: plex.token, clock: new ManualClock(), logger: log.logger });
    const { result, peak } = await peakArrayBuffers(() => itemFiles(plexGet(api), '7'));
    // Read as a 200 without a body, the item would count as gone and its follow-up would end wrongly.
    expect(result.status).toBe('rejected');
    const err = (result as PromiseRejectedResult).reason as ApiRefusal;
    expect(err).toBeInstanceOf(ApiRefusal);
    expect([err.status, err.targetDown, err.tokenRefused]).toEqual([ANSWER_TOO_LARGE, false, false]);
    expect(err.message).toBe(
      `Plex at ${plex.url} answered GET /library/metadata/7 with more than 4 MiB, the most ${PLEX_ITEM.what} needs: the answer was dropped unread and the call failed`,
    );
    await until(() => plex!.floods.length === 1, { what: 'the fake to see the relay hang up' });
    expect(plex.floods[0].cutOff).toBe(true);
    expect(plex.floods[0].sent).toBeLessThan(PLEX_ITEM.bytes + SOCKET_SLACK);
    expect(peak).toBeLessThan(PLEX_ITEM.bytes + SOCKET_SLACK);

    // Two more reads of other items: still one line, not one per answer.
    await expect(itemFiles(plexGet(api), '8')).rejects.toBeInstanceOf(ApiRefusal);
    await expect(itemFiles(plexGet(api), '9')).rejects.toBeInstanceOf(ApiRefusal);
    expect(log.messages().filter((m) => m.includes('dropped unread'))).toEqual([err.message]);
    const [line] = log.lines.map((l) => JSON.parse(l) as { level: string; server: string; maxBytes: number; path: string });
    expect(line).toMatchObject({ level: 'warn', server: 'Plex', maxBytes: PLEX_ITEM.bytes, path: '/library/metadata/7' });
  });

  it('a Content-Length of 1.5 GB is refused before a byte of its body is read', async () => {
    plex = await new FakePlex().start();
    plex.flooding = { paths: /^\/library\/metadata\//, bytes: FLOOD, contentLength: 1_500_000_000, holdBodyMs: 200 };
    const api = new PlexApi({ url: plex.url, token: plex.token });
    const err = (await itemFiles(plexGet(api), '7').catch((e: unknown) => e)) as ApiRefusal;
    expect(err.status).toBe(ANSWER_TOO_LARGE);
    expect(err.message).toContain('with more than 4 MiB (it announced 1500000000 bytes)');
    await until(() => plex!.floods.length === 1);
    expect(plex.floods[0]).toEqual({ sent: 0, cutOff: true });
  });
});

describe('a Plex whose every refresh answers 50 MB, through the real service', () => {
  it('backs the folder off as a 500 does, keeps the server up, and says so in one line', async () => {
    t = await testService({ config: { SERVER_SCAN_DELAY: 1, PLEX_CONFIRM_SCANS: false } });
    t.plex.flooding = { paths: /\/refresh$/, bytes: FLOOD };
    const res = await t.service.app.inject({
      method: 'POST',
      url: `/${SECRET}`,
      payload: { eventType: 'Download', series: { path: '/data/media/tv/Flood' }, episodeFile: { path: '/data/media/tv/Flood/Season 01/e01.mkv' } },
    });
    expect(res.statusCode).toBe(200);
    for (let ms = 0; ms < 61_000; ms += 250) {
      t.clock.advance(250);
      await t.service.processor.drain();
      expect(t.service.processor.health()[0].up).toBe(true);
    }
    const attempts = t.plex.refreshes.length;
    // Due at 1 s, then 5, 10, 20, 40 s of backoff: the same 4 or 5 tries in a minute as a 500 gets.
    expect(attempts).toBeGreaterThanOrEqual(4);
    expect(attempts).toBeLessThanOrEqual(5);
    const [d] = t.service.queue.deliveries(t.service.queue.get('/data/media/tv/Flood/Season 01')!.id);
    expect(d.attempts).toBe(attempts);
    expect(d.lastError).toMatch(/answered GET \/library\/sections\/2\/refresh with more than 256 KiB, the most an acknowledgement needs/);
    const lines = (re: RegExp) => t!.logs.filter((l) => re.test(l)).length;
    expect(lines(/Scan of '.*Flood.*' on plex failed/)).toBe(attempts);
    // The processor's line per failed attempt, and one line of the cap's own however many answers it dropped.
    expect(lines(/"level":"warn".*"msg":"Plex at .* dropped unread/)).toBe(1);
    await until(() => t!.plex.floods.length === attempts);
    for (const f of t.plex.floods) expect(f.sent).toBeLessThan(ACKNOWLEDGEMENT.bytes + SOCKET_SLACK);
  });
});
