// `scanrelay backup` and `scanrelay restore` as a user runs them, against a queue file another process keeps
// open and writes to (as the running server does).
import Database from '../../src/sqlite/binding.js';
import { existsSync, mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { Queue } from '../../src/queue/store.js';
import { runCli } from '../support/child.js';

const open: Queue[] = [];
afterEach(() => open.splice(0).forEach((q) => q.close()));

function setup() {
  const dir = mkdtempSync(join(tmpdir(), 'scanrelay-backup-'));
  const queuefile = join(dir, 'queue.db');
  const q = new Queue(queuefile, new ManualClock(), { delayMs: 180_000, checkpointEveryMs: 1_000 });
  open.push(q);
  // The CLI needs no config for these commands; point it at an empty folder so none is written anywhere.
  const cli = (args: string[]) => runCli(['--queuefile', queuefile, '--config', join(dir, 'config', 'config.json'), ...args], { cwd: dir });
  return { dir, queuefile, q, cli };
}
const folder = (i: number) => ({ folder: `/data/tv/Show ${i}/Season 01`, priority: 1, source: 'sonarr', event: 'Download', deleted: false });
const folders = (file: string) => {
  const db = new Database(file, { readonly: true });
  try {
    return (db.prepare('SELECT folder FROM folders ORDER BY id').all() as { folder: string }[]).map((r) => r.folder);
  } finally {
    db.close();
  }
};

describe('scanrelay backup', () => {
  it('copies the queue while the server keeps writing to it: a consistent 0600 file, and says what it holds', async () => {
    const { dir, q, cli } = setup();
    for (let i = 0; i < 200; i++) q.enqueue(folder(i));
    // Requests keep arriving during the backup.
    let i = 200;
    const writer = setInterval(() => q.enqueue(folder(i++)), 2);
    const child = cli(['backup', join(dir, 'backups', '..', 'queue-backup.db')]);
    const code = await child.exited;
    clearInterval(writer);
    expect(code, child.output()).toBe(0);
    const file = join(dir, 'queue-backup.db');
    expect(child.output()).toMatch(/^Backed up '.*queue\.db' to '.*queue-backup\.db' \(\d+ KiB\): \d+ queued folder\(s\), 0 history line\(s\)\.\n$/);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const copied = folders(file);
    // Everything committed before the backup began is in it, in order, with nothing half-written.
    expect(copied.length).toBeGreaterThanOrEqual(200);
    expect(copied).toEqual(copied.map((_, k) => folder(k).folder));
    expect(Number(child.output().match(/(\d+) queued folder/)![1])).toBe(copied.length);
    expect(existsSync(`${file}.partial-${child.proc.pid}`)).toBe(false);
  }, 30_000);

  it('does not overwrite a file unless told to (--force)', async () => {
    const { dir, q, cli } = setup();
    q.enqueue(folder(1));
    const file = join(dir, 'keep.db');
    writeFileSync(file, 'precious');
    const refused = cli(['backup', file]);
    expect(await refused.exited).toBe(1);
    expect(refused.output().trim()).toBe(`'${file}' already exists: choose another name, or add --force to replace it`);
    const forced = cli(['backup', '--force', file]);
    expect(await forced.exited).toBe(0);
    expect(folders(file)).toEqual([folder(1).folder]);
  }, 30_000);

  it('a missing queue file is one clear line and exit 1', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'scanrelay-backup-'));
    const child = runCli(['--queuefile', join(dir, 'nope.db'), 'backup', join(dir, 'b.db')], { cwd: dir });
    expect(await child.exited).toBe(1);
    expect(child.output().trim()).toBe(`queue file '${join(dir, 'nope.db')}' does not exist: check the path (--queuefile)`);
    expect(existsSync(join(dir, 'b.db'))).toBe(false);
  }, 30_000);
});

describe('scanrelay restore', () => {
  it('refuses while the server has the queue open, and changes nothing', async () => {
    const { dir, q, cli } = setup();
    q.enqueue(folder(1));
    expect(await cli(['backup', join(dir, 'b.db')]).exited).toBe(0);
    q.enqueue(folder(2));
    const child = cli(['restore', join(dir, 'b.db')]);
    expect(await child.exited).toBe(1);
    expect(child.output()).toContain('is in use by another process: stop the server first');
    expect(q.list().map((r) => r.folder)).toEqual([folder(1).folder, folder(2).folder]);
  }, 30_000);

  it('puts the backup back once the server is stopped, keeps the replaced queue, and the queue opens as usual', async () => {
    const { dir, queuefile, q, cli } = setup();
    q.enqueue(folder(1));
    q.enqueue(folder(2));
    expect(await cli(['backup', join(dir, 'b.db')]).exited).toBe(0);
    q.enqueue(folder(3));
    q.close();
    const child = cli(['restore', join(dir, 'b.db')]);
    expect(await child.exited, child.output()).toBe(0);
    expect(child.output().trim()).toBe(
      `Restored 2 queued folder(s) and 0 history line(s) from '${join(dir, 'b.db')}' into '${queuefile}'. The queue it replaced is in '${queuefile}.before-restore'. Start the server to continue.`,
    );
    expect(folders(`${queuefile}.before-restore`)).toEqual([1, 2, 3].map((k) => folder(k).folder));
    const back = new Queue(queuefile, new ManualClock(), { delayMs: 0 });
    open.push(back);
    expect(back.list().map((r) => r.folder)).toEqual([folder(1).folder, folder(2).folder]);
  }, 30_000);

  it('keeps every history text through backup and restore (details stored once, paths as received)', async () => {
    const { dir, queuefile, q, cli } = setup();
    const lines = Array.from({ length: 30 }, (_, i) => ({
      folder: `/data/tv/Show ${i}/Season 01`,
      received: `/tv/Show ${i}/Season 01`,
      source: 'sonarr',
      event: 'Download',
      detail: i % 3 ? `Unable to map '/data/tv/Show ${i}/Season 01' to a Section ID.\nCheck SERVER_PATH_MAPPINGS.` : 'In the library after 2 s.',
    }));
    for (const l of lines) q.recordUnmatched(l);
    const before = q.history(100);
    expect(await cli(['backup', join(dir, 'b.db')]).exited).toBe(0);
    q.close();
    expect(await cli(['restore', join(dir, 'b.db')]).exited).toBe(0);
    const back = new Queue(queuefile, new ManualClock(), { delayMs: 0 });
    open.push(back);
    expect(back.history(100)).toEqual(before);
    expect(back.history(100).map((h) => [h.folder, h.received, h.detail])).toEqual(lines.map((l) => [l.folder, l.received, l.detail]).reverse());
  }, 30_000);

  it('refuses a file that is not a scanrelay backup, with the reason', async () => {
    const { dir, q, cli } = setup();
    q.close();
    writeFileSync(join(dir, 'notes.txt'), 'not a database at all, just some text that is long enough to have a header');
    let child = cli(['restore', join(dir, 'notes.txt')]);
    expect(await child.exited).toBe(1);
    expect(child.output().trim()).toBe(`backup '${join(dir, 'notes.txt')}' is not a SQLite database: is it the right file?`);
    const other = new Database(join(dir, 'other.db'));
    other.exec('CREATE TABLE t (x)');
    other.close();
    child = cli(['restore', join(dir, 'other.db')]);
    expect(await child.exited).toBe(1);
    expect(child.output().trim()).toBe(`backup '${join(dir, 'other.db')}' is a SQLite file but not a scanrelay queue (no folders/history tables)`);
  }, 30_000);
});
