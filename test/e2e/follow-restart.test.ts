// kill -9 while Plex scans are being followed, then restart: every follow-up resumes from the queue file; none is
// lost and the restart itself scans nothing twice.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FakePlex } from '../fakes/plex.js';
import { attachPlexNotifications } from '../fakes/plex-notifications.js';
import { killChildren, startServer } from '../support/child.js';
import { writeConfigFile } from '../support/config-file.js';
import { countIn } from '../support/queue-file.js';
import { until } from '../support/until.js';

const SECRET = 'f011f011f011f011f011f011f011f011';
const N = 50;
let plex: FakePlex | undefined;
afterEach(async () => {
  killChildren();
  await plex?.stop();
});

const within30s = { ms: 30_000, every: 20 };

describe('follow-ups across kill -9', () => {
  it(`${N} deliveries following when the process is killed are all confirmed after the restart, none scanned again`, { timeout: 90_000 }, async () => {
    plex = await new FakePlex({ sections: [{ key: '2', title: 'TV', locations: ['/tv'] }] }).start();
    plex.scanPolls = Infinity; // Plex keeps scanning: every delivery stays `following`
    const dir = mkdtempSync(join(tmpdir(), 'scanrelay-follow-kill-'));
    const config = writeConfigFile(dir, {
      SERVER_PASS: SECRET,
      SERVER_IP: '127.0.0.1',
      SERVER_SCAN_DELAY: 0,
      SERVER_MAX_FILE_CHECKS: 0,
      PLEX_LOCAL_URL: plex.url,
      PLEX_TOKEN: plex.token,
      PLEX_SCAN_MODE: 'api',
      // More folders than the default cap of outstanding scans are meant to reach Plex here at once.
      PLEX_MAX_OUTSTANDING: 100_000,
      PLEX_FOLLOW_INTERVAL: 0.1,
    });
    const queuefile = join(dir, 'queue.db');
    const first = await startServer({ config, queuefile, dir });
    for (let i = 0; i < N; i++) {
      const file = `/tv/Show ${i}/Season 01/e01.mkv`;
      plex.onDisk.add(file);
      const res = await fetch(`${first.url}/${SECRET}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ eventType: 'Download', series: { path: `/tv/Show ${i}` }, episodeFile: { path: file } }),
      });
      expect(res.status).toBe(200);
    }
    await until(() => countIn(queuefile, `SELECT COUNT(*) AS n FROM deliveries WHERE state = 'following'`) === N, within30s);
    expect(plex.refreshes).toHaveLength(N);
    first.child.proc.kill('SIGKILL');
    await first.child.exited;

    // Plex finished while scanrelay was down.
    plex.finishScans();
    const second = await startServer({ config, queuefile, dir });
    await until(() => countIn(queuefile, 'SELECT COUNT(*) AS n FROM history') === N, within30s);
    expect(countIn(queuefile, `SELECT COUNT(*) AS n FROM history WHERE outcome = 'confirmed'`)).toBe(N);
    expect(countIn(queuefile, 'SELECT COUNT(DISTINCT folder) AS n FROM history')).toBe(N);
    expect(countIn(queuefile, 'SELECT COUNT(*) AS n FROM folders')).toBe(0);
    expect(plex.refreshes).toHaveLength(N);
    expect(second.child.output()).toContain(`Resumed following ${N} scan(s) on plex.`);
  });

  it('on the notification socket, no database: the socket is reopened after the restart and every follow-up ends confirmed, none scanned twice', { timeout: 90_000 }, async () => {
    plex = await new FakePlex({ sections: [{ key: '2', title: 'TV', type: 'show', locations: ['/tv'] }, { key: '3', title: 'More TV', type: 'show', locations: ['/tv2'] }] }).start();
    plex.scanPolls = Infinity;
    const socket = attachPlexNotifications(plex);
    const dir = mkdtempSync(join(tmpdir(), 'scanrelay-follow-kill-socket-'));
    const config = writeConfigFile(dir, {
      SERVER_PASS: SECRET,
      SERVER_IP: '127.0.0.1',
      SERVER_SCAN_DELAY: 0,
      SERVER_MAX_FILE_CHECKS: 0,
      PLEX_LOCAL_URL: plex.url,
      PLEX_TOKEN: plex.token,
      PLEX_SCAN_MODE: 'api',
      PLEX_FOLLOW_INTERVAL: 0.1,
      // All 20 must be followed at once to be cut by the kill: no back-pressure cap in the way.
      PLEX_MAX_OUTSTANDING: 100_000,
    });
    const queuefile = join(dir, 'queue.db');
    const first = await startServer({ config, queuefile, dir });
    const half = 10;
    for (let i = 0; i < half * 2; i++) {
      const root = i < half ? '/tv2' : '/tv';
      const file = `${root}/Show ${i}/Season 01/e01.mkv`;
      plex.onDisk.add(file);
      const res = await fetch(`${first.url}/${SECRET}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ eventType: 'Download', series: { path: `${root}/Show ${i}` }, episodeFile: { path: file } }),
      });
      expect(res.status).toBe(200);
    }
    await until(() => countIn(queuefile, `SELECT COUNT(*) AS n FROM deliveries WHERE state = 'following'`) === half * 2, within30s);
    // Opened by the first scan (an idle relay holds none), and open before the kill.
    await until(() => socket.clients === 1, within30s);
    first.child.proc.kill('SIGKILL');
    await first.child.exited;

    // Section 3's scans end while scanrelay is down: their `ended` frames reach no one.
    plex.finishScans('3');
    const second = await startServer({ config, queuefile, dir });
    await until(() => socket.clients === 1, within30s);
    expect(socket.upgrades.filter((u) => u.accepted)).toHaveLength(2);
    // Section 3 is idle (asked once after the reconnect). The socket did not see those scans end and there is no
    // database: the last resort, the section's newest episodes, a page at a time.
    await until(() => countIn(queuefile, 'SELECT COUNT(*) AS n FROM history') === half, within30s);
    const listed = plex.requests.filter((r) => r.path.endsWith('/all'));
    for (const r of listed) expect(r).toMatchObject({ path: '/library/sections/3/all', query: { type: '4', sort: 'addedAt:desc', 'X-Plex-Container-Size': '50' } });
    // Section 2's scans end now, while the socket listens: `confirmed` from the events.
    plex.finishScans('2');
    await until(() => countIn(queuefile, 'SELECT COUNT(*) AS n FROM history') === half * 2, within30s);
    // The details through the API: history stores its texts compactly (history_texts), the API gives them whole.
    const history = ((await (await fetch(`${second.url}/api/${SECRET}/history?limit=100`)).json()) as { history: { folder: string; outcome: string; detail: string | null }[] }).history;
    const confirmedBy = (root: string, how: string) => history.filter((h) => h.outcome === 'confirmed' && h.folder.startsWith(`${root}/`) && (h.detail ?? '').includes(how)).length;
    expect(history.filter((h) => h.outcome === 'confirmed')).toHaveLength(half * 2);
    expect(confirmedBy('/tv2', 'recently added')).toBe(half);
    // Section 2's scans end while the socket listens: confirmed from its events. On a loaded machine a poll may
    // judge a follow-up before its `ended` frame is read, and the listing confirms it instead: confirmed either way.
    expect(confirmedBy('/tv', 'notifications')).toBeGreaterThan(0);
    expect(countIn(queuefile, 'SELECT COUNT(*) AS n FROM folders')).toBe(0);
    expect(plex.refreshes).toHaveLength(half * 2);
    // Whatever was listed was section 3's (or section 2's newest episodes, on the loaded machine above), paged.
    for (const r of plex.requests.filter((r) => r.path.endsWith('/all'))) expect(r.query).toMatchObject({ type: '4', 'X-Plex-Container-Size': '50' });
    expect(second.child.output()).toContain(`Resumed following ${half * 2} scan(s) on plex.`);
    await socket.close();
  });
});
