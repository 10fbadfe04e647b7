// Keeps a usable access token: the token file written by `authorize` (mode 0600), refreshed before it expires
// and again after Drive answers 401; plus the interface every sign-in method implements.
import { chmodSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Clock } from '../clock.js';
import type { Logger } from '../log/logger.js';
import { refreshGrant, toTokenSet, type TokenSet } from '../google/token-endpoint.js';
import { typed } from '../version.js';

/** Anything that can hand the Drive client a bearer token. */
export interface AccessTokenSource {
  /** A token valid for at least the next minute; refreshes when needed. */
  getAccessToken(): Promise<string>;
  /** Drive said 401 for this token: the next getAccessToken must not return it. */
  invalidate(token: string): void;
  /** For logs and the status page, e.g. "token file /x/token.json". Never contains a secret. */
  describe(): string;
}

/** Refresh this long before the stated expiry, so a slow poll never carries a token that dies mid-way. */
export const REFRESH_MARGIN_MS = 5 * 60_000;

export interface StoredToken extends TokenSet {
  /** Which OAuth client the refresh token belongs to; refreshing with another client fails. */
  client_id?: string;
}

/** Writes the token so only the service's user can read it, replacing the old file atomically. */
export function writeTokenFile(path: string, token: StoredToken): void {
  mkdirSync(dirname(path), { recursive: true });
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(token, null, 2) + '\n', { mode: 0o600 });
  // The mode argument is masked by umask and ignored for existing files; set it explicitly.
  chmodSync(tmp, 0o600);
  renameSync(tmp, path);
}

export function readTokenFile(path: string): StoredToken {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') {
      throw new Error(`no Google Drive token at ${path}: run \`${typed('authorize')}\` (or set GOOGLE.SERVICE_ACCOUNT_FILE or GOOGLE.RCLONE_REMOTE)`);
    }
    throw new Error(`cannot read the Google Drive token file ${path}: ${code ?? (err as Error).message}`);
  }
  let parsed: StoredToken;
  try {
    parsed = JSON.parse(text) as StoredToken;
  } catch {
    throw new Error(`the Google Drive token file ${path} is not valid JSON: run \`${typed('authorize')}\` again`);
  }
  if (!parsed || typeof parsed !== 'object' || (!parsed.access_token && !parsed.refresh_token)) {
    throw new Error(`the Google Drive token file ${path} holds no token: run \`${typed('authorize')}\` again`);
  }
  return parsed;
}

export interface RefreshingTokenOptions {
  tokenUrl: string;
  clientId: string;
  clientSecret: string;
  clock: Clock;
  logger: Logger;
  fetch?: typeof fetch;
}

/**
 * A refresh-token holder shared by the token-file and rclone sign-ins: one refresh at a time, refreshed
 * ahead of expiry, and dropped after a 401.
 */
export abstract class RefreshingTokenSource implements AccessTokenSource {
  protected current: StoredToken | undefined;
  private inflight: Promise<string> | undefined;

  constructor(protected readonly opts: RefreshingTokenOptions) {}

  /** Loads the token as stored (file, rclone.conf). Called on first use and after each refresh failure. */
  protected abstract load(): StoredToken;
  /** Keeps a refreshed token where the next start will find it (or nowhere, for a borrowed token). */
  protected abstract save(token: StoredToken): void;
  abstract describe(): string;
  /** The refresh_token grant's client; rclone remotes may carry their own. */
  protected client(_token: StoredToken): { clientId: string; clientSecret: string } {
    return { clientId: this.opts.clientId, clientSecret: this.opts.clientSecret };
  }

  getAccessToken(): Promise<string> {
    this.inflight ??= this.obtain().finally(() => {
      this.inflight = undefined;
    });
    return this.inflight;
  }

  invalidate(token: string): void {
    if (this.current?.access_token === token) this.current = { ...this.current, expiry: new Date(0).toISOString() };
  }

  private fresh(t: StoredToken | undefined): boolean {
    if (!t?.access_token) return false;
    const exp = Date.parse(t.expiry);
    return Number.isFinite(exp) && exp - REFRESH_MARGIN_MS > this.opts.clock.now();
  }

  private async obtain(): Promise<string> {
    if (this.current && this.fresh(this.current)) return this.current.access_token;
    // Re-read: the file may have been replaced by a new `authorize`, or rclone may have refreshed its token.
    const stored = this.load();
    if (this.fresh(stored) && stored.access_token !== this.current?.access_token) {
      this.current = stored;
      return stored.access_token;
    }
    const base = this.current?.refresh_token ? this.current : stored;
    if (!base.refresh_token) {
      throw new Error(`the Google Drive token (${this.describe()}) has expired and has no refresh token: run \`${typed('authorize')}\` again`);
    }
    const client = this.client(base);
    if (!client.clientId || !client.clientSecret) {
      throw new Error('GOOGLE.CLIENT_ID and GOOGLE.CLIENT_SECRET are needed to refresh the Google Drive token');
    }
    const answer = await refreshGrant({ tokenUrl: this.opts.tokenUrl, ...client, refreshToken: base.refresh_token }, { fetch: this.opts.fetch });
    const refreshed = toTokenSet(answer, this.opts.clock.now());
    // Google normally sends no new refresh token: the one just used stays good.
    const refreshToken = refreshed.refresh_token ?? base.refresh_token;
    this.current = { ...refreshed, refresh_token: refreshToken, ...(base.client_id ? { client_id: base.client_id } : {}) };
    this.save(this.current);
    this.opts.logger.info({ source: this.describe(), expiry: refreshed.expiry }, 'Renewed Google Drive access token');
    return refreshed.access_token;
  }
}

/** The token `scanrelay authorize` wrote. */
export class TokenFileSource extends RefreshingTokenSource {
  constructor(
    private readonly path: string,
    opts: RefreshingTokenOptions,
  ) {
    super(opts);
  }
  protected load(): StoredToken {
    return readTokenFile(this.path);
  }
  protected save(token: StoredToken): void {
    try {
      writeTokenFile(this.path, token);
    } catch (err) {
      // Not fatal: the refresh token is unchanged, so the next start simply refreshes again.
      this.opts.logger.warn({ path: this.path, err: (err as Error).message }, 'Could not save the renewed Google Drive token');
    }
  }
  describe(): string {
    return `token file ${this.path}`;
  }
}
