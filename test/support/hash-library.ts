// A service whose Plex library "TV Shows" (/data/media/tv) lies on a temporary disk (SERVER_FILE_EXIST_PATH_MAPPINGS),
// with a folder outside every library beside it, for the tests of autopulse's hash= (test/hash/).
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LightMyRequestResponse } from 'fastify';
import type { Config } from '../../src/config/schema.js';
import { diskPathState } from '../../src/paths/disk.js';
import { testService, type TestService } from './service.js';
import type { ServiceOptions } from '../../src/service.js';

const USER = 'autopulse';
const PASSWORD = 'hash-trigger-pass-9c1e';
export const basicAuth = `Basic ${Buffer.from(`${USER}:${PASSWORD}`).toString('base64')}`;

export const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');

export interface HashLibrary {
  t: TestService;
  /** The library's folder on this machine (Plex names it /data/media/tv). */
  library: string;
  /** What SERVER_FILE_EXIST_PATH_MAPPINGS maps /data/media/ to: give it to a restart. */
  disk: string;
  /** A folder in no library, holding `hostname`, a file whose content the relay must never give away. */
  outside: string;
  /** GET /triggers/manual?path=<path>&hash=<hash> with the AUTOSCAN user. */
  ask(path: string, hash?: string): Promise<LightMyRequestResponse>;
}

export async function hashLibrary(opts: { config?: Partial<Config>; hashLimits?: ServiceOptions['hashLimits']; queuefile?: string; disk?: string } = {}): Promise<HashLibrary> {
  // The disk is a temporary folder of its own: a restart (queuefile given) passes the one it had.
  const disk = opts.disk ?? join(mkdtempSync(join(tmpdir(), 'scanrelay-hash-')), 'disk');
  const t = await testService({
    queuefile: opts.queuefile,
    pathState: diskPathState,
    hashLimits: opts.hashLimits,
    config: {
      AUTOSCAN: { ENABLED: true, USER, PASSWORD, TRIGGERS: [], MANUAL_REWRITE: { '/data/media/': ['/media/'] }, A_TRAIN_REWRITE: {}, A_TRAIN_DRIVES: {} } as unknown as Config['AUTOSCAN'],
      SERVER_FILE_EXIST_PATH_MAPPINGS: { [`${disk}/`]: ['/data/media/'] },
      SERVER_MAX_FILE_CHECKS: 3,
      SERVER_FILE_CHECK_DELAY: 60,
      ...opts.config,
    },
  });
  const library = join(disk, 'tv');
  const outside = join(disk, '..', 'etc');
  mkdirSync(join(library, 'Show/Season 1'), { recursive: true });
  mkdirSync(outside, { recursive: true });
  writeFileSync(join(outside, 'hostname'), 'nas-in-the-attic\n');
  const ask = (path: string, hash?: string) =>
    t.service.app.inject({ url: `/triggers/manual?path=${encodeURIComponent(path)}${hash ? `&hash=${hash}` : ''}`, headers: { authorization: basicAuth } });
  return { t, library, disk, outside, ask };
}
