// RCLONE.RC_CACHE_REFRESH against a real `rclone serve http --rc` on 127.0.0.1 (a VFS with a long directory
// cache: a new file stays invisible until the refresh), and against a fake remote control for the answers a
// real rclone gives only in odd setups (the old cache backend, errors, no answer).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createCacheRefresh } from '../../src/rclone/remote-control.js';
import { logCollector } from '../drive/harness.js';
import { freePort } from '../support/net.js';

/** Records every call, then answers through the real fetch. */
function recording(): { fetch: typeof fetch; calls: { method: string; body: unknown }[] } {
  const calls: { method: string; body: unknown }[] = [];
  return {
    calls,
    fetch: (async (input: string | URL | Request, init?: RequestInit) => {
      calls.push({ method: new URL(String(input)).pathname.slice(1), body: JSON.parse(String(init?.body)) });
      return fetch(input, init);
    }) as typeof fetch,
  };
}

describe('against a real rclone serve with --rc', () => {
  let dir: string;
  let proc: ChildProcess;
  let rcUrl: string;
  let httpUrl: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'scanrelay-rc-'));
    mkdirSync(join(dir, 'mount', 'Media', 'TV', 'Show', 'Season 01'), { recursive: true });
    writeFileSync(join(dir, 'mount', 'Media', 'TV', 'Show', 'Season 01', 'e1.mkv'), 'one');
    const port = await freePort();
    httpUrl = `http://127.0.0.1:${port}`;
    proc = spawn('rclone', ['serve', 'http', join(dir, 'mount'), '--addr', `127.0.0.1:${port}`, '--rc', '--rc-addr', '127.0.0.1:0', '--rc-no-auth', '--dir-cache-time', '1h', '--config', join(dir, 'none.conf')], { stdio: ['ignore', 'ignore', 'pipe'] });
    rcUrl = await new Promise<string>((resolve, reject) => {
      let err = '';
      proc.stderr!.on('data', (d: Buffer) => {
        err += d.toString();
        const m = /Serving remote control on (http:\/\/127\.0\.0\.1:\d+)\//.exec(err);
        if (m) resolve(m[1]);
      });
      proc.on('exit', () => reject(new Error(`rclone exited: ${err}`)));
    });
    // The web server may start a moment after the remote control.
    for (let i = 0; i < 100; i++) {
      if (await fetch(`${httpUrl}/`).then(() => true, () => false)) break;
      await new Promise((r) => setTimeout(r, 50));
    }
  });

  afterAll(() => {
    proc?.kill();
    rmSync(dir, { recursive: true, force: true });
  });

  const listing = async (folder: string) => (await fetch(`${httpUrl}/${folder}/`)).text();

  it('a missing file becomes visible after one refresh of its folder', async () => {
    expect(await listing('Media/TV/Show/Season 01')).toContain('e1.mkv'); // now cached for an hour
    writeFileSync(join(dir, 'mount', 'Media', 'TV', 'Show', 'Season 01', 'e2.mkv'), 'two');
    expect(await listing('Media/TV/Show/Season 01')).not.toContain('e2.mkv');

    const rec = recording();
    const log = logCollector();
    const rc = createCacheRefresh({ rcUrl, mappings: { 'Media/': ['/mnt/unionfs/Media/'] }, logger: log.logger, fetch: rec.fetch });
    await rc.refresh('/mnt/unionfs/Media/TV/Show/Season 01/e2.mkv');
    expect(await listing('Media/TV/Show/Season 01')).toContain('e2.mkv');
    // rclone has no cache backend here: cache/expire is tried once, then only vfs/refresh is used.
    expect(rec.calls).toEqual([
      { method: 'cache/expire', body: { remote: 'Media/TV/Show/Season 01' } },
      { method: 'vfs/refresh', body: { dir: 'Media/TV/Show/Season 01' } },
    ]);
    await rc.refresh('/mnt/unionfs/Media/TV/Show/Season 01/e3.mkv');
    expect(rec.calls.slice(2)).toEqual([{ method: 'vfs/refresh', body: { dir: 'Media/TV/Show/Season 01' } }]);
  });

  it('walks up while rclone does not know the folder, and stops at the first it knows', async () => {
    await listing('Media/TV/Show');
    mkdirSync(join(dir, 'mount', 'Media', 'TV', 'Show', 'Season 02'));
    writeFileSync(join(dir, 'mount', 'Media', 'TV', 'Show', 'Season 02', 'e1.mkv'), 'x');
    const rec = recording();
    const rc = createCacheRefresh({ rcUrl, mappings: { 'Media/': ['/mnt/unionfs/Media/'] }, logger: logCollector().logger, fetch: rec.fetch });
    await rc.refresh('/mnt/unionfs/Media/TV/Show/Season 02/e1.mkv');
    expect(rec.calls.filter((c) => c.method === 'vfs/refresh').map((c) => (c.body as { dir: string }).dir)).toEqual(['Media/TV/Show/Season 02', 'Media/TV/Show']);
    expect(await listing('Media/TV/Show')).toContain('Season 02');
  });
});

describe('against a fake remote control', () => {
  let server: Server;
  let url: string;
  let answer: (method: string, body: Record<string, string>) => { status: number; body: string } | 'hang';
  const calls: string[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      let text = '';
      req.on('data', (d: Buffer) => (text += d.toString()));
      req.on('end', () => {
        const method = (req.url ?? '').slice(1);
        calls.push(`${method} ${text}${req.headers.authorization ? ` auth=${req.headers.authorization}` : ''}`);
        const a = answer(method, JSON.parse(text || '{}'));
        if (a === 'hang') return;
        res.writeHead(a.status, { 'content-type': 'application/json' }).end(a.body);
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterEach(() => void calls.splice(0));
  afterAll(() => {
    server.closeAllConnections();
    server.close();
  });

  const mappings = { 'Media/': ['/mnt/Media/'] };

  it('the old cache backend: cache/expire succeeds and nothing else is called', async () => {
    answer = () => ({ status: 200, body: JSON.stringify({ status: 'ok', message: 'cached directory cleared: Media/TV' }) });
    await createCacheRefresh({ rcUrl: url, mappings, logger: logCollector().logger }).refresh('/mnt/Media/TV/x.mkv');
    expect(calls).toEqual(['cache/expire {"remote":"Media/TV"}']);
  });

  it('the old cache backend answering an error: the same folder is refreshed through the VFS', async () => {
    answer = (m, b) => (m === 'cache/expire' ? { status: 500, body: JSON.stringify({ error: 'cache: not found' }) } : { status: 200, body: JSON.stringify({ result: { [b.dir]: 'OK' } }) });
    await createCacheRefresh({ rcUrl: url, mappings, logger: logCollector().logger }).refresh('/mnt/Media/TV/x.mkv');
    expect(calls).toEqual(['cache/expire {"remote":"Media/TV"}', 'vfs/refresh {"dir":"Media/TV"}']);
  });

  it('an rclone error that is not "unknown folder" is logged once and does not walk up', async () => {
    answer = (m) => (m === 'cache/expire' ? { status: 404, body: JSON.stringify({ error: `couldn't find method "cache/expire"` }) } : { status: 500, body: JSON.stringify({ error: 'more than one VFS active - need "fs" parameter' }) });
    const log = logCollector();
    await createCacheRefresh({ rcUrl: url, mappings, logger: log.logger }).refresh('/mnt/Media/TV/Show/x.mkv');
    expect(calls).toHaveLength(2);
    expect(log.messages().join('\n')).toContain('could not refresh \'Media/TV/Show\': more than one VFS active');
  });

  it('an answer that is not JSON, a refused login and a silent rclone each give one warning that names RC_URL', async () => {
    const log = logCollector();
    answer = () => ({ status: 401, body: 'Unauthorized' });
    const rc = createCacheRefresh({ rcUrl: `http://rc:s3cretpw@${url.slice(7)}`, mappings, logger: log.logger, timeoutMs: 200 });
    await rc.refresh('/mnt/Media/TV/a.mkv');
    await rc.refresh('/mnt/Media/TV/b.mkv');
    expect(calls[0]).toContain(`auth=Basic ${Buffer.from('rc:s3cretpw').toString('base64')}`);
    expect(log.messages().join('\n').match(/--rc-user/g)).toHaveLength(1);
    answer = () => 'hang';
    await rc.refresh('/mnt/Media/TV/c.mkv');
    expect(log.messages().join('\n')).toMatch(/did not answer \(no answer within 0.2 s\): check RCLONE.RC_CACHE_REFRESH.RC_URL/);
    expect(log.messages().join('\n')).not.toContain('s3cretpw');
  });

  it('refused connections are reported once, not at every check', async () => {
    const log = logCollector();
    const port = await freePort();
    const down = createCacheRefresh({ rcUrl: `http://127.0.0.1:${port}`, mappings, logger: log.logger });
    await down.refresh('/mnt/Media/TV/a.mkv');
    await down.refresh('/mnt/Media/TV/a.mkv');
    expect(log.messages().join('\n').match(/ECONNREFUSED/g)).toHaveLength(1);
  });

  it('callers waiting for the same folder share one walk', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    answer = () => ({ status: 200, body: JSON.stringify({ status: 'ok' }) });
    const slowFetch = (async (i: string | URL | Request, init?: RequestInit) => {
      await gate;
      return fetch(i, init);
    }) as typeof fetch;
    const rc = createCacheRefresh({ rcUrl: url, mappings, logger: logCollector().logger, fetch: slowFetch });
    const all = Promise.all([rc.refresh('/mnt/Media/TV/S1/a.mkv'), rc.refresh('/mnt/Media/TV/S1/b.mkv'), rc.refresh('/mnt/Media/TV/S1/c.mkv')]);
    release();
    await all;
    expect(calls).toEqual(['cache/expire {"remote":"Media/TV/S1"}']);
  });

  it('a path outside FILE_EXISTS_TO_REMOTE_MAPPINGS calls nothing and says which mapping to add', async () => {
    const log = logCollector();
    await createCacheRefresh({ rcUrl: url, mappings, logger: log.logger }).refresh('/elsewhere/x.mkv');
    expect(calls).toEqual([]);
    expect(log.messages().join('\n')).toContain("no FILE_EXISTS_TO_REMOTE_MAPPINGS prefix matches '/elsewhere/x.mkv'");
  });
});
