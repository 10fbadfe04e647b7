// RCLONE.RC_CACHE_REFRESH in the running relay: each existence check that misses asks rclone once to refresh the
// file's folder (mapped through FILE_EXISTS_TO_REMOTE_MAPPINGS) before the next check, and never otherwise.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { PathState } from '../../src/paths/disk.js';
import { testService, type TestService } from '../support/service.js';

let t: TestService | undefined;
let rc: Server | undefined;
afterEach(async () => {
  await t?.close();
  rc?.closeAllConnections();
  rc?.close();
});

async function fakeRc(onCall: (method: string, body: Record<string, string>) => void): Promise<string> {
  rc = createServer((req, res) => {
    let text = '';
    req.on('data', (d: Buffer) => (text += d.toString()));
    req.on('end', () => {
      const method = (req.url ?? '').slice(1);
      const body = JSON.parse(text) as Record<string, string>;
      onCall(method, body);
      if (method === 'cache/expire') return void res.writeHead(404).end(JSON.stringify({ error: `couldn't find method "cache/expire"` }));
      res.writeHead(200).end(JSON.stringify({ result: { [body.dir]: 'OK' } }));
    });
  });
  await new Promise<void>((r) => rc!.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(rc.address() as AddressInfo).port}`;
}

const FILE = '/data/media/tv/Show/Season 01/e1.mkv';

async function relay(enabled: boolean, present: Set<string>) {
  const calls: string[] = [];
  const url = await fakeRc((m, b) => calls.push(`${m} ${b.dir ?? b.remote}`));
  t = await testService({
    config: {
      SERVER_MAX_FILE_CHECKS: 3,
      SERVER_FILE_CHECK_DELAY: 60,
      SERVER_FILE_EXIST_PATH_MAPPINGS: { '/mnt/unionfs/media/': ['/data/media/'] },
      RCLONE: { BINARY: '', CONFIG: '', CRYPT_MAPPINGS: {}, RC_CACHE_REFRESH: { ENABLED: enabled, RC_URL: url, FILE_EXISTS_TO_REMOTE_MAPPINGS: { 'Media/': ['/mnt/unionfs/media/'] } } },
    } as never,
    pathState: async (p): Promise<PathState> => (present.has(p) ? 'file' : 'missing'),
  });
  t.service.intake.submitKnown([{ path: FILE, source: 'sonarr', event: 'Download', kind: 'file' }], 'sonarr');
  return calls;
}

async function check(): Promise<void> {
  t!.clock.advance(t!.service.config.SERVER_SCAN_DELAY * 1000 + 60_000);
  await t!.service.processor.drain();
}

describe('rclone cache refresh on a missed existence check', () => {
  it('one refresh of the folder per missed check, none once the file is there', async () => {
    const present = new Set<string>();
    const calls = await relay(true, present);
    await check();
    expect(calls).toEqual(['cache/expire Media/tv/Show/Season 01', 'vfs/refresh Media/tv/Show/Season 01']);
    await check();
    expect(calls.slice(2)).toEqual(['vfs/refresh Media/tv/Show/Season 01']);
    present.add('/mnt/unionfs/media/tv/Show/Season 01/e1.mkv');
    await check();
    expect(calls).toHaveLength(3);
    expect(t!.plex.refreshes).toEqual([{ section: '2', path: '/data/media/tv/Show/Season 01' }]);
  });

  it('ENABLED false: rclone is never called', async () => {
    const calls = await relay(false, new Set());
    await check();
    await check();
    expect(calls).toEqual([]);
  });
});
