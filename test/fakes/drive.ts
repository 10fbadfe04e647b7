// A fake Google Drive v3 API on 127.0.0.1 holding a tree of folders, files and shared drives that tests change;
// it serves changes.getStartPageToken, changes.list (paged), files.get, files.list and drives.list, counts
// files.get per id, and fails on demand (401, 403 rate limit, 429, 500). Error bodies are the shared fixtures.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { ownFixture } from '../support/fixtures.js';
import { flood, type Flood, type FloodResult } from './flood.js';
import { closeServer, listenLocal } from '../support/net.js';

export const FOLDER = 'application/vnd.google-apps.folder';

export interface FakeItem {
  id: string;
  name: string;
  mimeType: string;
  parents?: string[];
  driveId?: string;
  size?: string;
  md5Checksum?: string;
  trashed?: boolean;
}

interface LogEntry {
  fileId?: string;
  /** The drive the item was in when the change happened (removed items have no current state). */
  scope?: string;
  removed?: boolean;
  driveChange?: string;
}

interface Failure {
  status: number;
  times: number;
  path?: RegExp;
  retryAfter?: number;
  /** Matching requests to let through before failing. */
  skip: number;
}

export class FakeDrive {
  baseUrl = '';
  readonly rootId = '0AFakeMyDriveRootPVA';
  readonly items = new Map<string, FakeItem>();
  readonly drives = new Map<string, { id: string; name: string }>();
  /** files.get calls per id. */
  readonly fileGets = new Map<string, number>();
  /** Requests per endpoint ("changes", "files.get", "startPageToken", "drives", "files.list"), including failed ones. */
  readonly calls = new Map<string, number>();
  /** Largest page changes.list may return, whatever pageSize asks. */
  maxPageSize = 1000;
  /** Requests whose path (below /drive/v3) matches `path` are answered with a flood (test/fakes/flood.ts); what each took, in `floods`. */
  flooding?: Flood & { path: RegExp };
  readonly floods: FloodResult[] = [];
  /** When set, only tokens it accepts pass; others get the 401 fixture. */
  acceptToken: ((token: string) => boolean) | undefined;
  private readonly log: LogEntry[] = [];
  private readonly failures: Failure[] = [];
  private server: Server | undefined;
  private seq = 0;

  constructor() {
    this.items.set(this.rootId, { id: this.rootId, name: 'My Drive', mimeType: FOLDER });
  }

  async start(): Promise<this> {
    this.server = createServer((req, res) => this.handle(req, res));
    this.server.keepAliveTimeout = 30_000;
    this.baseUrl = await listenLocal(this.server);
    return this;
  }

  async stop(): Promise<void> {
    await closeServer(this.server);
  }

  get totalFileGets(): number {
    let n = 0;
    for (const v of this.fileGets.values()) n += v;
    return n;
  }

  // ---- tree changes (each one is a change in the feed) ----

  addSharedDrive(name: string, id = `0AShared${++this.seq}PVA`): string {
    this.drives.set(id, { id, name });
    return id;
  }

  renameSharedDrive(id: string, name: string): void {
    this.drives.get(id)!.name = name;
    this.log.push({ driveChange: id, scope: id });
  }

  addFolder(name: string, parent: string = this.rootId, opts: { id?: string; silent?: boolean } = {}): string {
    return this.add({ id: opts.id ?? `folder${++this.seq}`, name, mimeType: FOLDER, parents: [parent] }, opts.silent);
  }

  addFile(
    name: string,
    parent: string,
    opts: { id?: string; size?: number; md5?: string; mimeType?: string; silent?: boolean } = {},
  ): string {
    const id = opts.id ?? `file${++this.seq}`;
    return this.add(
      {
        id,
        name,
        mimeType: opts.mimeType ?? 'video/x-matroska',
        parents: [parent],
        size: String(opts.size ?? 1000),
        md5Checksum: opts.md5 ?? `md5-${id}`,
      },
      opts.silent,
    );
  }

  rename(id: string, name: string): void {
    this.items.get(id)!.name = name;
    this.touch(id);
  }

  move(id: string, parent: string): void {
    const item = this.items.get(id)!;
    const oldScope = item.driveId;
    item.parents = [parent];
    item.driveId = this.driveOf(parent);
    if (oldScope !== item.driveId) this.log.push({ fileId: id, scope: oldScope });
    this.touch(id);
  }

  modify(id: string, opts: { size?: number; md5?: string }): void {
    const item = this.items.get(id)!;
    if (opts.size !== undefined) item.size = String(opts.size);
    if (opts.md5 !== undefined) item.md5Checksum = opts.md5;
    this.touch(id);
  }

  trash(id: string): void {
    this.items.get(id)!.trashed = true;
    this.touch(id);
  }

  remove(id: string): void {
    const item = this.items.get(id)!;
    this.items.delete(id);
    this.log.push({ fileId: id, scope: item.driveId, removed: true });
  }

  /** The next `times` requests (optionally only those whose path matches) fail with `status`. */
  fail(status: 401 | 403 | 429 | 500 | 503, opts: { times?: number; path?: RegExp; retryAfter?: number; skip?: number } = {}): void {
    this.failures.push({ status, times: opts.times ?? 1, path: opts.path, retryAfter: opts.retryAfter, skip: opts.skip ?? 0 });
  }

  /** Drops the failures not yet served: the API answers again. */
  recover(): void {
    this.failures.length = 0;
  }

  private add(item: FakeItem, silent = false): string {
    const driveId = this.driveOf(item.parents![0]);
    if (driveId) item.driveId = driveId;
    this.items.set(item.id, item);
    if (!silent) this.touch(item.id);
    return item.id;
  }

  private driveOf(parent: string): string | undefined {
    if (this.drives.has(parent)) return parent;
    return this.items.get(parent)?.driveId;
  }

  private touch(id: string): void {
    this.log.push({ fileId: id, scope: this.items.get(id)?.driveId });
  }

  // ---- HTTP ----

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? '/', this.baseUrl);
    const path = url.pathname.replace(/^\/drive\/v3/, '');
    const endpoint =
      path === '/changes/startPageToken' ? 'startPageToken'
      : path === '/changes' ? 'changes'
      : path === '/drives' ? 'drives'
      : path === '/files' ? 'files.list'
      : path.startsWith('/files/') ? 'files.get'
      : 'other';
    this.calls.set(endpoint, (this.calls.get(endpoint) ?? 0) + 1);
    if (this.flooding?.path.test(path)) return void flood(res, this.flooding).then((r) => this.floods.push(r));
    const failure = this.failures.find((f) => f.times > 0 && (!f.path || f.path.test(path)));
    if (failure && failure.skip > 0) failure.skip--;
    else if (failure) {
      failure.times--;
      return this.error(res, failure.status, failure.retryAfter);
    }
    const token = (req.headers.authorization ?? '').replace(/^Bearer /, '');
    if (!token || (this.acceptToken && !this.acceptToken(token))) return this.error(res, 401);
    const q = url.searchParams;
    switch (endpoint) {
      case 'startPageToken':
        return json(res, 200, { kind: 'drive#startPageToken', startPageToken: String(this.log.length + 1) });
      case 'changes':
        return json(res, 200, this.changes(q));
      case 'drives': {
        const all = [...this.drives.values()];
        const start = Number(q.get('pageToken') ?? 0);
        const size = Number(q.get('pageSize') ?? 10);
        const page = all.slice(start, start + size);
        return json(res, 200, {
          kind: 'drive#driveList',
          drives: page.map((d) => ({ kind: 'drive#drive', ...d })),
          ...(start + size < all.length ? { nextPageToken: String(start + size) } : {}),
        });
      }
      case 'files.list':
        return json(res, 200, this.listFiles(q));
      case 'files.get': {
        const id = decodeURIComponent(path.slice('/files/'.length));
        this.fileGets.set(id, (this.fileGets.get(id) ?? 0) + 1);
        const item = id === 'root' ? this.items.get(this.rootId) : this.items.get(id);
        if (item) return json(res, 200, item);
        const drive = this.drives.get(id);
        if (drive) return json(res, 200, { id, name: drive.name, mimeType: FOLDER, driveId: id });
        return json(res, 404, { error: { code: 404, message: `File not found: ${id}.`, errors: [{ domain: 'global', reason: 'notFound', message: `File not found: ${id}.` }] } });
      }
      default:
        res.writeHead(404).end();
    }
  }

  private changes(q: URLSearchParams): unknown {
    const pageToken = Number(q.get('pageToken'));
    if (!Number.isInteger(pageToken) || pageToken < 1) {
      return { error: { code: 400, message: 'Invalid Value' } };
    }
    const driveId = q.get('driveId') ?? undefined;
    const allDrives = q.get('includeItemsFromAllDrives') === 'true';
    const size = Math.min(Number(q.get('pageSize') ?? 100), this.maxPageSize);
    const changes: unknown[] = [];
    let i = pageToken - 1;
    for (; i < this.log.length && changes.length < size; i++) {
      const e = this.log[i];
      if (driveId ? e.scope !== driveId : e.scope !== undefined && !allDrives) continue;
      if (e.driveChange) {
        const d = this.drives.get(e.driveChange);
        changes.push({ kind: 'drive#change', changeType: 'drive', removed: !d, driveId: e.driveChange, ...(d ? { drive: { id: d.id, name: d.name } } : {}) });
        continue;
      }
      const item = this.items.get(e.fileId!);
      if (e.removed || !item) changes.push({ kind: 'drive#change', changeType: 'file', removed: true, fileId: e.fileId });
      else changes.push({ kind: 'drive#change', changeType: 'file', removed: false, fileId: item.id, file: { ...item, trashed: !!item.trashed } });
    }
    return i < this.log.length
      ? { kind: 'drive#changeList', nextPageToken: String(i + 1), changes }
      : { kind: 'drive#changeList', newStartPageToken: String(this.log.length + 1), changes };
  }

  private listFiles(q: URLSearchParams): unknown {
    const driveId = q.get('driveId') ?? undefined;
    const all = [...this.items.values()].filter((f) => f.id !== this.rootId && !f.trashed && f.driveId === driveId);
    const start = Number(q.get('pageToken') ?? 0);
    const size = Math.min(Number(q.get('pageSize') ?? 100), 1000);
    return {
      kind: 'drive#fileList',
      files: all.slice(start, start + size),
      ...(start + size < all.length ? { nextPageToken: String(start + size) } : {}),
    };
  }

  private error(res: ServerResponse, status: number, retryAfter?: number): void {
    const headers: Record<string, string> = retryAfter ? { 'retry-after': String(retryAfter) } : {};
    if (status === 401) return json(res, 401, ownFixture('drive/error-401.json'), headers);
    if (status === 403) return json(res, 403, ownFixture('drive/error-403-ratelimit.json'), headers);
    if (status === 429) {
      return json(res, 429, { error: { code: 429, message: 'Rate Limit Exceeded', errors: [{ domain: 'usageLimits', reason: 'rateLimitExceeded', message: 'Rate Limit Exceeded' }] } }, headers);
    }
    json(res, status, { error: { code: status, message: 'Backend Error', errors: [{ domain: 'global', reason: 'backendError', message: 'Backend Error' }] } }, headers);
  }
}

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=UTF-8', ...headers }).end(JSON.stringify(body));
}
