// kill -9 while Jellyfin scans are being followed, then restart: the follow-ups resume from the queue file, the
// websocket is opened again, and every one ends; the LibraryChanged sent while scanrelay was down reached no
// one, so the listing of each refreshed season confirms them. The restart refreshes no folder twice.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { episodeFile, tvLibrary } from '../fakes/jellyfin-libraries.js';
import { startJellyfinServer, type JellyfinServer } from '../fakes/jellyfin-server.js';
import { killChildren, startServer } from '../support/child.js';
import { writeConfigFile } from '../support/config-file.js';
import { countIn } from '../support/queue-file.js';
import { until } from '../support/until.js';

const SECRET = 'f011f011f011f011f011f011f011f011';
const N = 10;
let jellyfin: JellyfinServer | undefined;
afterEach(async () => {
  killChildren();
  await jellyfin?.close();
});

const within30s = { ms: 30_000, every: 20 };

describe('Jellyfin follow-ups across kill -9', () => {
  it(`${N} follow-ups open at the kill all end after the restart, the socket reopened, none refreshed twice`, { timeout: 90_000 }, async () => {
    // The model's time moves only when the test says: its validates wait, so every delivery stays `following`.
    jellyfin = await startJellyfinServer({ msPerEntry: 2 });
    tvLibrary(jellyfin.model, '/tv', { series: N, seasons: 1, episodes: 2 });
    jellyfin.model.settle();
    const dir = mkdtempSync(join(tmpdir(), 'scanrelay-jf-follow-kill-'));
    const config = writeConfigFile(dir, {
      SERVER_PASS: SECRET,
      SERVER_IP: '127.0.0.1',
      SERVER_SCAN_DELAY: 0,
      SERVER_MAX_FILE_CHECKS: 0,
      PLEX_ENABLED: false,
      // A user's token: its socket is the one LibraryChanged goes to.
      TARGETS: [{ NAME: 'jellyfin', TYPE: 'jellyfin', URL: jellyfin.url, TOKEN: jellyfin.userToken, SCAN_METHOD: 'item' }],
    });
    const queuefile = join(dir, 'queue.db');
    const first = await startServer({ config, queuefile, dir });
    for (let i = 1; i <= N; i++) {
      const file = episodeFile('/tv', i, 1, 3);
      jellyfin.model.writeFile(file);
      const series = file.split('/').slice(0, 3).join('/');
      const res = await fetch(`${first.url}/${SECRET}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ eventType: 'Download', series: { path: series }, episodeFile: { path: file } }),
      });
      expect(res.status).toBe(200);
    }
    await until(() => countIn(queuefile, `SELECT COUNT(*) AS n FROM deliveries WHERE state = 'following'`) === N, within30s);
    // The socket is opened once there is something to follow.
    await until(() => jellyfin!.socket.open().length === 1, within30s);
    const refreshes = () => jellyfin!.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/Refresh')).length;
    expect(refreshes()).toBe(N);
    first.child.proc.kill('SIGKILL');
    await first.child.exited;

    // While scanrelay is down the validates end and the LibraryChanged 30 s later reaches no socket.
    await jellyfin.scheduler.advance(60_000);
    expect(jellyfin.notifier.sent.map((m) => m.sockets)).toEqual([0]);
    expect(jellyfin.notifier.sent[0].added).toHaveLength(N);

    const second = await startServer({ config, queuefile, dir });
    await until(() => jellyfin!.socket.open().length === 1, within30s);
    expect(jellyfin.socket.sessions.filter((s) => s.userId !== undefined)).toHaveLength(2);
    await until(() => countIn(queuefile, 'SELECT COUNT(*) AS n FROM history') === N, within30s);
    const history = ((await (await fetch(`${second.url}/api/${SECRET}/history?limit=100`)).json()) as { history: { outcome: string; detail: string | null }[] }).history;
    expect(history.map((h) => h.outcome)).toEqual(Array(N).fill('confirmed'));
    for (const h of history) expect(h.detail).toContain('once the refresh was over');
    expect(countIn(queuefile, 'SELECT COUNT(*) AS n FROM folders')).toBe(0);
    expect(refreshes()).toBe(N);
    expect(second.child.output()).toContain(`Resumed following ${N} scan(s) on jellyfin.`);
  });
});
