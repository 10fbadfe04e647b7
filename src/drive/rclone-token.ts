// Borrows the Google token of an existing rclone remote, so one sign-in serves both the rclone mount and the
// monitor. rclone.conf is read (never written: rclone rewrites the whole file itself on every refresh).
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { existsSync } from 'node:fs';
import { RefreshingTokenSource, type RefreshingTokenOptions, type StoredToken } from './token-store.js';

/** rclone.conf sections as plain key/value maps (INI: `[name]`, `key = value`, `#`/`;` comments). */
export function parseRcloneConf(text: string): Map<string, Record<string, string>> {
  const sections = new Map<string, Record<string, string>>();
  let current: Record<string, string> | undefined;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (!line || line.startsWith('#') || line.startsWith(';')) continue;
    const header = /^\[(.+)\]$/.exec(line);
    if (header) {
      current = {};
      sections.set(header[1].trim(), current);
      continue;
    }
    const eq = line.indexOf('=');
    if (eq < 0 || !current) continue;
    current[line.slice(0, eq).trim()] = line.slice(eq + 1).trim();
  }
  return sections;
}

/** Where rclone itself looks when --config is not given (the commonly used locations, in rclone's order). */
export function defaultRcloneConfigPath(env: NodeJS.ProcessEnv = process.env): string {
  if (env.RCLONE_CONFIG) return env.RCLONE_CONFIG;
  const xdg = env.XDG_CONFIG_HOME || join(homedir(), '.config');
  const modern = join(xdg, 'rclone', 'rclone.conf');
  const legacy = join(homedir(), '.rclone.conf');
  return !existsSync(modern) && existsSync(legacy) ? legacy : modern;
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
    throw new Error(`${configPath} is an encrypted rclone config: scanrelay cannot read it; use GOOGLE.SERVICE_ACCOUNT_FILE or \`scanrelay authorize\` instead`);
  }
  const section = parseRcloneConf(text).get(name);
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
