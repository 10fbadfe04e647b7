// Drive v3 over HTTP: the handful of calls the monitor needs, with a fresh bearer token on each try,
// one retry after a 401, and exponential backoff on rate limits (403/429) and server errors (5xx).
import { DRIVE_DRIVES_PAGE, DRIVE_ITEM, DRIVE_PAGE, sizeText, type AnswerCap } from '../http/answer-caps.js';
import { ANSWER_TOO_LARGE } from '../http/api-call.js';
import type { Logger } from '../log/logger.js';
import { ConditionLog } from '../log/condition.js';
import { systemClock } from '../clock.js';
import { listSharedDrives, type DrivesPage, type SharedDrive } from '../google/shared-drives.js';
import { trimUrl } from './settings.js';
import type { AccessTokenSource } from './token-store.js';
import { AnswerTooLarge, httpFetch, type Fetch } from '../http/fetch.js';

export const FOLDER_MIME = 'application/vnd.google-apps.folder';

export interface DriveFile {
  id: string;
  name: string;
  mimeType: string;
  parents?: string[];
  trashed?: boolean;
  driveId?: string;
  md5Checksum?: string;
  /** int64 as a decimal string. */
  size?: string;
  modifiedTime?: string;
}

export interface DriveChange {
  changeType?: 'file' | 'drive';
  time?: string;
  removed?: boolean;
  fileId?: string;
  file?: DriveFile;
  driveId?: string;
  drive?: { id: string; name: string };
}

export interface ChangePage {
  changes: DriveChange[];
  nextPageToken?: string;
  newStartPageToken?: string;
}

export type { SharedDrive };

/** A Drive answer we could not use after retries. `reason` is Drive's errors[0].reason when given. */
export class DriveApiError extends Error {
  constructor(
    readonly status: number,
    readonly reason: string,
    message: string,
  ) {
    super(message);
    this.name = 'DriveApiError';
  }
}

const FILE_FIELDS = 'id,name,mimeType,parents,trashed,driveId,md5Checksum,size';
const CHANGE_FIELDS = `nextPageToken,newStartPageToken,changes(changeType,time,removed,fileId,driveId,drive(id,name),file(${FILE_FIELDS}))`;
const RATE_LIMIT_REASONS = new Set(['userRateLimitExceeded', 'rateLimitExceeded', 'backendError']);

export interface DriveApiOptions {
  apiUrl: string;
  tokens: AccessTokenSource;
  logger: Logger;
  fetch?: Fetch;
  /** Waits between retries; tests pass one that returns at once. */
  sleep?: (ms: number) => Promise<void>;
  /** Tries per call on retryable answers before giving up to the caller's own backoff. */
  maxAttempts?: number;
  /** First retry delay; doubles each time. */
  baseDelayMs?: number;
  /** Counts every files.get; the benchmark and tests read it. */
  onFileGet?: (id: string) => void;
}

export class DriveApi {
  private readonly base: string;
  private readonly doFetch: Fetch;
  private readonly sleep: (ms: number) => Promise<void>;
  /** One line per kind of answer dropped for its size, not one per answer. */
  private readonly tooLarge: ConditionLog;

  constructor(private readonly opts: DriveApiOptions) {
    this.base = `${trimUrl(opts.apiUrl)}/drive/v3`;
    this.doFetch = opts.fetch ?? httpFetch;
    this.sleep = opts.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms)));
    this.tooLarge = new ConditionLog({ logger: opts.logger, clock: systemClock });
  }

  /** The cursor "now" for My Drive (no driveId) or one shared drive. */
  async getStartPageToken(driveId?: string): Promise<string> {
    const q: Record<string, string> = { supportsAllDrives: 'true' };
    if (driveId) q.driveId = driveId;
    const body = await this.get<{ startPageToken: string }>('/changes/startPageToken', q, DRIVE_ITEM);
    return body.startPageToken;
  }

  /**
   * One page of changes. My Drive's feed leaves shared-drive items out: each shared drive has its own cursor,
   * and counting them twice would scan twice.
   */
  listChanges(pageToken: string, driveId?: string, pageSize = 1000): Promise<ChangePage> {
    const q: Record<string, string> = {
      pageToken,
      pageSize: String(pageSize),
      fields: CHANGE_FIELDS,
      supportsAllDrives: 'true',
      includeRemoved: 'true',
      includeItemsFromAllDrives: driveId ? 'true' : 'false',
    };
    if (driveId) q.driveId = driveId;
    return this.get<ChangePage>('/changes', q, DRIVE_PAGE).then((p) => ({ ...p, changes: p.changes ?? [] }));
  }

  /** One item's metadata; `undefined` when Drive says it does not exist or is not visible to us. */
  async getFile(id: string): Promise<DriveFile | undefined> {
    this.opts.onFileGet?.(id);
    try {
      return await this.get<DriveFile>(`/files/${encodeURIComponent(id)}`, { fields: FILE_FIELDS, supportsAllDrives: 'true' }, DRIVE_ITEM);
    } catch (err) {
      if (err instanceof DriveApiError && (err.status === 404 || (err.status === 403 && !RATE_LIMIT_REASONS.has(err.reason)))) return undefined;
      throw err;
    }
  }

  /** Every shared drive the account can see (all pages). */
  listDrives(): Promise<SharedDrive[]> {
    return listSharedDrives((q) => this.get<DrivesPage>('/drives', q, DRIVE_DRIVES_PAGE));
  }

  /** One page of a drive's whole listing, for build-caches. */
  listFiles(opts: { driveId?: string; pageToken?: string; pageSize?: number }): Promise<{ files: DriveFile[]; nextPageToken?: string }> {
    const q: Record<string, string> = {
      q: 'trashed = false',
      pageSize: String(opts.pageSize ?? 1000),
      fields: `nextPageToken,files(${FILE_FIELDS})`,
      supportsAllDrives: 'true',
      includeItemsFromAllDrives: opts.driveId ? 'true' : 'false',
      corpora: opts.driveId ? 'drive' : 'user',
    };
    if (opts.driveId) q.driveId = opts.driveId;
    if (opts.pageToken) q.pageToken = opts.pageToken;
    return this.get<{ files?: DriveFile[]; nextPageToken?: string }>('/files', q, DRIVE_PAGE).then((p) => ({ ...p, files: p.files ?? [] }));
  }

  /** A GET reading at most `cap` of the answer; an answer past it is retried as a 5xx is, then a DriveApiError. */
  private async get<T>(path: string, query: Record<string, string>, cap: AnswerCap): Promise<T> {
    const url = `${this.base}${path}?${new URLSearchParams(query).toString()}`;
    const maxAttempts = this.opts.maxAttempts ?? 5;
    const baseDelay = this.opts.baseDelayMs ?? 1000;
    let refreshedAfter401 = false;
    for (let attempt = 1; ; attempt++) {
      const token = await this.opts.tokens.getAccessToken();
      let res: Response;
      try {
        res = await this.doFetch(url, {
          headers: { authorization: `Bearer ${token}`, accept: 'application/json' },
          signal: AbortSignal.timeout(30_000),
          maxBytes: cap.bytes,
        });
      } catch (err) {
        if (err instanceof AnswerTooLarge) {
          const message = `Google Drive answered ${path} with more than ${sizeText(cap.bytes)}, the most ${cap.what} needs: the answer was dropped unread`;
          this.tooLarge.holds(cap.what, message, { path, maxBytes: cap.bytes });
          if (attempt >= maxAttempts) throw new DriveApiError(ANSWER_TOO_LARGE, 'answerTooLarge', message);
          await this.sleep(backoff(baseDelay, attempt));
          continue;
        }
        if (attempt >= maxAttempts) throw new DriveApiError(0, 'network', `Google Drive unreachable (${path}): ${(err as Error).message}`);
        await this.sleep(backoff(baseDelay, attempt));
        continue;
      }
      if (res.ok) return (await res.json()) as T;
      const { reason, message } = await readError(res);
      if (res.status === 401 && !refreshedAfter401) {
        // An access token can die before its stated expiry (revoked, password change): get a new one once.
        refreshedAfter401 = true;
        this.opts.tokens.invalidate(token);
        attempt--;
        continue;
      }
      const retryable = res.status === 429 || res.status >= 500 || (res.status === 403 && RATE_LIMIT_REASONS.has(reason));
      if (!retryable || attempt >= maxAttempts) {
        throw new DriveApiError(res.status, reason, `Google Drive ${path} answered ${res.status}${reason ? ` ${reason}` : ''}: ${message}`);
      }
      const retryAfter = Number(res.headers.get('retry-after'));
      const delay = Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter * 1000 : backoff(baseDelay, attempt);
      this.opts.logger.debug({ path, status: res.status, reason, delayMs: delay }, 'Google Drive asked us to slow down; retrying');
      await this.sleep(delay);
    }
  }
}

/** Exponential with jitter so several drives do not retry in lockstep. */
function backoff(base: number, attempt: number): number {
  const exp = base * 2 ** (attempt - 1);
  return Math.round(exp / 2 + Math.random() * (exp / 2));
}

async function readError(res: Response): Promise<{ reason: string; message: string }> {
  try {
    const body = (await res.json()) as { error?: { message?: string; errors?: { reason?: string }[] } | string };
    if (body.error && typeof body.error === 'object') {
      return { reason: body.error.errors?.[0]?.reason ?? '', message: body.error.message ?? '' };
    }
    return { reason: typeof body.error === 'string' ? body.error : '', message: '' };
  } catch {
    return { reason: '', message: res.statusText };
  }
}
