// RCLONE.CRYPT_MAPPINGS through the whole relay: a new file in a Drive folder that holds an rclone crypt remote
// becomes one Plex refresh of the decoded folder. The encrypted names come from the real rclone.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { writeTokenFile } from '../../src/drive/token-store.js';
import { FakeDrive } from '../fakes/drive.js';
import { FakeGoogleAuth } from '../fakes/google-token.js';
import { makePlexDb } from '../support/plex-db.js';
import { testService, type TestService } from '../support/service.js';
import { cryptdecode, rclone, writeRcloneConf } from '../rclone/real-rclone.js';

let t: TestService | undefined;
let drive: FakeDrive | undefined;
let auth: FakeGoogleAuth | undefined;
let dir: string | undefined;
afterEach(async () => {
  await t?.close();
  await drive?.stop();
  await auth?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const SHOW = 'Media/TV/The Expanse (2015)/Season 01';

/** Adds the encrypted folders of `plainDir` under `parent` and returns the innermost folder's id. */
function addEncryptedFolders(d: FakeDrive, parent: string, encryptedDir: string): string {
  let id = parent;
  for (const segment of encryptedDir.split('/')) id = d.addFolder(segment, id, { silent: true });
  return id;
}

async function cryptService(crypt: Record<string, string[]>) {
  auth = await new FakeGoogleAuth().start();
  drive = await new FakeDrive().start();
  drive.acceptToken = (tok) => auth!.isValidAccessToken(tok);
  dir = mkdtempSync(join(tmpdir(), 'scanrelay-crypt-e2e-'));
  const conf = writeRcloneConf(dir, {
    gdrive: { type: 'drive', scope: 'drive' },
    gcrypt: { type: 'crypt', remote: 'gdrive:encrypted', password: rclone(dir, ['obscure', 'media key']).trim(), password2: rclone(dir, ['obscure', 'media salt']).trim() },
  });
  const tokenFile = join(dir, 'token.json');
  writeTokenFile(tokenFile, auth.issueToken(Date.now() + 3600_000));
  const plexDb = join(dir, 'library.db');
  makePlexDb(plexDb, {
    sections: [{ id: 2, name: 'TV Shows', type: 2, roots: ['/data/media/tv'] }],
    parts: [{ file: '/data/media/tv/The Expanse (2015)/Season 01/already.mkv', size: 5000 }],
  });
  t = await testService({
    config: {
      SERVER_PATH_MAPPINGS: { '/data/media/tv/': ['My Drive/encrypted/Media/TV/'] },
      PLEX_DATABASE_PATH: plexDb,
      RCLONE: { BINARY: '/usr/bin/rclone', CONFIG: conf, CRYPT_MAPPINGS: crypt, RC_CACHE_REFRESH: { ENABLED: false, RC_URL: '', FILE_EXISTS_TO_REMOTE_MAPPINGS: {} } },
      GOOGLE: {
        ENABLED: true, ...auth.clientKeys,
        API_URL: drive.baseUrl, TOKEN_FILE: tokenFile, POLL_INTERVAL: 60,
        // Filters are written for the decoded path; MIME is off because crypt files are all octet-stream.
        ALLOWED: { FILE_PATHS: ['My Drive/encrypted/Media/'], FILE_EXTENSIONS: true, FILE_EXTENSIONS_LIST: ['mkv'], MIME_TYPES: false, MIME_TYPES_LIST: [] },
        TEAMDRIVE: false, TEAMDRIVES: [], SHOW_CACHE_LOGS: false, DISABLE_DISK_FILE_SIZE_CHECK: false, SERVICE_ACCOUNT_FILE: '', RCLONE_REMOTE: '', RCLONE_CONFIG: '',
      },
    } as never,
  });
  const encrypted = drive.addFolder('encrypted', drive.rootId, { silent: true });
  const [season, episode, already] = cryptdecode(dir, conf, 'gcrypt:', [SHOW, 'The Expanse - S01E01.mkv', 'already.mkv'], true);
  return { conf, encrypted, season: addEncryptedFolders(drive, encrypted, season), episode, already };
}

describe('Drive crypt remote through the whole relay', () => {
  it('a new encrypted file becomes one Plex refresh of its decoded folder; one already in Plex (same plain size) does not', async () => {
    const c = await cryptService({ 'My Drive/encrypted/': ['gcrypt:'] });
    const monitor = t!.service.drive!;
    await monitor.pollOnce(); // sets the cursor at "now"
    drive!.addFile(c.episode, c.season, { size: 123_456 });
    drive!.addFile(c.already, c.season, { size: 5000 + 32 + 16 }); // 5000 plain bytes, stored encrypted
    await monitor.pollOnce();

    expect(t!.service.queue.count()).toBe(1);
    t!.clock.advance(t!.service.config.SERVER_SCAN_DELAY * 1000);
    await t!.service.processor.drain();
    expect(t!.plex.refreshes).toEqual([{ section: '2', path: '/data/media/tv/The Expanse (2015)/Season 01' }]);
    // The test's Plex database never gains the file: one more scan after SERVER_FILE_CHECK_DELAY, then history.
    t!.clock.advance(t!.service.config.SERVER_FILE_CHECK_DELAY * 1000);
    await t!.service.processor.drain();
    expect(t!.service.queue.history(1)[0]).toMatchObject({ source: 'drive', outcome: 'not-found' });
    expect(t!.logs.join('')).toContain("decoded with rclone crypt remote(s) 'gcrypt:'");
  });

  it('a file under the crypt folder that is not a name of the remote is skipped with one warning', async () => {
    const c = await cryptService({ 'My Drive/encrypted/': ['gcrypt:'] });
    const monitor = t!.service.drive!;
    await monitor.pollOnce();
    drive!.addFile('stray plain file.mkv', c.encrypted, { size: 10 });
    drive!.addFile('another.mkv', c.encrypted, { size: 10 });
    await monitor.pollOnce();
    expect(t!.service.queue.count()).toBe(0);
    expect(t!.logs.filter((l) => l.includes('is not a name of'))).toHaveLength(1);
  });

  it('a mapping naming a remote that is not crypt is reported at start, and its files are skipped', async () => {
    const c = await cryptService({ 'My Drive/encrypted/': ['gdrive:'] });
    expect(t!.logs.join('')).toMatch(/names remote 'gdrive:', which is of type 'drive'.*not crypt/);
    const monitor = t!.service.drive!;
    await monitor.pollOnce();
    drive!.addFile(c.episode, c.season, { size: 10 });
    await monitor.pollOnce();
    expect(t!.service.queue.count()).toBe(0);
    expect(t!.logs.join('')).toContain('whose crypt remote could not be loaded');
  });
});
