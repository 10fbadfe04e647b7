// Wires a DriveMonitor to the fake Drive API, the fake token endpoint, a real SQLite file and a small Plex
// database in a temp folder, with a ManualClock and a log collector.
import Database from '../../src/sqlite/binding.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManualClock } from '../../src/clock.js';
import { DriveMonitor, type DriveMonitorDeps } from '../../src/drive/monitor.js';
import { withGoogleDefaults, type GoogleSettings } from '../../src/drive/settings.js';
import { writeTokenFile } from '../../src/drive/token-store.js';
import { createLogger, type Logger } from '../../src/log/logger.js';
import { openPlexDatabase, type PlexDatabase } from '../../src/targets/plex/database.js';
import type { ScanRequest } from '../../src/request.js';
import { FakeDrive } from '../fakes/drive.js';
import { auditedSink } from '../support/log-audit.js';
import { FakeGoogleAuth } from '../fakes/google-token.js';
import { makePlexDb, type PlexDbContent } from '../support/plex-db.js';

export const SERVER_ROOT = '/mnt/unionfs/Media/';

/** Collects pino's JSON lines. */
export function logCollector(level = 'debug'): { logger: Logger; lines: string[]; messages: () => string[] } {
  const lines: string[] = [];
  const logger = createLogger({ level, console: auditedSink((text) => lines.push(...text.split('\n').filter(Boolean))) });
  return { logger, lines, messages: () => lines.map((l) => (JSON.parse(l) as { msg: string }).msg) };
}

export interface Harness {
  dir: string;
  drive: FakeDrive;
  auth: FakeGoogleAuth;
  clock: ManualClock;
  db: Database.Database;
  plex: PlexDatabase;
  settings: GoogleSettings;
  enqueued: ScanRequest[];
  log: ReturnType<typeof logCollector>;
  monitor: DriveMonitor;
  /** A new monitor over the same database (a restart). */
  restart(overrides?: Partial<DriveMonitorDeps>): DriveMonitor;
  close(): Promise<void>;
}

export async function startHarness(
  opts: { settings?: Partial<GoogleSettings>; plex?: PlexDbContent; deps?: Partial<DriveMonitorDeps>; writeToken?: boolean } = {},
): Promise<Harness> {
  const dir = mkdtempSync(join(tmpdir(), 'scanrelay-drive-'));
  const auth = await new FakeGoogleAuth().start();
  const drive = await new FakeDrive().start();
  drive.acceptToken = (t) => auth.isValidAccessToken(t);
  const clock = new ManualClock(Date.now());
  if (opts.writeToken !== false) {
    writeTokenFile(join(dir, 'token.json'), auth.issueToken(clock.now() + 3600_000));
  }
  const settings = withGoogleDefaults({
    ENABLED: true,
    ...auth.clientKeys,
    API_URL: drive.baseUrl,
    POLL_INTERVAL: 60,
    ALLOWED: {
      FILE_PATHS: ['My Drive/Media/'],
      FILE_EXTENSIONS: true,
      FILE_EXTENSIONS_LIST: ['mkv', 'mp4', 'ts'],
      MIME_TYPES: true,
      MIME_TYPES_LIST: ['video'],
    },
    ...opts.settings,
  });
  const plexPath = join(dir, 'com.plexapp.plugins.library.db');
  makePlexDb(plexPath, opts.plex ?? { sections: [{ id: 2, name: 'TV Shows', type: 2, roots: [`${SERVER_ROOT}TV`] }] });
  const plex = openPlexDatabase(plexPath);
  const db = new Database(join(dir, 'scanrelay.db'));
  db.pragma('journal_mode = WAL');
  const enqueued: ScanRequest[] = [];
  const log = logCollector();
  const make = (overrides: Partial<DriveMonitorDeps> = {}) =>
    new DriveMonitor({
      db,
      settings,
      configDir: dir,
      // The drive form of each shared-drive or My Drive media folder maps to the server's folder.
      mapPath: (p) => {
        for (const root of ['My Drive/Media/', 'Media/', 'Media-4K/']) if (p.startsWith(root)) return SERVER_ROOT + p.slice(root.length);
        return p;
      },
      inPlex: (p, size) => plex.hasFile(p, size),
      enqueue: (r) => enqueued.push(r),
      clock,
      logger: log.logger,
      sleep: async () => undefined,
      ...opts.deps,
      ...overrides,
    });
  const h: Harness = {
    dir,
    drive,
    auth,
    clock,
    db,
    plex,
    settings,
    enqueued,
    log,
    monitor: make(),
    restart: (o) => (h.monitor = make(o)),
    async close() {
      await h.monitor.stop();
      plex.close();
      db.close();
      await drive.stop();
      await auth.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return h;
}

/** My Drive/Media/TV/<show>/<season>: the folders most tests put files in. */
export function tvTree(drive: FakeDrive, show = 'The Expanse (2015)', season = 'Season 01', silent = true): { media: string; tv: string; show: string; season: string } {
  const media = drive.addFolder('Media', drive.rootId, { silent });
  const tv = drive.addFolder('TV', media, { silent });
  const showId = drive.addFolder(show, tv, { silent });
  const seasonId = drive.addFolder(season, showId, { silent });
  return { media, tv, show: showId, season: seasonId };
}
