// Google OAuth for a drive remote the way rclone does it: the loopback flow on 127.0.0.1:53682 (link printed and
// optionally opened, code received, exchanged at the token URL) with rclone's endpoint overrides
// RCLONE_DRIVE_AUTH_URL / RCLONE_DRIVE_TOKEN_URL and the remote's auth_url / token_url, and rclone's wording.
// The sign-in itself is src/google/.
import { execFile } from 'node:child_process';
import { homedir } from 'node:os';
import { consentUrl as googleConsentUrl, newState } from '../google/consent.js';
import { AuthorizationDenied, LOOPBACK_HOST, startLoopbackListener } from '../google/loopback.js';
import { readServiceAccountKey, serviceAccountGrant } from '../google/service-account.js';
import { GOOGLE_TOKEN_URL, OAuthError as TokenRefusal, exchangeCode as exchangeGrant } from '../google/token-endpoint.js';
import { tokenJson } from './token.js';

export { GOOGLE_TOKEN_URL, LOOPBACK_HOST };
export const LOOPBACK_PORT = 53682;
export const REDIRECT_URI = `http://${LOOPBACK_HOST}:${LOOPBACK_PORT}/`;
export const GOOGLE_AUTH_URL = 'https://accounts.google.com/o/oauth2/auth';
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

/** The provider's consent URL for this client and the fixed loopback redirect. */
export function consentUrl(client: OAuthClient, state: string): string {
  return googleConsentUrl({ authUrl: client.authUrl, clientId: client.clientId, redirectUri: REDIRECT_URI, scope: client.scopes.join(' '), state });
}

/** An authorization that did not complete, in rclone's words. */
export class SignInError extends Error {}

/** A token-endpoint refusal as rclone prints it ("oauth2: cannot fetch token: 400 Bad Request\nResponse: …"). */
function inRcloneWords(err: unknown): never {
  if (err instanceof TokenRefusal) {
    const detail = err.responseText ?? `${err.error}${err.description ? ` "${err.description}"` : ''}`;
    throw new SignInError(`oauth2: cannot fetch token: ${err.status} ${err.statusText}\nResponse: ${detail}`);
  }
  throw err;
}

/** Exchanges an authorization code; returns the token JSON as rclone stores it. */
export async function exchangeCode(client: OAuthClient, code: string): Promise<string> {
  const answer = await exchangeGrant({ tokenUrl: client.tokenUrl, clientId: client.clientId, clientSecret: client.clientSecret, code, redirectUri: REDIRECT_URI }).catch(inRcloneWords);
  return tokenJson(answer);
}

/** rclone expands a leading `~` and environment variables in the file name. */
export function expandPath(path: string, env: NodeJS.ProcessEnv = process.env): string {
  const home = path === '~' || path.startsWith('~/') ? homedir() + path.slice(1) : path;
  return home.replace(/\$\{(\w+)\}|\$(\w+)/g, (_, a: string | undefined, b: string | undefined) => env[a ?? b ?? ''] ?? '');
}

/** An access token for a remote's service_account_file (to list its shared drives without a browser). */
export async function serviceAccountAccessToken(file: string, scopes: string[], now: Date = new Date()): Promise<string> {
  const key = readServiceAccountKey(expandPath(file), 'service_account_file');
  const answer = await serviceAccountGrant(key, { tokenUrl: key.token_uri || GOOGLE_TOKEN_URL, scope: scopes.join(' '), nowMs: now.getTime() }).catch(inRcloneWords);
  if (!answer.access_token) throw new Error('service-account token response has no access_token');
  return answer.access_token;
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
  const state = newState();
  const link = `http://${LOOPBACK_HOST}:${LOOPBACK_PORT}/auth?state=${encodeURIComponent(state)}`;
  const listener = await startLoopbackListener({ state, port: LOOPBACK_PORT, consentUrl: consentUrl(client, state) }).catch((err: NodeJS.ErrnoException) => {
    throw err.code === 'EADDRINUSE' ? new SignInError(`failed to start auth webserver: ${LOOPBACK_HOST}:${LOOPBACK_PORT} is already in use`) : err;
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
    const { code } = await listener.result.catch((err: unknown) => {
      if (!(err instanceof AuthorizationDenied)) throw err;
      const extra = [err.error, err.description].filter(Boolean).join(': ');
      throw new SignInError(`Error: Auth Error: No code returned by remote server${extra ? `: ${extra}` : ''}`);
    });
    log(notice('Got code'));
    return await exchangeCode(client, code);
  } finally {
    await listener.close();
  }
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
