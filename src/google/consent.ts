// The consent half of Google's OAuth for a user account: the consent URL with its state and PKCE challenge, and
// reading back what a person pasted (the bare code or the whole redirected URL).
import { createHash, randomBytes } from 'node:crypto';
import { shownUrl } from '../http/url-credentials.js';

/** The out-of-band redirect; Google blocked it for all clients on 31 January 2023 (`authorize --oob` still offers it). */
export const OOB_REDIRECT_URI = 'urn:ietf:wg:oauth:2.0:oob';

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

export interface ConsentParams {
  authUrl: string;
  clientId: string;
  redirectUri: string;
  /** Space-separated scope URLs. */
  scope: string;
  state: string;
  codeChallenge?: string;
  /** prompt=consent: a re-authorization still returns a refresh token. */
  promptConsent?: boolean;
}

/**
 * The consent URL. Parameters are in sorted order, as Go's url.Values encodes them (rclone's links look the same),
 * and are appended to any query the configured URL already has. It is printed for a person to open, so a user and
 * password in the configured URL are left out (their browser asks for them).
 */
export function consentUrl(p: ConsentParams): string {
  const authUrl = shownUrl(p.authUrl);
  const params: [string, string][] = [
    ['access_type', 'offline'],
    ['client_id', p.clientId],
    ...(p.codeChallenge ? ([['code_challenge', p.codeChallenge], ['code_challenge_method', 'S256']] as [string, string][]) : []),
    ...(p.promptConsent ? ([['prompt', 'consent']] as [string, string][]) : []),
    ['redirect_uri', p.redirectUri],
    ['response_type', 'code'],
    ['scope', p.scope],
    ['state', p.state],
  ];
  return `${authUrl}${authUrl.includes('?') ? '&' : '?'}${new URLSearchParams(params).toString()}`;
}

/** What came back on the redirect. */
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
