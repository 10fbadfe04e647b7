// What every start of `scanrelay server` does for security (run as the real CLI): the queue, its WAL/SHM and
// the log are created 0600, looser existing files (token file too) are tightened with one INFO line, and a weak
// SERVER_PASS is warned about every time; `update-config --new-pass` replaces it. The dashboard shows the banner.
import { chmodSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from '../../src/sqlite/binding.js';
import { afterEach, describe, expect, it } from 'vitest';
import { writeConfigFile } from '../support/config-file.js';
import { runCli, type Child } from '../support/child.js';
import { SECRET, testService, type TestService } from '../support/service.js';

const EXAMPLE_PASS = '9c4b81fe234e4d6eb9011cefe514d915';
const mode = (path: string) => statSync(path).mode & 0o777;

let running: Child | undefined;
afterEach(async () => {
  if (running && running.proc.exitCode === null) {
    running.proc.kill('SIGTERM');
    await running.exited;
  }
  running = undefined;
});

function setup(pass: string) {
  const dir = mkdtempSync(join(tmpdir(), 'scanrelay-start-'));
  const config = writeConfigFile(dir, { SERVER_PASS: pass, PLEX_TOKEN: '', PLEX_ENABLED: false }, { mode: 0o600 });
  return { dir, config, queue: join(dir, 'queue.db'), log: join(dir, 'scanrelay.log'), token: join(dir, 'token.json') };
}

/** Starts the server, waits until it listens, runs `check` while it runs, stops it; returns its output. */
async function serve(files: ReturnType<typeof setup>, check: () => void = () => undefined): Promise<string> {
  running = runCli(['--config', files.config, '--queuefile', files.queue, '--logfile', files.log, 'server', '--port', '0', '--host', '127.0.0.1'], { cwd: files.dir });
  const [, url] = await running.waitFor(/Health: (http:\/\/\S+)\/health/, 30_000);
  // An answer means the event loop has turned, so the SIGTERM handler is in place.
  expect((await fetch(`${url}/health`)).status).toBe(200);
  check();
  running.proc.kill('SIGTERM');
  const code = await running.exited;
  expect(code, `${running.proc.signalCode} ${running.output()}`).toBe(0);
  return running.output();
}

const lines = (output: string) => output.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as { level: string; msg: string });

describe('files that hold paths and tokens', () => {
  it('a first start creates the queue, its WAL and SHM, and the log with mode 0600 (whatever the umask allows)', async () => {
    const files = setup(SECRET);
    await serve(files, () => {
      for (const f of [files.queue, `${files.queue}-wal`, `${files.queue}-shm`, files.log]) expect(mode(f), f).toBe(0o600);
    });
  }, 60_000);

  it('looser existing files (queue, WAL, log, token file) are tightened at start with one INFO line; 0640 is kept', async () => {
    const files = setup(SECRET);
    // A database with its header written (an empty file is refused at start as no queue at all).
    const db = new Database(files.queue);
    db.pragma('journal_mode = WAL');
    db.close();
    writeFileSync(`${files.queue}-wal`, '');
    writeFileSync(files.log, '');
    writeFileSync(files.token, '{}');
    chmodSync(files.queue, 0o644);
    chmodSync(`${files.queue}-wal`, 0o666);
    chmodSync(files.log, 0o644);
    chmodSync(files.token, 0o664);
    const output = await serve(files, () => {
      for (const f of [files.queue, `${files.queue}-wal`, `${files.queue}-shm`, files.log, files.token]) expect(mode(f), f).toBe(0o600);
    });
    const tightened = lines(output).filter((l) => /Tightened file permissions/.test(l.msg));
    expect(tightened).toHaveLength(1);
    expect(tightened[0].level).toBe('info');
    expect(tightened[0].msg).toContain(`${files.queue} 0644 -> 0600`);
    expect(tightened[0].msg).toContain(`${files.token} 0664 -> 0600`);

    // A log a group was given on purpose stays readable by it; the next start has nothing to say.
    chmodSync(files.log, 0o640);
    const again = await serve(files);
    expect(mode(files.log)).toBe(0o640);
    expect(lines(again).some((l) => /Tightened/.test(l.msg))).toBe(false);
  }, 90_000);
});

describe('a weak SERVER_PASS', () => {
  it("plex_autoscan's published example, or fewer than 16 characters, is a WARN at every start naming the fix", async () => {
    for (const pass of [EXAMPLE_PASS, 'pass with space']) {
      const files = setup(pass);
      for (let start = 0; start < 2; start++) {
        const warn = lines(await serve(files)).filter((l) => /SERVER_PASS is weak/.test(l.msg));
        expect(warn, pass).toHaveLength(1);
        expect(warn[0].level).toBe('warn');
        expect(warn[0].msg).toContain('scanrelay update-config --new-pass');
      }
    }
  }, 120_000);

  it('`update-config --new-pass` writes a fresh random one (mode kept) and prints the new URL; the warning is gone', async () => {
    const files = setup(EXAMPLE_PASS);
    const child = runCli(['--config', files.config, '--queuefile', files.queue, '--logfile', files.log, 'update-config', '--new-pass'], { cwd: files.dir });
    expect(await child.exited).toBe(0);
    const pass = JSON.parse(readFileSync(files.config, 'utf8')).SERVER_PASS as string;
    expect(pass).toMatch(/^[0-9a-f]{32}$/);
    expect(pass).not.toBe(EXAMPLE_PASS);
    expect(child.output()).toContain(`:3468/${pass}`);
    expect(mode(files.config)).toBe(0o600);
    expect(lines(await serve(files)).some((l) => /SERVER_PASS is weak/.test(l.msg))).toBe(false);
  }, 60_000);
});

describe('the dashboard banner', () => {
  let t: TestService | undefined;
  afterEach(async () => t?.close());

  it('names the weakness and the fix; a strong secret shows none', async () => {
    t = await testService({ config: { SERVER_PASS: EXAMPLE_PASS } });
    const weak = await t.service.app.inject({ url: `/${EXAMPLE_PASS}/dashboard` });
    expect(weak.body).toMatch(/id="security-alert">Your SERVER_PASS is weak: it is plex_autoscan&#39;s published example.*scanrelay update-config --new-pass/);
    await t.close();
    t = await testService();
    const strong = await t.service.app.inject({ url: `/${SECRET}/dashboard` });
    expect(strong.statusCode).toBe(200);
    expect(strong.body).not.toContain('security-alert');
  });
});
