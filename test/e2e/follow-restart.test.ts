// kill -9 while Plex scans are being followed, then restart: every follow-up resumes from the queue file; none is
// lost and the restart itself scans nothing twice.
import Database from '../../src/sqlite.js';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FakePlex } from '../fakes/plex.js';
import { runCli, type Child } from '../support/child.js';

const SECRET = 'f011f011f011f011f011f011f011f011';
const N = 50;
let children: Child[] = [];
let plex: FakePlex | undefined;
afterEach(async () => {
  for (const c of children) if (c.proc.exitCode === null) c.proc.kill('SIGKILL');
  children = [];
  await plex?.stop();
});

async function start(config: string, queuefile: string, dir: string): Promise<{ child: Child; url: string }> {
  const child = runCli(['--config', config, '--queuefile', queuefile, '--logfile', join(dir, 'log.txt'), 'server', '--port', '0'], { cwd: dir });
  children.push(child);
  const m = await child.waitFor(/(http:\/\/127\.0\.0\.1:\d+)\/[0-9a-f]{32}/);
  return { child, url: m[1] };
}

/** Reads the queue file beside the running server (WAL readers do not block it). */
function count(queuefile: string, sql: string): number {
  const db = new Database(queuefile, { readonly: true, fileMustExist: true });
  try {
    return (db.prepare(sql).get() as { n: number }).n;
  } finally {
    db.close();
  }
}

async function until(check: () => boolean, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('follow-ups across kill -9', () => {
  it(`${N} deliveries following when the process is killed are all confirmed after the restart, none scanned again`, { timeout: 90_000 }, async () => {
    plex = await new FakePlex({ sections: [{ key: '2', title: 'TV', locations: ['/tv'] }] }).start();
    plex.scanPolls = Infinity; // Plex keeps scanning: every delivery stays `following`
    const dir = mkdtempSync(join(tmpdir(), 'scanrelay-follow-kill-'));
    const config = join(dir, 'config.json');
    writeFileSync(
      config,
      JSON.stringify({
        SERVER_PASS: SECRET,
        SERVER_IP: '127.0.0.1',
        SERVER_SCAN_DELAY: 0,
        SERVER_MAX_FILE_CHECKS: 0,
        PLEX_LOCAL_URL: plex.url,
        PLEX_TOKEN: plex.token,
        PLEX_SCAN_MODE: 'api',
        PLEX_FOLLOW_INTERVAL: 0.1,
      }),
    );
    const queuefile = join(dir, 'queue.db');
    const first = await start(config, queuefile, dir);
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
    await until(() => count(queuefile, `SELECT COUNT(*) AS n FROM deliveries WHERE state = 'following'`) === N);
    expect(plex.refreshes).toHaveLength(N);
    first.child.proc.kill('SIGKILL');
    await first.child.exited;

    // Plex finished while scanrelay was down.
    plex.finishScans();
    const second = await start(config, queuefile, dir);
    await until(() => count(queuefile, 'SELECT COUNT(*) AS n FROM history') === N);
    expect(count(queuefile, `SELECT COUNT(*) AS n FROM history WHERE outcome = 'confirmed'`)).toBe(N);
    expect(count(queuefile, 'SELECT COUNT(DISTINCT folder) AS n FROM history')).toBe(N);
    expect(count(queuefile, 'SELECT COUNT(*) AS n FROM folders')).toBe(0);
    expect(plex.refreshes).toHaveLength(N);
    expect(second.child.output()).toContain(`Resumed following ${N} scan(s) on plex.`);
  });
});
