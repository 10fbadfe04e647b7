// Issue 4 done-when: a new file on the (fake) Drive becomes exactly one Plex refresh of its mapped folder
// within one poll plus the scan delay; a file already in Plex's database does not.
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { writeTokenFile } from '../../src/drive/token-store.js';
import { FakeDrive } from '../fakes/drive.js';
import { FakeGoogleAuth } from '../fakes/google-token.js';
import { makePlexDb } from '../support/plex-db.js';
import { testService, type TestService } from '../support/service.js';
import { tvTree } from '../drive/harness.js';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';

let t: TestService | undefined;
let drive: FakeDrive | undefined;
let auth: FakeGoogleAuth | undefined;
afterEach(async () => {
  await t?.close();
  await drive?.stop();
  await auth?.stop();
});

describe('Drive monitor through the whole relay', () => {
  it('new file -> one Plex refresh of the mapped folder; a file already in Plex -> none', async () => {
    auth = await new FakeGoogleAuth().start();
    drive = await new FakeDrive().start();
    drive.acceptToken = (tok) => auth!.isValidAccessToken(tok);
    const dir = mkdtempSync(join(tmpdir(), 'scanrelay-drive-e2e-'));
    const tokenFile = join(dir, 'token.json');
    writeTokenFile(tokenFile, auth.issueToken(Date.now() + 3600_000));
    const plexDb = join(dir, 'library.db');
    makePlexDb(plexDb, {
      sections: [{ id: 2, name: 'TV Shows', type: 2, roots: ['/data/media/tv'] }],
      parts: [{ file: '/data/media/tv/The Expanse (2015)/Season 01/already.mkv', size: 5000 }],
    });
    t = await testService({
      config: {
        SERVER_PATH_MAPPINGS: { '/data/media/tv/': ['My Drive/Media/TV/'] },
        PLEX_DATABASE_PATH: plexDb,
        GOOGLE: {
          ENABLED: true,
          ...auth.clientKeys,
          API_URL: drive.baseUrl,
          TOKEN_FILE: tokenFile,
          POLL_INTERVAL: 60,
          ALLOWED: { FILE_PATHS: ['My Drive/Media/'], FILE_EXTENSIONS: true, FILE_EXTENSIONS_LIST: ['mkv'], MIME_TYPES: false, MIME_TYPES_LIST: [] },
          TEAMDRIVE: false,
          TEAMDRIVES: [],
          SHOW_CACHE_LOGS: false,
          DISABLE_DISK_FILE_SIZE_CHECK: false,
          SERVICE_ACCOUNT_FILE: '',
          RCLONE_REMOTE: '',
          RCLONE_CONFIG: '',
        },
      } as never,
    });
    const monitor = t.service.drive!;
    expect(monitor).toBeDefined();
    const season = tvTree(drive).season;
    await monitor.pollOnce(); // first poll sets the cursor at "now"
    drive.addFile('The Expanse (2015) - S01E01.mkv', season, { size: 123 });
    drive.addFile('already.mkv', season, { size: 5000 });
    await monitor.pollOnce();

    expect(t.service.queue.count()).toBe(1);
    t.clock.advance(t.service.config.SERVER_SCAN_DELAY * 1000);
    await t.service.processor.drain();
    expect(t.plex.refreshes).toEqual([{ section: '2', path: '/data/media/tv/The Expanse (2015)/Season 01' }]);
    // The test's Plex database never gains the file: scanned once more after SERVER_FILE_CHECK_DELAY, then not found.
    expect(t.service.queue.count()).toBe(1);
    t.clock.advance(t.service.config.SERVER_FILE_CHECK_DELAY * 1000);
    await t.service.processor.drain();
    expect(t.plex.refreshes).toHaveLength(2);
    expect(t.service.queue.history(1)[0]).toMatchObject({ source: 'drive', outcome: 'not-found' });
    const health = (await t.service.app.inject({ method: 'GET', url: '/health' })).json();
    expect(health.drive).toMatchObject({ enabled: true });
    const metrics = (await t.service.app.inject({ method: 'GET', url: '/metrics' })).body;
    expect(metrics).toMatch(/scanrelay_drive_polls_total\{drive="all",outcome="ok"\} 2/);
    // Requests from the Drive monitor count like webhooks: the one new file, queued.
    expect(metrics).toMatch(/scanrelay_requests_total\{source="drive",event="Drive",outcome="queued"\} 1/);
  });
});
