// Signs in as a Google service account: an RS256 JWT signed with the key file's private key, exchanged at the
// token endpoint (jwt-bearer grant). There is no refresh token; a new JWT is minted when the token runs out.
import { createPrivateKey, createSign, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Clock } from '../clock.js';
import type { Logger } from '../log.js';
import { InvalidGrantError, postTokenGrant, type TokenSet } from './oauth.js';
import { REFRESH_MARGIN_MS, type AccessTokenSource } from './token-store.js';

export const JWT_BEARER_GRANT = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

export interface ServiceAccountKey {
  type: 'service_account';
  client_email: string;
  private_key: string;
  private_key_id?: string;
  token_uri?: string;
}

export function readServiceAccountKey(path: string): ServiceAccountKey {
  let parsed: Partial<ServiceAccountKey>;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8')) as Partial<ServiceAccountKey>;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new Error(`GOOGLE.SERVICE_ACCOUNT_FILE ${path}: ${code === 'ENOENT' ? 'file not found' : code ?? 'not valid JSON'}`);
  }
  if (parsed.type !== 'service_account' || !parsed.client_email || !parsed.private_key) {
    throw new Error(
      `GOOGLE.SERVICE_ACCOUNT_FILE ${path} is not a service-account key (needs type "service_account", client_email, private_key)`,
    );
  }
  return parsed as ServiceAccountKey;
}

const b64url = (v: unknown) => Buffer.from(typeof v === 'string' ? v : JSON.stringify(v)).toString('base64url');

/** The signed assertion of interfaces.md §4.4; `aud` is the token endpoint we post to. */
export function signServiceAccountJwt(
  key: ServiceAccountKey,
  opts: { scope: string; audience: string; nowMs: number; subject?: string; privateKey?: KeyObject },
): string {
  const iat = Math.floor(opts.nowMs / 1000);
  const header = { alg: 'RS256', typ: 'JWT', ...(key.private_key_id ? { kid: key.private_key_id } : {}) };
  const claims = {
    iss: key.client_email,
    scope: opts.scope,
    aud: opts.audience,
    iat,
    exp: iat + 3600,
    ...(opts.subject ? { sub: opts.subject } : {}),
  };
  const input = `${b64url(header)}.${b64url(claims)}`;
  const signature = createSign('RSA-SHA256')
    .update(input)
    .sign(opts.privateKey ?? createPrivateKey(key.private_key))
    .toString('base64url');
  return `${input}.${signature}`;
}

export interface ServiceAccountOptions {
  keyFile: string;
  tokenUrl: string;
  scope: string;
  clock: Clock;
  logger: Logger;
  fetch?: typeof fetch;
}

export class ServiceAccountTokenSource implements AccessTokenSource {
  private current: TokenSet | undefined;
  private inflight: Promise<string> | undefined;
  private key: ServiceAccountKey | undefined;
  private privateKey: KeyObject | undefined;

  constructor(private readonly opts: ServiceAccountOptions) {}

  describe(): string {
    return `service account ${this.key?.client_email ?? this.opts.keyFile}`;
  }

  invalidate(token: string): void {
    if (this.current?.access_token === token) this.current = undefined;
  }

  getAccessToken(): Promise<string> {
    const exp = this.current ? Date.parse(this.current.expiry) : 0;
    if (this.current && exp - REFRESH_MARGIN_MS > this.opts.clock.now()) return Promise.resolve(this.current.access_token);
    this.inflight ??= this.mint().finally(() => {
      this.inflight = undefined;
    });
    return this.inflight;
  }

  private async mint(): Promise<string> {
    if (!this.key) {
      this.key = readServiceAccountKey(this.opts.keyFile);
      try {
        this.privateKey = createPrivateKey(this.key.private_key);
      } catch {
        this.key = undefined;
        throw new Error(`GOOGLE.SERVICE_ACCOUNT_FILE ${this.opts.keyFile}: private_key is not a valid PEM key`);
      }
    }
    const assertion = signServiceAccountJwt(this.key, {
      scope: this.opts.scope,
      audience: this.opts.tokenUrl,
      nowMs: this.opts.clock.now(),
      privateKey: this.privateKey,
    });
    try {
      this.current = await postTokenGrant(
        this.opts.tokenUrl,
        { grant_type: JWT_BEARER_GRANT, assertion },
        { fetch: this.opts.fetch, clock: this.opts.clock },
      );
    } catch (err) {
      if (err instanceof InvalidGrantError) {
        // For a service account this is a deleted or disabled key, or this machine's clock is off.
        throw new InvalidGrantError(
          err.description,
          err.status,
          `check that the key in GOOGLE.SERVICE_ACCOUNT_FILE (${this.opts.keyFile}) still exists in the Cloud console and that this machine's clock is right`,
        );
      }
      throw err;
    }
    this.opts.logger.debug({ account: this.key.client_email }, 'Obtained a Google Drive access token for the service account');
    return this.current.access_token;
  }
}
