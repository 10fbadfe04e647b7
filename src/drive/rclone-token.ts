// Borrows the Google token of an existing rclone remote, so one sign-in serves both the rclone mount and the
// monitor. rclone.conf is read (never written: rclone rewrites the whole file itself on every refresh).
import { readFileSync } from 'node:fs';
import { Conf } from '../rclone/conf.js';
import { configPath as rcloneConfigPath } from '../rclone/store.js';
import { RefreshingTokenSource, type RefreshingTokenOptions, type StoredToken } from './token-store.js';
import { typed } from '../version.js';

/** rclone.conf's remotes as plain key/value maps, read by the rclone wizard's own parser (src/rclone/conf.ts). */
export function parseRcloneConf(text: string): Map<string, Record<string, string>> {
  const conf = Conf.parse(text);
  return new Map(conf.remoteNames().map((name) => [name, Object.fromEntries(conf.entries(name))]));
}

/** Where rclone itself looks when --config is not given. */
export function defaultRcloneConfigPath(env: NodeJS.ProcessEnv = process.env): string {
  return rcloneConfigPath(undefined, env);
}

/** rclone writes Go's oauth2.Token; very old versions used capitalised keys. */
export function parseRcloneToken(json: string): StoredToken {
  const t = JSON.parse(json) as Record<string, unknown>;
  const pick = (a: string, b: string) => (typeof t[a] === 'string' ? (t[a] as string) : typeof t[b] === 'string' ? (t[b] as string) : '');
  const access = pick('access_token', 'AccessToken');
  const refresh = pick('refresh_token', 'RefreshToken');
  const expiryText = pick('expiry', 'Expiry');
  const expiryMs = Date.parse(expiryText);
  if (!access && !refresh) throw new Error('token has neither access_token nor refresh_token');
  return {
    access_token: access,
    ...(refresh ? { refresh_token: refresh } : {}),
    token_type: pick('token_type', 'TokenType') || 'Bearer',
    // Go's zero time means "never expires" to oauth2 but Google tokens always expire; treat it as expired.
    expiry: new Date(Number.isFinite(expiryMs) && expiryMs > 0 ? expiryMs : 0).toISOString(),
  };
}

export interface RcloneRemoteToken {
  token: StoredToken;
  clientId: string;
  clientSecret: string;
  /** team_drive of the remote, if it is a shared-drive remote. */
  teamDrive: string;
}

/** Reads one drive remote's token. Errors name the remote and the file, and say what to change. */
export function readRcloneRemoteToken(configPath: string, remote: string): RcloneRemoteToken {
  const name = remote.replace(/:$/, '');
  let text: string;
  try {
    text = readFileSync(configPath, 'utf8');
  } catch (err) {
    throw new Error(`GOOGLE.RCLONE_CONFIG: cannot read ${configPath} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
  if (text.includes('RCLONE_ENCRYPT_V0:')) {
    throw new Error(`${configPath} is an encrypted rclone config: scanrelay cannot read it; use GOOGLE.SERVICE_ACCOUNT_FILE or \`${typed('authorize')}\` instead`);
  }
  let remotes: Map<string, Record<string, string>>;
  try {
    remotes = parseRcloneConf(text);
  } catch (err) {
    throw new Error(`GOOGLE.RCLONE_CONFIG: ${configPath} is not an rclone config file (${(err as Error).message})`);
  }
  const section = remotes.get(name);
  if (!section) throw new Error(`GOOGLE.RCLONE_REMOTE: no remote [${name}] in ${configPath}`);
  if (section.type !== 'drive') {
    const wrapped = section.remote ? ` (it wraps "${section.remote}"; name that drive remote instead)` : '';
    throw new Error(`GOOGLE.RCLONE_REMOTE: remote [${name}] in ${configPath} is of type "${section.type ?? '?'}", not "drive"${wrapped}`);
  }
  if (section.service_account_file || section.service_account_credentials) {
    throw new Error(
      `GOOGLE.RCLONE_REMOTE: remote [${name}] signs in with a service account; set GOOGLE.SERVICE_ACCOUNT_FILE to ${section.service_account_file || 'its key file'} instead`,
    );
  }
  if (!section.token) throw new Error(`GOOGLE.RCLONE_REMOTE: remote [${name}] in ${configPath} has no token yet: finish \`rclone config\` first`);
  let token: StoredToken;
  try {
    token = parseRcloneToken(section.token);
  } catch (err) {
    throw new Error(`GOOGLE.RCLONE_REMOTE: the token of remote [${name}] in ${configPath} is unreadable: ${(err as Error).message}`);
  }
  return {
    token,
    clientId: section.client_id ?? '',
    clientSecret: section.client_secret ?? '',
    teamDrive: section.team_drive ?? '',
  };
}

/**
 * Uses the remote's current access token while rclone keeps it fresh; when it is stale, refreshes in memory with
 * the remote's own client (or GOOGLE.CLIENT_ID/SECRET). Google does not rotate refresh tokens, so rclone's copy
 * stays valid.
 */
export class RcloneTokenSource extends RefreshingTokenSource {
  private remoteClient = { clientId: '', clientSecret: '' };

  constructor(
    private readonly configPath: string,
    private readonly remote: string,
    opts: RefreshingTokenOptions,
  ) {
    super(opts);
  }

  protected load(): StoredToken {
    const r = readRcloneRemoteToken(this.configPath, this.remote);
    this.remoteClient = { clientId: r.clientId, clientSecret: r.clientSecret };
    return r.token;
  }

  protected save(): void {
    // Deliberately nothing: rclone owns rclone.conf.
  }

  protected client(): { clientId: string; clientSecret: string } {
    if (this.remoteClient.clientId && this.remoteClient.clientSecret) return this.remoteClient;
    if (this.opts.clientId && this.opts.clientSecret) return { clientId: this.opts.clientId, clientSecret: this.opts.clientSecret };
    throw new Error(
      `rclone remote [${this.remote}] has no client_id/client_secret and GOOGLE.CLIENT_ID/CLIENT_SECRET are empty: ` +
        "a token made with rclone's built-in client can only be refreshed by rclone; give the remote your own client ID",
    );
  }

  describe(): string {
    return `rclone remote ${this.remote} in ${this.configPath}`;
  }
}
