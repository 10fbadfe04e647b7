// Google OAuth 2.0 for a user account: the authorization URL, the loopback listener, reading a pasted code
// or redirected URL, and the code-exchange and refresh grants against the token endpoint.
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Clock } from '../clock.js';

/** The out-of-band redirect of spec 4.3; Google blocked it for all clients on 31 January 2023. */
export const OOB_REDIRECT_URI = 'urn:ietf:wg:oauth:2.0:oob';

/** What we keep of a token response; `expiry` is absolute so a restart knows whether it is still good. */
export interface TokenSet {
  access_token: string;
  refresh_token?: string;
  token_type: string;
  /** ISO 8601 instant the access token stops working. */
  expiry: string;
  scope?: string;
}

/** The token endpoint said no (RFC 6749 error body). `error` is the machine code, e.g. "invalid_grant". */
export class OAuthError extends Error {
  constructor(
    readonly error: string,
    readonly description: string,
    readonly status: number,
  ) {
    super(`Google token endpoint refused the request: ${error}${description ? ` (${description})` : ''}`);
    this.name = 'OAuthError';
  }
}

/**
 * The stored sign-in no longer works. One line that says what to do, because this is the error people hit
 * a week after setting up with a consent screen still in "Testing".
 */
export class InvalidGrantError extends OAuthError {
  constructor(description: string, status: number, rerun = 'run `scanrelay authorize` again') {
    super('invalid_grant', description, status);
    this.name = 'InvalidGrantError';
    this.message =
      `Google Drive sign-in expired or was revoked (invalid_grant${description ? `: ${description}` : ''}): ` +
      `${rerun}. If the OAuth consent screen is in "Testing" status, Google expires refresh tokens after 7 days; ` +
      'publish the app ("In production") to keep them.';
  }
}

export interface Pkce {
  verifier: string;
  challenge: string;
}

export function newPkce(): Pkce {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

export function newState(): string {
  return randomBytes(16).toString('base64url');
}

export interface AuthUrlParams {
  authUrl: string;
  clientId: string;
  redirectUri: string;
  scope: string;
  state?: string;
  codeChallenge?: string;
}

/** The URL of spec 4.3 step 2, plus prompt=consent so a re-authorization still returns a refresh token. */
export function buildAuthUrl(p: AuthUrlParams): string {
  const u = new URL(p.authUrl);
  u.searchParams.set('client_id', p.clientId);
  u.searchParams.set('redirect_uri', p.redirectUri);
  u.searchParams.set('response_type', 'code');
  u.searchParams.set('scope', p.scope);
  u.searchParams.set('access_type', 'offline');
  u.searchParams.set('prompt', 'consent');
  if (p.state) u.searchParams.set('state', p.state);
  if (p.codeChallenge) {
    u.searchParams.set('code_challenge', p.codeChallenge);
    u.searchParams.set('code_challenge_method', 'S256');
  }
  return u.toString();
}

interface TokenResponse {
  access_token?: string;
  refresh_token?: string;
  token_type?: string;
  expires_in?: number;
  scope?: string;
  error?: string;
  error_description?: string;
}

/** POSTs a grant to the token endpoint. Bodies are never put into errors: they may hold tokens. */
export async function postTokenGrant(
  tokenUrl: string,
  form: Record<string, string>,
  opts: { fetch?: typeof fetch; clock: Clock },
): Promise<TokenSet> {
  const doFetch = opts.fetch ?? fetch;
  let res: Response;
  try {
    res = await doFetch(tokenUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: new URLSearchParams(form).toString(),
      signal: AbortSignal.timeout(30_000),
    });
  } catch (err) {
    throw new Error(`cannot reach the Google token endpoint ${tokenUrl}: ${(err as Error).message}`);
  }
  let body: TokenResponse = {};
  try {
    body = (await res.json()) as TokenResponse;
  } catch {
    // A proxy's HTML error page: fall through to the status-based error below.
  }
  if (!res.ok || !body.access_token) {
    const error = body.error ?? `http_${res.status}`;
    const description = body.error_description ?? '';
    if (error === 'invalid_grant') throw new InvalidGrantError(description, res.status);
    throw new OAuthError(error, description, res.status);
  }
  const expiresIn = typeof body.expires_in === 'number' ? body.expires_in : 3600;
  return {
    access_token: body.access_token,
    ...(body.refresh_token ? { refresh_token: body.refresh_token } : {}),
    token_type: body.token_type ?? 'Bearer',
    expiry: new Date(opts.clock.now() + expiresIn * 1000).toISOString(),
    ...(body.scope ? { scope: body.scope } : {}),
  };
}

export interface ClientCredentials {
  tokenUrl: string;
  clientId: string;
  clientSecret: string;
}

/** authorization_code grant; redirect_uri must be the one the URL carried, or Google says invalid_grant. */
export function exchangeCode(
  c: ClientCredentials & { code: string; redirectUri: string; codeVerifier?: string },
  opts: { fetch?: typeof fetch; clock: Clock },
): Promise<TokenSet> {
  return postTokenGrant(
    c.tokenUrl,
    {
      grant_type: 'authorization_code',
      code: c.code,
      client_id: c.clientId,
      client_secret: c.clientSecret,
      redirect_uri: c.redirectUri,
      ...(c.codeVerifier ? { code_verifier: c.codeVerifier } : {}),
    },
    opts,
  );
}

/** refresh_token grant. Google normally returns no new refresh token, so the old one is kept. */
export async function refreshAccessToken(
  c: ClientCredentials & { refreshToken: string },
  opts: { fetch?: typeof fetch; clock: Clock },
): Promise<TokenSet> {
  const t = await postTokenGrant(
    c.tokenUrl,
    { grant_type: 'refresh_token', refresh_token: c.refreshToken, client_id: c.clientId, client_secret: c.clientSecret },
    opts,
  );
  return { ...t, refresh_token: t.refresh_token ?? c.refreshToken };
}

/** What came back on the redirect: a code, or Google's reason for not giving one. */
export interface RedirectResult {
  code: string;
  state?: string;
}

/**
 * Reads what a person pasted at the prompt: the bare code, or the whole address-bar URL of the (failed to load)
 * loopback redirect on a headless server. A state in the URL must match ours; a bare code carries none.
 */
export function parsePastedAnswer(input: string, expectedState?: string): RedirectResult {
  const text = input.trim();
  if (!text) throw new Error('nothing was pasted: paste the authorization code or the whole redirected URL');
  const looksLikeUrl = /^[a-z][a-z0-9+.-]*:\/\//i.test(text) || text.startsWith('/?') || text.startsWith('?');
  if (!looksLikeUrl) {
    // Browsers show the code URL-encoded in the address bar ("4%2F0A..."); people copy either form.
    return { code: text.includes('%') ? decodeURIComponent(text) : text };
  }
  const query = text.slice(text.indexOf('?') + 1).split('#')[0];
  const params = new URLSearchParams(query);
  const error = params.get('error');
  if (error) throw new Error(`Google did not authorize: ${error}`);
  const code = params.get('code');
  if (!code) throw new Error('the pasted URL has no code= parameter: copy the whole address after approving access');
  const state = params.get('state') ?? undefined;
  if (expectedState && state !== undefined && state !== expectedState) {
    throw new Error('the pasted URL belongs to a different authorization attempt (state mismatch): use the URL printed now');
  }
  return { code, state };
}

export interface LoopbackListener {
  /** http://127.0.0.1:<port>/ */
  redirectUri: string;
  /** Settles with the first redirect that carries our state; rejects on an error redirect. */
  result: Promise<RedirectResult>;
  close(): Promise<void>;
}

const PAGE = (title: string, text: string) =>
  `<!doctype html><meta charset="utf-8"><title>scanrelay: ${title}</title><h1>${title}</h1><p>${text}</p>`;

/**
 * Listens on 127.0.0.1 for Google's redirect (RFC 8252 loopback). Only a request with the expected state counts,
 * so a stray browser tab cannot finish someone else's sign-in.
 */
export async function startLoopbackListener(opts: { state: string; port?: number }): Promise<LoopbackListener> {
  let settle!: (r: RedirectResult) => void;
  let fail!: (e: Error) => void;
  const result = new Promise<RedirectResult>((res, rej) => {
    settle = res;
    fail = rej;
  });
  result.catch(() => undefined);
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (url.pathname !== '/' || (!url.searchParams.has('code') && !url.searchParams.has('error'))) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    if (url.searchParams.get('state') !== opts.state) {
      res.writeHead(400, { 'content-type': 'text/html' }).end(PAGE('Wrong request', 'This link belongs to another authorization attempt.'));
      return;
    }
    const error = url.searchParams.get('error');
    if (error) {
      res.writeHead(400, { 'content-type': 'text/html' }).end(PAGE('Not authorized', `Google said: ${escapeHtml(error)}`));
      fail(new Error(`Google did not authorize: ${error}`));
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE('Authorized', 'scanrelay received the code. You can close this tab.'));
    settle({ code: url.searchParams.get('code') ?? '', state: opts.state });
  });
  await new Promise<void>((res, rej) => {
    server.once('error', rej);
    server.listen(opts.port ?? 0, '127.0.0.1', () => res());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    redirectUri: `http://127.0.0.1:${port}/`,
    result,
    close: () =>
      new Promise<void>((res) => {
        server.closeAllConnections?.();
        server.close(() => res());
      }),
  };
}

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
