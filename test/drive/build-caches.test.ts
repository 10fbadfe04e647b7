// `scanrelay build-caches` against the fake Drive API.
import Database from '../../src/sqlite/binding.js';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { buildCachesCommand } from '../../src/cli/build-caches.js';
import { DriveCache } from '../../src/drive/cache.js';
import { DriveCursors } from '../../src/drive/cursors.js';
import { silentLogger } from '../../src/log/logger.js';
import { startHarness, tvTree, type Harness } from './harness.js';

let h: Harness;
afterEach(async () => {
  await h?.close();
});

/** `scanrelay build-caches` on the harness's Drive, its output to `output`; resolves to the exit code it set. */
async function buildCaches(output: NodeJS.WritableStream): Promise<number | undefined> {
  let code: number | undefined;
  await buildCachesCommand({
    loadConfig: () => ({ google: h.settings, configDir: h.dir }),
    openDatabase: () => new Database(join(h.dir, 'scanrelay.db')),
    logger: h.log.logger,
    output,
    clock: h.clock,
    exit: (c) => (code = c),
  })
    .exitOverride()
    .parseAsync([], { from: 'user' });
  return code;
}

describe('scanrelay build-caches', () => {
  it('walks My Drive and the shared drives, fills the cache, prints a summary, and the monitor then fetches nothing', async () => {
    h = await startHarness({ settings: { TEAMDRIVE: true, TEAMDRIVES: ['Media'] } });
    const shared = h.drive.addSharedDrive('Media');
    const t = tvTree(h.drive);
    for (let i = 0; i < 30; i++) h.drive.addFile(`e${i}.mkv`, t.season, { silent: true });
    const movies = h.drive.addFolder('Movies', shared, { silent: true });
    h.drive.addFile('film.mkv', movies, { silent: true });
    h.drive.trash(h.drive.addFile('trashed.mkv', t.season, { silent: true }));

    const output = new PassThrough();
    let out = '';
    output.on('data', (c) => (out += c.toString()));
    expect(await buildCaches(output)).toBe(0);
    expect(out).toContain('My Drive: 34 items (4 folders) cached');
    expect(out).toContain('Media: 2 items (1 folders) cached');
    expect(out).toMatch(/Done: 36 items from 2 drive\(s\)/);
    const cache = new DriveCache(h.db, { clock: h.clock, logger: silentLogger });
    expect(cache.get(movies)?.path).toBe('Media/Movies');
    expect(new DriveCursors(h.db).all()).toHaveLength(2);

    // The cursors build-caches started are used; the walked folders are never fetched again.
    const gets = h.drive.totalFileGets;
    h.drive.addFile('new.mkv', t.season);
    await h.monitor.pollOnce();
    expect(h.enqueued.map((r) => r.path)).toEqual(['My Drive/Media/TV/The Expanse (2015)/Season 01/new.mkv']);
    expect(h.drive.totalFileGets - gets).toBe(1); // files.get("root") at monitor start only
  });

  it("a shared drive's name is cut to the progress bar's 20 characters on a character, never half an emoji", async () => {
    const name = `${'M'.repeat(19)}😀 Media`;
    h = await startHarness({ settings: { TEAMDRIVE: true, TEAMDRIVES: [name] } });
    h.drive.addFile('film.mkv', h.drive.addSharedDrive(name), { silent: true });
    // The bar is drawn only on a terminal.
    const output = Object.assign(new PassThrough(), { isTTY: true });
    let out = '';
    output.on('data', (c: Buffer) => (out += c.toString()));
    await buildCaches(output);
    expect(out).not.toContain('\ufffd');
    expect(out).toContain(`${'M'.repeat(19)}  |`);
  });

  it('fails with exit code 1 and one line when there is no sign-in', async () => {
    h = await startHarness({ writeToken: false });
    expect(await buildCaches(new PassThrough())).toBe(1);
    expect(h.log.messages().at(-1)).toMatch(/^build-caches failed: no Google Drive token at .*run `npx scanrelay authorize`/);
  });
});
