// The queue file checked before the server listens, and `scanrelay check` by hand: a file that is damaged, not a
// database, empty or unreadable stops the start with exit 78 and one line (file, what is wrong, what to do) on
// stderr and in the log file, and its bytes are the same afterwards. Run as a user would, as child processes.
import { createHash } from 'node:crypto';
import { chmodSync, closeSync, existsSync, fstatSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { EX_CONFIG } from '../../src/queue/file-check.js';
import { Queue } from '../../src/queue/store.js';
import { killChildren, runCli } from '../support/child.js';

afterEach(() => killChildren());

const folder = (i: number) => ({ folder: `/data/tv/Show ${i}/Season 01`, priority: 1, source: 'sonarr' as const, event: 'Download', deleted: false });

function setup() {
  const dir = mkdtempSync(join(tmpdir(), 'scanrelay-queuefile-'));
  const queuefile = join(dir, 'queue.db');
  const logfile = join(dir, 'scanrelay.log');
  const run = (args: string[]) => {
    const child = runCli(['--config', join(dir, 'config', 'config.json'), '--queuefile', queuefile, '--logfile', logfile, ...args], { cwd: dir });
    let stderr = '';
    child.proc.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    return { child, stderr: () => stderr };
  };
  return { dir, queuefile, logfile, run };
}

/** A real queue file with 3,000 folders queued, closed cleanly (no -wal beside it). */
function writeQueue(file: string, folders = 3_000): void {
  const q = new Queue(file, new ManualClock(), { delayMs: 180_000 });
  q.enqueueMany(Array.from({ length: folders }, (_, i) => folder(i)));
  q.close();
}

/** Overwrites 4,000 bytes inside a page in the middle of the file, as a bad sector or a torn copy would. */
function damageMiddle(file: string): void {
  const fd = openSync(file, 'r+');
  try {
    const pages = Math.floor(fstatSync(fd).size / 4096);
    writeSync(fd, Buffer.alloc(4000, 0x41), 0, 4000, Math.floor(pages / 2) * 4096 + 50);
  } finally {
    closeSync(fd);
  }
}

const hash = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');
const besides = (dir: string) => readdirSync(dir).filter((f) => f.startsWith('queue.db')).sort();

/** The server refuses: exit 78, exactly one line on stderr naming the file, the same line in the log file. */
async function expectRefusal(s: ReturnType<typeof setup>, what: RegExp): Promise<string> {
  const server = s.run(['server', '--port', '0']);
  expect(await server.child.exited, server.child.output()).toBe(EX_CONFIG);
  const lines = server.stderr().split('\n').filter(Boolean);
  expect(lines).toHaveLength(1);
  const line = lines[0]!;
  expect(line.startsWith(`The queue file '${s.queuefile}' `)).toBe(true);
  expect(line).toMatch(what);
  expect(line).toContain('it was left as it is');
  // The log file has the same line (as JSON, with the exit code).
  const logged = readFileSync(s.logfile, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as { level: string; msg: string; exitCode?: number });
  expect(logged.filter((l) => l.level === 'error')).toEqual([expect.objectContaining({ msg: line, exitCode: EX_CONFIG })]);
  expect(server.child.output()).not.toContain('Could not listen');
  // `scanrelay check` says the same, with the same exit code.
  const check = s.run(['check']);
  expect(await check.child.exited).toBe(EX_CONFIG);
  expect(check.stderr()).toBe(`${line}\n`);
  return line;
}

describe('the queue file at start and `scanrelay check`', () => {
  it('damaged in the middle: exit 78, one line with SQLite\'s finding and the way out; the file is byte for byte the same, nothing created beside it', async () => {
    const s = setup();
    writeQueue(s.queuefile);
    damageMiddle(s.queuefile);
    const before = hash(s.queuefile);
    const line = await expectRefusal(s, /is damaged \(SQLite quick_check: .+\)/);
    expect(line).toContain('`npx scanrelay restore <backup>`');
    expect(line).toContain(`mv '${s.queuefile}' '${s.queuefile}.bad'`);
    expect(hash(s.queuefile)).toBe(before);
    // No -wal, -shm or .lock: the check reads a copy, and the server stops before its lock and migrations.
    expect(besides(s.dir)).toEqual(['queue.db']);
  }, 60_000);

  it('a file over 8 MB is checked in place, read-only: a healthy one passes, a damaged one is refused and its bytes stay the same', async () => {
    const s = setup();
    writeQueue(s.queuefile, 60_000);
    // Past the size the check copies into memory (a copy costs twice the file at every start).
    expect(statSync(s.queuefile).size).toBeGreaterThan(8 * 1024 * 1024);
    const ok = s.run(['check']);
    expect(await ok.child.exited, ok.child.output()).toBe(0);
    expect(ok.child.output()).toContain('60000 folder(s) queued');
    damageMiddle(s.queuefile);
    const before = hash(s.queuefile);
    await expectRefusal(s, /is damaged \(SQLite quick_check: .+\)/);
    expect(hash(s.queuefile)).toBe(before);
  }, 90_000);

  it('a text file is not a database: exit 78, unchanged', async () => {
    const s = setup();
    writeFileSync(s.queuefile, 'folder,priority\n/data/tv/Show 1,1\n'.repeat(50));
    const before = hash(s.queuefile);
    await expectRefusal(s, /is not a SQLite database/);
    expect(hash(s.queuefile)).toBe(before);
    expect(besides(s.dir)).toEqual(['queue.db']);
  }, 60_000);

  it('a 0-byte file no longer starts an empty queue in silence: exit 78, still 0 bytes', async () => {
    const s = setup();
    writeFileSync(s.queuefile, '');
    await expectRefusal(s, /is empty \(0 bytes\)/);
    expect(readFileSync(s.queuefile).length).toBe(0);
    expect(besides(s.dir)).toEqual(['queue.db']);
  }, 60_000);

  it('a queue file that cannot be opened: exit 78 with what to do', async () => {
    const s = setup();
    if (process.getuid?.() === 0) {
      // As root, chmod 000 does not stop reading, so the honest unopenable case here is a directory where the
      // file should be (what a wrong bind mount leaves).
      mkdirSync(s.queuefile);
      const line = await expectRefusal(s, /is a directory, not a file/);
      expect(line).toContain(`mv '${s.queuefile}' '${s.queuefile}.aside'`);
      expect(readdirSync(s.queuefile)).toEqual([]);
    } else {
      writeQueue(s.queuefile, 10);
      chmodSync(s.queuefile, 0o000);
      try {
        const line = await expectRefusal(s, /cannot be read \(EACCES\)/);
        expect(line).toContain('read and write access');
      } finally {
        chmodSync(s.queuefile, 0o600);
      }
    }
    expect(besides(s.dir)).toEqual(['queue.db']);
  }, 60_000);

  it('a healthy file: `check` exits 0 with one "ok" line (file, size, rows queued, history lines) and changes nothing', async () => {
    const s = setup();
    writeQueue(s.queuefile, 250);
    const before = hash(s.queuefile);
    const check = s.run(['check']);
    expect(await check.child.exited).toBe(0);
    expect(check.child.output()).toMatch(new RegExp(`^ok: the queue file '${s.queuefile.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}' \\(\\d+ KiB\\) is a whole SQLite database: 250 folder\\(s\\) queued, 0 history line\\(s\\)\\.\\n$`));
    expect(hash(s.queuefile)).toBe(before);
    expect(besides(s.dir)).toEqual(['queue.db']);
    // No config is read or written for it.
    expect(existsSync(join(s.dir, 'config'))).toBe(false);
  }, 30_000);

  it('while a server has the file open, `check` reads the commits still in its WAL', async () => {
    const s = setup();
    const q = new Queue(s.queuefile, new ManualClock(), { delayMs: 180_000, checkpointEveryMs: 60_000 });
    try {
      q.enqueueMany(Array.from({ length: 40 }, (_, i) => folder(i)));
      expect(existsSync(`${s.queuefile}-wal`)).toBe(true);
      const check = s.run(['check']);
      expect(await check.child.exited).toBe(0);
      expect(check.child.output()).toMatch(/: 40 folder\(s\) queued, 0 history line\(s\)\.\n$/);
    } finally {
      q.close();
    }
  }, 30_000);

  it('no queue file yet (a first start) is fine: `check` says the server creates it', async () => {
    const s = setup();
    const check = s.run(['check']);
    expect(await check.child.exited).toBe(0);
    expect(check.child.output()).toBe(`ok: there is no queue file at '${s.queuefile}' yet; the server creates it when it starts.\n`);
    expect(besides(s.dir)).toEqual([]);
  }, 30_000);

  it('`scanrelay check --help` says what it checks and its exit codes', async () => {
    const s = setup();
    const help = s.run(['check', '--help']);
    expect(await help.child.exited).toBe(0);
    expect(help.child.output()).toMatch(/Usage: scanrelay check/);
    expect(help.child.output().replace(/\s+/g, ' ')).toMatch(/without changing it.*quick_check.*exits 0.*exits 78/);
  }, 30_000);
});
