// A fresh config.json and the file-exist check: with no SERVER_FILE_EXIST_PATH_MAPPINGS the check looks where the
// media server sees the file, so an import whose media is there is scanned after SERVER_SCAN_DELAY; with the
// media invisible to the relay, the first check's line and the doctor both name the key to set.
import { afterEach, describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/load.js';
import { explainPath, explanationText } from '../../src/doctor/explain.js';
import { ownFixtureText } from '../support/fixtures.js';
import { SECRET, testService, type TestService } from '../support/service.js';

const FILE = '/data/media/tv/The Expanse (2015)/Season 01/The Expanse (2015) - S01E01 - Dulcinea [WEBDL-1080p][EAC3 5.1][h264]-NTb.mkv';
const SEASON = '/data/media/tv/The Expanse (2015)/Season 01';

const fresh = defaultConfig(() => SECRET);
/** A new user's config: every default, Sonarr and Plex naming the media alike (no path mapping needed). */
const newUser = {
  SERVER_PATH_MAPPINGS: {},
  SERVER_FILE_EXIST_PATH_MAPPINGS: fresh.SERVER_FILE_EXIST_PATH_MAPPINGS,
  SERVER_MAX_FILE_CHECKS: fresh.SERVER_MAX_FILE_CHECKS,
  SERVER_FILE_CHECK_DELAY: fresh.SERVER_FILE_CHECK_DELAY,
  SERVER_SCAN_DELAY: fresh.SERVER_SCAN_DELAY,
};

let t: TestService | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

async function sonarrImport(service: TestService): Promise<void> {
  const res = await service.service.app.inject({
    method: 'POST',
    url: `/${SECRET}`,
    headers: { 'content-type': 'application/json', 'user-agent': 'Sonarr/4.0.17.2952' },
    payload: ownFixtureText('arr/sonarr-download.json'),
  });
  expect(res.statusCode).toBe(200);
}

describe('a fresh config and the file-exist check', () => {
  it('a new config has no file-exist mapping: the check looks where the media server sees the file', () => {
    expect(fresh.SERVER_FILE_EXIST_PATH_MAPPINGS).toEqual({});
    expect(fresh.SERVER_MAX_FILE_CHECKS).toBe(10);
  });

  it('media where the media server sees it: a Sonarr import is scanned right after SERVER_SCAN_DELAY', async () => {
    t = await testService({ config: newUser, pathState: async (p) => (p === FILE ? 'file' : p === SEASON ? 'folder' : 'missing') });
    await sonarrImport(t);
    t.clock.advance(newUser.SERVER_SCAN_DELAY * 1000);
    await t.service.processor.drain();
    expect(t.plex.refreshes.map((r) => r.path)).toEqual([SEASON]);
    expect(t.service.queue.count()).toBe(0);
  });

  it('media the relay cannot see: the first check names SERVER_FILE_EXIST_PATH_MAPPINGS, and so does the doctor', async () => {
    t = await testService({ config: newUser, pathState: async () => 'missing' });
    await sonarrImport(t);
    t.clock.advance(newUser.SERVER_SCAN_DELAY * 1000);
    await t.service.processor.drain();
    const first = t.logs.map((l) => JSON.parse(l) as { msg: string }).find((l) => l.msg.includes('did not exist on check 1 of 10'));
    expect(first?.msg).toContain(`File '${FILE}' did not exist on check 1 of 10`);
    expect(first?.msg).toContain('no SERVER_FILE_EXIST_PATH_MAPPINGS entry matched');
    // The queue card shows the same line.
    expect(t.service.queue.list()[0]?.lastError ?? '').toContain('SERVER_FILE_EXIST_PATH_MAPPINGS');

    const e = await explainPath(FILE, { config: t.service.config, targets: t.service.targets, pathState: async () => 'missing' });
    expect(e.verdict).toBe('gives-up');
    const text = explanationText(e);
    expect(text).toContain('does not exist here');
    expect(text).toMatch(/Result: Would wait for '.*' to appear \(10 checks, about 10 min\), then give up and scan nothing/);
    expect(text).toContain('set SERVER_FILE_EXIST_PATH_MAPPINGS');
    expect(text).not.toContain('Would scan');
  });

  it('an old plex_autoscan config keeps its file-exist mapping, and the first check says which entry it used', async () => {
    t = await testService({ config: { ...newUser, SERVER_FILE_EXIST_PATH_MAPPINGS: { '/mnt/unionfs/Media/': ['/data/media/'] } }, pathState: async () => 'missing' });
    await sonarrImport(t);
    t.clock.advance(newUser.SERVER_SCAN_DELAY * 1000);
    await t.service.processor.drain();
    const first = t.logs.map((l) => JSON.parse(l) as { msg: string }).find((l) => l.msg.includes('did not exist on check 1 of 10'));
    expect(first?.msg).toContain("through SERVER_FILE_EXIST_PATH_MAPPINGS '/data/media/' -> '/mnt/unionfs/Media/'");
  });
});
