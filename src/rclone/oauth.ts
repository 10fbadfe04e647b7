// Google OAuth for a drive remote the way rclone does it: the loopback flow on 127.0.0.1:53682 (link
// printed and optionally opened, code received, exchanged at the token URL) with rclone's endpoint
// overrides RCLONE_DRIVE_AUTH_URL / RCLONE_DRIVE_TOKEN_URL and the remote's auth_url / token_url.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { tokenJson, type TokenResponse } from './token.js';

export const LOOPBACK_HOST = '127.0.0.1';
export const LOOPBACK_PORT = 53682;
export const REDIRECT_URI = `http://${LOOPBACK_HOST}:${LOOPBACK_PORT}/`;
export const GOOGLE_AUTH_URL = 'https://accounts.google.com/o/oauth2/auth';
export const GOOGLE_TOKEN_URL = 'https://oauth2.googleapis.com/token';
const SCOPE_PREFIX = 'https://www.googleapis.com/auth/';

export interface OAuthClient {
  clientId: string;
  clientSecret: string;
  authUrl: string;
  tokenUrl: string;
  scopes: string[];
  /** Whether anything differs from rclone's built-in client and Google's endpoints. */
  custom: boolean;
}

/** A remote's scope value as Google scope URLs: a comma list, blank meaning full `drive`. */
export function scopeUrls(scope: string | undefined): string[] {
  const names = (scope ?? '').split(',').map((s) => s.trim()).filter((s) => s !== '');
  return (names.length ? names : ['drive']).map((s) => SCOPE_PREFIX + s);
}

/**
 * The OAuth client for a remote's options. As in rclone, the backend's environment variables win
 * over the config file, which wins over the defaults.
 */
export function driveClient(options: Record<string, string>, env: NodeJS.ProcessEnv = process.env): OAuthClient {
  const pick = (key: string): string => env[`RCLONE_DRIVE_${key.toUpperCase()}`] || options[key] || '';
  const clientId = pick('client_id');
  const clientSecret = pick('client_secret');
  const authUrl = pick('auth_url');
  const tokenUrl = pick('token_url');
  return {
    clientId,
    clientSecret,
    authUrl: authUrl || GOOGLE_AUTH_URL,
    tokenUrl: tokenUrl || GOOGLE_TOKEN_URL,
    scopes: scopeUrls(pick('scope')),
    custom: !!(clientId || clientSecret || authUrl || tokenUrl),
  };
}

/** The provider's consent URL: Go's url.Values encoding, so the parameters are in sorted order. */
export function consentUrl(client: OAuthClient, state: string): string {
  const params = new URLSearchParams([
    ['access_type', 'offline'],
    ['client_id', client.clientId],
    ['redirect_uri', REDIRECT_URI],
    ['response_type', 'code'],
    ['scope', client.scopes.join(' ')],
    ['state', state],
  ]);
  return `${client.authUrl}${client.authUrl.includes('?') ? '&' : '?'}${params.toString()}`;
}

export class OAuthError extends Error {}

/** Exchanges an authorization code; returns the token JSON as rclone stores it. */
export async function exchangeCode(client: OAuthClient, code: string): Promise<string> {
  const body = new URLSearchParams({
    client_id: client.clientId,
    client_secret: client.clientSecret,
    code,
    grant_type: 'authorization_code',
    redirect_uri: REDIRECT_URI,
  });
  return tokenJson(await postToken(client.tokenUrl, body));
}

export async function postToken(url: string, body: URLSearchParams): Promise<TokenResponse> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
    body: body.toString(),
  });
  const text = await res.text();
  let json: Record<string, unknown> = {};
  try {
    json = JSON.parse(text) as Record<string, unknown>;
  } catch {
    // A non-JSON answer is reported with its status below.
  }
  if (!res.ok) {
    const detail = json.error ? `${String(json.error)}${json.error_description ? ` "${String(json.error_description)}"` : ''}` : text.slice(0, 200);
    throw new OAuthError(`oauth2: cannot fetch token: ${res.status} ${res.statusText}\nResponse: ${detail}`);
  }
  return json as TokenResponse;
}

/** A NOTICE line on stderr in rclone's log format. */
export function notice(text: string, now: Date = new Date()): string {
  const p = (n: number): string => String(n).padStart(2, '0');
  const stamp = `${now.getFullYear()}/${p(now.getMonth() + 1)}/${p(now.getDate())} ${p(now.getHours())}:${p(now.getMinutes())}:${p(now.getSeconds())}`;
  return `${stamp} NOTICE: ${text}\n`;
}

export interface LoopbackOptions {
  client: OAuthClient;
  /** Try to open the link in a browser (else only print it). */
  openBrowser: boolean;
  /** Where the link and progress lines go (the terminal's stderr). */
  log: (line: string) => void;
}

/** Runs the loopback flow to the end and returns the token JSON. */
export async function loopbackAuthorize(options: LoopbackOptions): Promise<string> {
  const { client, log } = options;
  const state = randomBytes(16).toString('base64url');
  const link = `http://${LOOPBACK_HOST}:${LOOPBACK_PORT}/auth?state=${encodeURIComponent(state)}`;

  let settle!: { resolve: (code: string) => void; reject: (err: Error) => void };
  const codeArrived = new Promise<string>((resolve, reject) => (settle = { resolve, reject }));
  const server = createServer((req, res) => route(req, res));
  server.keepAliveTimeout = 0;

  function route(req: IncomingMessage, res: ServerResponse): void {
    res.setHeader('connection', 'close');
    const url = new URL(req.url ?? '/', REDIRECT_URI);
    if (url.pathname === '/auth') {
      if (url.searchParams.get('state') !== state) {
        res.writeHead(403, { 'content-type': 'text/plain; charset=utf-8' }).end('State did not match - please try again');
        return;
      }
      res.writeHead(307, { location: consentUrl(client, state) }).end();
      return;
    }
    if (url.pathname !== '/') {
      res.writeHead(404).end('404 page not found');
      return;
    }
    const code = url.searchParams.get('code');
    const got = url.searchParams.get('state') ?? '';
    if (!code) {
      const extra = [url.searchParams.get('error'), url.searchParams.get('error_description')].filter(Boolean).join(': ');
      const description = `No code returned by remote server${extra ? `: ${extra}` : ''}`;
      page(res, 400, 'Failure!', `Error: Auth Error<br>Description: ${escapeHtml(description)}`);
      settle.reject(new OAuthError(`Error: Auth Error: ${description}`));
    } else if (got !== state) {
      const description = `Expecting "${state}" got "${got}"`;
      page(res, 400, 'Failure!', `Error: Auth state doesn't match<br>Description: ${escapeHtml(description)}`);
      settle.reject(new OAuthError(`Error: Auth state doesn't match: ${description}`));
    } else {
      page(res, 200, 'Success!', 'All done. Please go back to scanrelay.');
      settle.resolve(code);
    }
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) =>
      reject(err.code === 'EADDRINUSE' ? new OAuthError(`failed to start auth webserver: ${LOOPBACK_HOST}:${LOOPBACK_PORT} is already in use`) : err),
    );
    server.listen(LOOPBACK_PORT, LOOPBACK_HOST, () => resolve());
  });
  try {
    if (client.custom) log(notice(`Make sure your Redirect URL is set to "${REDIRECT_URI}" in your custom config.`));
    if (options.openBrowser) {
      log(notice(`If your browser doesn't open automatically go to the following link: ${link}`));
      openInBrowser(link);
    } else {
      log(notice(`Please go to the following link: ${link}`));
    }
    log(notice('Log in and authorize scanrelay for access'));
    log(notice('Waiting for code...'));
    const code = await codeArrived;
    log(notice('Got code'));
    return await exchangeCode(client, code);
  } finally {
    server.closeAllConnections();
    server.close();
  }
}

function page(res: ServerResponse, status: number, title: string, body: string): void {
  res
    .writeHead(status, { 'content-type': 'text/html; charset=utf-8' })
    .end(`<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<title>${title}</title>\n</head>\n<body>\n<h1>${title}</h1>\n<p>${body}</p>\n</body>\n</html>\n`);
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c] ?? c);
}

/** Best effort: the link is printed anyway, so a missing opener is not an error. */
function openInBrowser(link: string): void {
  const [command, args] =
    process.platform === 'darwin'
      ? ['open', [link]]
      : process.platform === 'win32'
        ? ['rundll32', ['url.dll,FileProtocolHandler', link]]
        : ['xdg-open', [link]];
  try {
    const child = execFile(command, args, () => undefined);
    child.unref();
  } catch {
    // No opener on this machine; the printed link is the way.
  }
}
