// A fake Google sign-in on 127.0.0.1: the authorization endpoint (redirects to redirect_uri with a code, or shows
// the code for the OOB redirect) and the token endpoint (authorization_code, refresh_token and jwt-bearer grants,
// invalid_grant on demand). Response bodies start from the shared OAuth fixtures.
import { createHash, createPublicKey, createVerify, type KeyObject } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { googleAnswer } from './google-answers.js';
import { closeServer, listenLocal } from '../support/net.js';

interface IssuedCode {
  redirectUri: string;
  clientId: string;
  challenge?: string;
  used: boolean;
}

export class FakeGoogleAuth {
  baseUrl = '';
  readonly clientId: string;
  readonly clientSecret: string;
  /** Every grant_type received, in order. */
  readonly grants: string[] = [];
  /** Query of the last authorization request. */
  lastAuthRequest: URLSearchParams | undefined;
  /** When set, refresh_token grants answer invalid_grant. */
  refreshRefused = false;
  private server: Server | undefined;
  private readonly codes = new Map<string, IssuedCode>();
  private readonly accessTokens = new Set<string>();
  private readonly refreshTokens = new Set<string>();
  private readonly serviceAccounts = new Map<string, KeyObject>();
  private seq = 0;

  constructor(opts: { clientId?: string; clientSecret?: string } = {}) {
    this.clientId = opts.clientId ?? 'fake-client-id.apps.googleusercontent.com';
    this.clientSecret = opts.clientSecret ?? 'fake-client-secret-XYZ';
  }

  get authUrl(): string {
    return `${this.baseUrl}/o/oauth2/v2/auth`;
  }
  get tokenUrl(): string {
    return `${this.baseUrl}/token`;
  }

  /** The GOOGLE keys that make scanrelay sign in at this fake, as this fake's OAuth client. */
  get clientKeys(): { CLIENT_ID: string; CLIENT_SECRET: string; AUTH_URL: string; TOKEN_URL: string } {
    return { CLIENT_ID: this.clientId, CLIENT_SECRET: this.clientSecret, AUTH_URL: this.authUrl, TOKEN_URL: this.tokenUrl };
  }

  /** A signed-in token as the token file holds it: fresh access and refresh tokens, valid until `expiresAt` (ms). */
  issueToken(expiresAt: number): { access_token: string; refresh_token: string; token_type: 'Bearer'; expiry: string } {
    return { access_token: this.issueAccessToken(), refresh_token: this.issueRefreshToken(), token_type: 'Bearer', expiry: new Date(expiresAt).toISOString() };
  }

  async start(): Promise<this> {
    this.server = createServer((req, res) => void this.handle(req, res));
    this.baseUrl = await listenLocal(this.server);
    return this;
  }

  async stop(): Promise<void> {
    await closeServer(this.server);
  }

  /** The Drive fake asks this whether a bearer token is good. */
  isValidAccessToken(token: string): boolean {
    return this.accessTokens.has(token);
  }

  /** Every access token stops working (as after a revocation or a password change); refresh tokens still work. */
  expireAccessTokens(): void {
    this.accessTokens.clear();
  }

  /** Issues a refresh token directly, as if `authorize` had run earlier. */
  issueRefreshToken(): string {
    const t = `1//fake-refresh-${++this.seq}`;
    this.refreshTokens.add(t);
    return t;
  }

  issueAccessToken(): string {
    const t = `ya29.fake-access-${++this.seq}`;
    this.accessTokens.add(t);
    return t;
  }

  registerServiceAccount(clientEmail: string, publicKeyPem: string): void {
    this.serviceAccounts.set(clientEmail, createPublicKey(publicKeyPem));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', this.baseUrl);
    if (req.method === 'GET' && url.pathname === '/o/oauth2/v2/auth') return this.authorize(url.searchParams, res);
    if (req.method === 'POST' && url.pathname === '/token') {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      return this.token(new URLSearchParams(Buffer.concat(chunks).toString('utf8')), res);
    }
    res.writeHead(404).end();
  }

  private authorize(q: URLSearchParams, res: ServerResponse): void {
    this.lastAuthRequest = q;
    const redirectUri = q.get('redirect_uri') ?? '';
    if (q.get('client_id') !== this.clientId || q.get('response_type') !== 'code' || !redirectUri) {
      res.writeHead(400, { 'content-type': 'text/plain' }).end('Error 400: invalid_request');
      return;
    }
    const code = `4/0fake-code-${++this.seq}`;
    this.codes.set(code, { redirectUri, clientId: this.clientId, challenge: q.get('code_challenge') ?? undefined, used: false });
    if (redirectUri === 'urn:ietf:wg:oauth:2.0:oob') {
      res.writeHead(200, { 'content-type': 'text/html' }).end(`<p>Copy this code: <code>${code}</code></p>`);
      return;
    }
    const target = new URL(redirectUri);
    target.searchParams.set('code', code);
    const state = q.get('state');
    if (state) target.searchParams.set('state', state);
    target.searchParams.set('scope', q.get('scope') ?? '');
    res.writeHead(302, { location: target.toString() }).end();
  }

  private token(form: URLSearchParams, res: ServerResponse): void {
    const grant = form.get('grant_type') ?? '';
    this.grants.push(grant);
    const invalidGrant = (description?: string) =>
      json(res, 400, { ...googleAnswer('invalidGrant'), ...(description ? { error_description: description } : {}) });
    const clientOk = form.get('client_id') === this.clientId && form.get('client_secret') === this.clientSecret;
    if (grant === 'authorization_code') {
      if (!clientOk) return json(res, 401, { error: 'invalid_client', error_description: 'Unauthorized' });
      const issued = this.codes.get(form.get('code') ?? '');
      if (!issued || issued.used) return invalidGrant('Malformed auth code.');
      if (issued.redirectUri !== form.get('redirect_uri')) return invalidGrant('Bad Request');
      if (issued.challenge) {
        const verifier = form.get('code_verifier') ?? '';
        if (createHash('sha256').update(verifier).digest('base64url') !== issued.challenge) return invalidGrant('Invalid code verifier.');
      }
      issued.used = true;
      const template = googleAnswer('token');
      return json(res, 200, { ...template, access_token: this.issueAccessToken(), refresh_token: this.issueRefreshToken(), scope: 'https://www.googleapis.com/auth/drive' });
    }
    if (grant === 'refresh_token') {
      if (!clientOk) return json(res, 401, { error: 'invalid_client', error_description: 'Unauthorized' });
      if (this.refreshRefused || !this.refreshTokens.has(form.get('refresh_token') ?? '')) return invalidGrant();
      const template = googleAnswer('refresh');
      return json(res, 200, { ...template, access_token: this.issueAccessToken() });
    }
    if (grant === 'urn:ietf:params:oauth:grant-type:jwt-bearer') {
      const problem = this.checkAssertion(form.get('assertion') ?? '');
      if (problem) return invalidGrant(problem);
      const template = googleAnswer('serviceAccount');
      return json(res, 200, { ...template, access_token: this.issueAccessToken() });
    }
    json(res, 400, { error: 'unsupported_grant_type', error_description: `Invalid grant_type: ${grant}` });
  }

  private checkAssertion(jwt: string): string | undefined {
    const [h, c, s] = jwt.split('.');
    if (!h || !c || !s) return 'Invalid JWT';
    const header = JSON.parse(Buffer.from(h, 'base64url').toString()) as { alg?: string };
    const claims = JSON.parse(Buffer.from(c, 'base64url').toString()) as { iss?: string; aud?: string; iat?: number; exp?: number; scope?: string };
    if (header.alg !== 'RS256') return 'Invalid JWT algorithm';
    const key = this.serviceAccounts.get(claims.iss ?? '');
    if (!key) return 'Invalid JWT Signature.';
    if (!createVerify('RSA-SHA256').update(`${h}.${c}`).verify(key, Buffer.from(s, 'base64url'))) return 'Invalid JWT Signature.';
    if (claims.aud !== this.tokenUrl) return 'Invalid JWT: aud';
    if (!claims.iat || !claims.exp || claims.exp <= claims.iat || claims.exp - claims.iat > 3600) return 'Invalid JWT: Token must be a short-lived token';
    if (!claims.scope) return 'Invalid JWT: no scope';
    return undefined;
  }
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify(body));
}
