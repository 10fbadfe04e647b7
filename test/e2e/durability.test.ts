// kill -9 during a burst, then restart: every request that got a 2xx is delivered.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FakePlex } from '../fakes/plex.js';
import { killChildren, startServer } from '../support/child.js';
import { writeConfigFile } from '../support/config-file.js';
import { until } from '../support/until.js';

const SECRET = 'feedfacefeedfacefeedfacefeedface';
let plex: FakePlex | undefined;
afterEach(async () => {
  killChildren();
  await plex?.stop();
});

describe('durability', () => {
  it('kill -9 during a burst loses no acknowledged request', async () => {
    plex = await new FakePlex({ sections: [{ key: '2', title: 'TV', locations: ['/tv'] }] }).start();
    plex.failure = { status: 503 }; // nothing drains during the burst: the queue must hold it all
    const dir = mkdtempSync(join(tmpdir(), 'scanrelay-kill-'));
    const config = writeConfigFile(dir, {
      SERVER_PASS: SECRET,
      SERVER_IP: '127.0.0.1',
      SERVER_PORT: 3468,
      SERVER_SCAN_DELAY: 0,
      SERVER_MAX_FILE_CHECKS: 0,
      PLEX_LOCAL_URL: plex.url,
      PLEX_TOKEN: plex.token,
      PLEX_SCAN_MODE: 'api',
      // More folders than the default cap of outstanding scans are meant to reach Plex here at once.
      PLEX_MAX_OUTSTANDING: 100_000,
      SERVER_PATH_MAPPINGS: {},
    });
    const queuefile = join(dir, 'queue.db');
    const first = await startServer({ config, queuefile, dir });

    const acked = new Set<string>();
    let sent = 0;
    const send = async (i: number) => {
      const folder = `/tv/Show ${i}/Season 01`;
      sent++;
      try {
        const res = await fetch(`${first.url}/${SECRET}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ eventType: 'Download', series: { path: `/tv/Show ${i}` }, episodeFile: { path: `${folder}/e.mkv` } }),
        });
        if (res.ok) acked.add(folder);
      } catch {
        /* connection cut by the kill: not acknowledged */
      }
    };
    const burst: Promise<void>[] = [];
    const killAfter = 300 + Math.floor(Math.random() * 300);
    for (let i = 0; i < 2000; i++) {
      burst.push(send(i));
      if (i === killAfter) {
        await Promise.race([Promise.all(burst.slice(0, 100)), new Promise((r) => setTimeout(r, 50))]);
        first.child.proc.kill('SIGKILL');
        break;
      }
      if (i % 32 === 31) await Promise.all(burst.slice(-32));
    }
    await Promise.allSettled(burst);
    await first.child.exited;
    expect(acked.size).toBeGreaterThan(100);

    plex.failure = undefined;
    const second = await startServer({ config, queuefile, dir });
    const delivered = () => new Set(plex!.refreshes.map((r) => r.path));
    const missing = () => [...acked].filter((f) => !delivered().has(f));
    await until(() => missing().length === 0, { ms: 20_000, every: 100, what: () => `not delivered: ${missing().join(', ')}` });
    const lost = [...acked].filter((f) => !delivered().has(f));
    expect(lost).toEqual([]);
    expect(sent).toBeGreaterThan(acked.size - 1);
    second.child.proc.kill('SIGTERM');
    expect(await second.child.exited).toBe(0);
  }, 60_000);
});
