// The monitor's token source for GOOGLE.SERVICE_ACCOUNT_FILE: an access token from the service-account sign-in
// (src/google/service-account.ts), kept until shortly before it runs out, then a new one.
import { createPrivateKey, type KeyObject } from 'node:crypto';
import type { Clock } from '../clock.js';
import { readServiceAccountKey, serviceAccountGrant, type ServiceAccountKey } from '../google/service-account.js';
import { InvalidGrantError, toTokenSet, type TokenSet } from '../google/token-endpoint.js';
import type { Logger } from '../log/logger.js';
import { REFRESH_MARGIN_MS, type AccessTokenSource } from './token-store.js';

const KEY_LABEL = 'GOOGLE.SERVICE_ACCOUNT_FILE';

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
      this.key = readServiceAccountKey(this.opts.keyFile, KEY_LABEL);
      try {
        this.privateKey = createPrivateKey(this.key.private_key);
      } catch {
        this.key = undefined;
        throw new Error(`${KEY_LABEL} ${this.opts.keyFile}: private_key is not a valid PEM key`);
      }
    }
    try {
      const answer = await serviceAccountGrant(this.key, {
        tokenUrl: this.opts.tokenUrl,
        scope: this.opts.scope,
        nowMs: this.opts.clock.now(),
        privateKey: this.privateKey,
        fetch: this.opts.fetch,
      });
      this.current = toTokenSet(answer, this.opts.clock.now());
    } catch (err) {
      if (err instanceof InvalidGrantError) {
        // For a service account this is a deleted or disabled key, or this machine's clock is off.
        throw new InvalidGrantError(
          err.description,
          err.status,
          `check that the key in ${KEY_LABEL} (${this.opts.keyFile}) still exists in the Cloud console and that this machine's clock is right`,
        );
      }
      throw err;
    }
    this.opts.logger.debug({ account: this.key.client_email }, 'Obtained a Google Drive access token for the service account');
    return this.current.access_token;
  }
}
