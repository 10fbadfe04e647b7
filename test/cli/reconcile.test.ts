// `scanrelay reconcile` as a user meets its failures: an app or a server that cannot be read is named and the exit
// is 1, nothing queued for it; an unknown NAME lists the entries; the key is printed nowhere.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ARR_KEYS } from '../arr/harness.js';
import { FakeArrApp } from '../fakes/arr-app.js';
import { FakePlex } from '../fakes/plex.js';
import { runCli } from '../support/child.js';
import { writeConfigFile } from '../support/config-file.js';
import { countIn } from '../support/queue-file.js';
import { Queue } from '../../src/queue/store.js';
import { ReconcileAudits } from '../../src/reconcile/audits.js';
import { systemClock } from '../../src/clock.js';

let plex: FakePlex | undefined;
let sonarr: FakeArrApp | undefined;
afterEach(async () => {
  await plex?.stop();
  await sonarr?.stop();
});

async function setUp() {
  plex = await new FakePlex().start();
  sonarr = await new FakeArrApp('sonarr', ARR_KEYS.sonarr).start();
  sonarr.rootFolders = ['/data/media/tv'];
  sonarr.addFile(sonarr.addItem('/data/media/tv/Show'), '/data/media/tv/Show/Season 01/Show - S01E01.mkv');
  const dir = mkdtempSync(join(tmpdir(), 'scanrelay-reconcile-cli-'));
  const config = writeConfigFile(dir, {
    SERVER_PASS: 'b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0',
    PLEX_LOCAL_URL: plex.url,
    PLEX_TOKEN: plex.token,
    PLEX_SCAN_MODE: 'api',
    ARR: [{ NAME: 'sonarr', TYPE: 'sonarr', URL: sonarr.url, API_KEY: sonarr.apiKey }],
  });
  return { dir, config, queuefile: join(dir, 'queue.db') };
}

const run = async (args: string[], s: { dir: string; config: string; queuefile: string }) => {
  const child = runCli(['--config', s.config, '--queuefile', s.queuefile, '--logfile', '-', 'reconcile', ...args], { cwd: s.dir });
  return { code: await child.exited, out: child.output() };
};

describe('scanrelay reconcile, its failures', () => {
  it('an app that does not answer is named, exit 1, nothing queued; the key is printed nowhere', async () => {
    const s = await setUp();
    sonarr!.failure = { status: 500, body: `boom ${sonarr!.apiKey}` };
    const r = await run([], s);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/sonarr 'sonarr': could not be read: .*answered 500/);
    expect(r.out).toContain("Could not read sonarr 'sonarr': see above.");
    expect(r.out).not.toContain(sonarr!.apiKey);
    expect(countIn(s.queuefile, 'SELECT COUNT(*) AS n FROM folders')).toBe(0);
  }, 30_000);

  it('a server that refuses its token is named, exit 1, nothing queued for it', async () => {
    const s = await setUp();
    plex!.failRoute('GET', /^\/library\/sections$/, 401);
    const r = await run([], s);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/plex: could not be read: Plex at .* refused the token/);
    expect(r.out).toContain("Could not read plex (for sonarr 'sonarr'): see above.");
    expect(countIn(s.queuefile, 'SELECT COUNT(*) AS n FROM folders')).toBe(0);
  }, 30_000);

  it('never two at once: while another live process holds the queue file\'s lease, it says so, exit 1, reads no app', async () => {
    const s = await setUp();
    const queue = new Queue(s.queuefile, systemClock, { delayMs: 0 });
    const audits = new ReconcileAudits(queue.db);
    expect(audits.take(process.pid, Date.now())).toBeUndefined();
    try {
      const r = await run([], s);
      expect(r.code).toBe(1);
      expect(r.out).toContain(`A reconcile is already running on the queue file '${s.queuefile}' (PID ${process.pid}): run this again when it has ended.`);
      expect(sonarr!.requests).toEqual([]);
    } finally {
      audits.release(process.pid);
      queue.close();
    }
  }, 30_000);

  it('an unknown NAME lists the entries; --help says what it compares and that it never deletes', async () => {
    const s = await setUp();
    const r = await run(['radarr'], s);
    expect(r.code).toBe(1);
    expect(r.out).toContain("No ARR entry is named 'radarr'");
    expect(r.out).toContain('the entries are: sonarr');
    const help = await run(['--help'], s);
    expect(help.code).toBe(0);
    expect(help.out).toMatch(/--dry-run[\s\S]*--queuefile[\s\S]*never deleted/);
  }, 30_000);
});
