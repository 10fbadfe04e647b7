// One server per queue file: a second `scanrelay server` on the same queue exits at once naming the holder,
// the read-only commands keep working beside it, and a killed holder leaves no stale lock behind.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FakePlex } from '../fakes/plex.js';
import { killChildren, runCli } from '../support/child.js';
import { writeConfigFile } from '../support/config-file.js';

const SECRET = 'abad1deaabad1deaabad1deaabad1dea';
let plex: FakePlex;
let dir: string;
let config: string;

/** The CLI on the shared config, with the queue file (and its lock) and the log in `at`. */
const cli = (args: string[], at = dir) => {
  return runCli(['--config', config, '--queuefile', join(at, 'queue.db'), '--logfile', join(at, 'log.txt'), ...args], { cwd: at });
};

beforeAll(async () => {
  plex = await new FakePlex({ sections: [{ key: '2', title: 'TV Shows', type: 'show', locations: ['/data/TV'] }] }).start();
  dir = mkdtempSync(join(tmpdir(), 'scanrelay-one-'));
  // The episode explained below is on this machine's disk, where the existence check looks for it.
  mkdirSync(join(dir, 'TV/Show/Season 01'), { recursive: true });
  writeFileSync(join(dir, 'TV/Show/Season 01/e1.mkv'), '');
  config = writeConfigFile(dir, {
    SERVER_PASS: SECRET,
    SERVER_IP: '127.0.0.1',
    PLEX_LOCAL_URL: plex.url,
    PLEX_TOKEN: plex.token,
    PLEX_SCAN_MODE: 'api',
    SERVER_PATH_MAPPINGS: { '/data/TV/': ['/tv/'] },
    SERVER_FILE_EXIST_PATH_MAPPINGS: { [`${dir}/TV/`]: ['/data/TV/'] },
  });
});
// A server a failed test left running would hold its queue file's lock into the next test.
afterEach(() => killChildren());
afterAll(async () => {
  await plex.stop();
});

describe('one server per queue file', { timeout: 90_000 }, () => {
  it('a second server on the same queue file exits at once, naming the PID and the file; sections and explain still work', async () => {
    const first = cli(['server', '--port', '0']);
    await first.waitFor(/scanrelay is running/, 30_000);

    const second = cli(['server', '--port', '0']);
    expect(await second.exited).toBe(1);
    expect(second.output()).toContain(`PID ${first.proc.pid}`);
    expect(second.output()).toContain(join(dir, 'queue.db'));
    expect(second.output()).not.toMatch(/scanrelay is running/);

    const sections = cli(['sections']);
    expect(await sections.exited, sections.output()).toBe(0);
    expect(sections.output()).toMatch(/TV Shows/);
    const explain = cli(['explain', '/tv/Show/Season 01/e1.mkv']);
    expect(await explain.exited, explain.output()).toBe(0);
    expect(explain.output()).toMatch(/in library TV Shows \(section 2\): \/data\/TV/);
    expect(explain.output()).toMatch(/Would scan '\/data\/TV\/Show\/Season 01'/);

    // kill -9: the operating system releases the lock with the process, so the next start is not refused.
    first.proc.kill('SIGKILL');
    await first.exited;
    const third = cli(['server', '--port', '0']);
    await third.waitFor(/scanrelay is running/, 30_000);
    expect(third.output()).not.toMatch(/another scanrelay server/);
    third.proc.kill('SIGKILL');
    await third.exited;
  });

  it('a port clash says scanrelay may already be running instead of "change SERVER_PORT"', async () => {
    // A queue file of its own: the clash is over the port alone.
    const first = cli(['server', '--port', '0'], mkdtempSync(join(tmpdir(), 'scanrelay-one-')));
    const m = await first.waitFor(/http:\/\/127\.0\.0\.1:(\d+)\//, 30_000);
    const other = mkdtempSync(join(tmpdir(), 'scanrelay-one-'));
    const clash = runCli(['--config', config, '--queuefile', join(other, 'queue.db'), '--logfile', join(other, 'log.txt'), 'server', '--port', m[1]], { cwd: other });
    expect(await clash.exited).toBe(1);
    expect(clash.output()).toMatch(/it is already running/);
    expect(clash.output()).not.toMatch(/Change SERVER_PORT/);
    first.proc.kill('SIGTERM');
    await first.exited;
  });
});
