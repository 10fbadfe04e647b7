// Google's OAuth 2.0 token endpoint: posts a grant (authorization code, refresh token, service-account JWT) and
// reads the answer or the refusal (RFC 6749 §5). Shared by the Drive monitor and the rclone wizard.
import { OAUTH_TOKEN, sizeText } from '../http/answer-caps.js';
import { AnswerTooLarge, httpFetch, type Fetch } from '../http/fetch.js';
import { keepStart } from '../text-cut.js';
import { shownUrl } from '../http/url-credentials.js';
import { typed } from '../version.js';

export const GOOGLE_TOKEN_URL = 'https://oauth2.googleapis.com/token';

/** The token endpoint's JSON answer as sent. */
export interface TokenResponse {
  access_token?: string;
  refresh_token?: string;
  token_type?: string;
  expires_in?: number | string;
  scope?: string;
  error?: string;
  error_description?: string;
}

/** The token endpoint said no (RFC 6749 error body). `error` is the machine code, e.g. "invalid_grant". */
export class OAuthError extends Error {
  /** The HTTP reason phrase, e.g. "Bad Request". */
  statusText = '';
  #responseText: string | undefined;

  constructor(
    readonly error: string,
    readonly description: string,
    readonly status: number,
  ) {
    super(`Google token endpoint refused the request: ${error}${description ? ` (${description})` : ''}`);
    this.name = 'OAuthError';
  }

  /**
   * The start of a body that was not an RFC 6749 error (a proxy's page), for rclone's wording. A getter, so a
   * logger that prints the error's own fields never prints it.
   */
  get responseText(): string | undefined {
    return this.#responseText;
  }

  set responseText(text: string | undefined) {
    this.#responseText = text;
  }
}

/**
 * The stored sign-in no longer works. One line that says what to do, because this is the error people hit
 * a week after setting up with a consent screen still in "Testing".
 */
export class InvalidGrantError extends OAuthError {
  constructor(description: string, status: number, rerun = `run \`${typed('authorize')}\` again`) {
    super('invalid_grant', description, status);
    this.name = 'InvalidGrantError';
    this.message =
      `Google Drive sign-in expired or was revoked (invalid_grant${description ? `: ${description}` : ''}): ` +
      `${rerun}. If the OAuth consent screen is in "Testing" status, Google expires refresh tokens after 7 days; ` +
      'publish the app ("In production") to keep them.';
  }
}

/** What the Drive monitor keeps of a token answer; `expiry` is absolute so a restart knows whether it is still good. */
export interface TokenSet {
  access_token: string;
  refresh_token?: string;
  token_type: string;
  /** ISO 8601 instant the access token stops working. */
  expiry: string;
  scope?: string;
}

/** A successful answer as a TokenSet received at `nowMs`; one without an access token is a refusal. */
export function toTokenSet(body: TokenResponse, nowMs: number): TokenSet {
  if (!body.access_token) {
    const error = body.error ?? 'http_200';
    if (error === 'invalid_grant') throw new InvalidGrantError(body.error_description ?? '', 200);
    throw new OAuthError(error, body.error_description ?? '', 200);
  }
  const expiresIn = typeof body.expires_in === 'number' ? body.expires_in : 3600;
  return {
    access_token: body.access_token,
    ...(body.refresh_token ? { refresh_token: body.refresh_token } : {}),
    token_type: body.token_type ?? 'Bearer',
    expiry: new Date(nowMs + expiresIn * 1000).toISOString(),
    ...(body.scope ? { scope: body.scope } : {}),
  };
}

export interface GrantOptions {
  fetch?: Fetch;
}

/**
 * POSTs a grant and answers the JSON of a successful response, which may still lack an access token (each caller
 * says so in its own words). A refusal throws OAuthError; the body goes into no message, as it may hold tokens.
 */
export async function postGrant(tokenUrl: string, form: Record<string, string>, opts: GrantOptions = {}): Promise<TokenResponse> {
  const doFetch = opts.fetch ?? httpFetch;
  let res: Response;
  let text: string;
  try {
    res = await doFetch(tokenUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: new URLSearchParams(form).toString(),
      signal: AbortSignal.timeout(30_000),
      maxBytes: OAUTH_TOKEN.bytes,
    });
    text = await res.text();
  } catch (err) {
    // The caller's failure (the Drive monitor's backoff, the wizard's message) says it; the URL is shown without a password.
    if (err instanceof AnswerTooLarge) {
      throw new Error(`the Google token endpoint ${shownUrl(tokenUrl)} answered with more than ${sizeText(OAUTH_TOKEN.bytes)}, the most ${OAUTH_TOKEN.what} needs: the answer was dropped unread`);
    }
    throw new Error(`cannot reach the Google token endpoint ${shownUrl(tokenUrl)}: ${(err as Error).message}`);
  }
  let body: TokenResponse = {};
  try {
    const parsed: unknown = JSON.parse(text);
    if (parsed && typeof parsed === 'object') body = parsed as TokenResponse;
  } catch {
    // A proxy's HTML error page: reported by its status below.
  }
  if (res.ok) return body;
  const error = body.error ?? `http_${res.status}`;
  const description = body.error_description ?? '';
  const refusal = error === 'invalid_grant' ? new InvalidGrantError(description, res.status) : new OAuthError(error, description, res.status);
  refusal.statusText = res.statusText;
  if (!body.error) refusal.responseText = keepStart(text, 200);
  throw refusal;
}

export interface ClientCredentials {
  tokenUrl: string;
  clientId: string;
  clientSecret: string;
}

/** authorization_code grant; redirect_uri must be the one the consent URL carried, or Google says invalid_grant. */
export function exchangeCode(
  c: ClientCredentials & { code: string; redirectUri: string; codeVerifier?: string },
  opts: GrantOptions = {},
): Promise<TokenResponse> {
  return postGrant(
    c.tokenUrl,
    {
      client_id: c.clientId,
      client_secret: c.clientSecret,
      code: c.code,
      grant_type: 'authorization_code',
      redirect_uri: c.redirectUri,
      ...(c.codeVerifier ? { code_verifier: c.codeVerifier } : {}),
    },
    opts,
  );
}

/** refresh_token grant. Google normally sends no new refresh token: the caller keeps the old one. */
export function refreshGrant(c: ClientCredentials & { refreshToken: string }, opts: GrantOptions = {}): Promise<TokenResponse> {
  return postGrant(
    c.tokenUrl,
    { grant_type: 'refresh_token', refresh_token: c.refreshToken, client_id: c.clientId, client_secret: c.clientSecret },
    opts,
  );
}
