// An access token from a service-account key file (JWT bearer grant), so a remote configured with
// service_account_file can list its shared drives without a browser.
import { createSign } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { GOOGLE_TOKEN_URL, postToken } from './oauth.js';

interface ServiceAccountKey {
  client_email?: string;
  private_key?: string;
  private_key_id?: string;
  token_uri?: string;
}

/** rclone expands a leading `~` and environment variables in the file name. */
export function expandPath(path: string, env: NodeJS.ProcessEnv = process.env): string {
  const home = path === '~' || path.startsWith('~/') ? homedir() + path.slice(1) : path;
  return home.replace(/\$\{(\w+)\}|\$(\w+)/g, (_, a: string | undefined, b: string | undefined) => env[a ?? b ?? ''] ?? '');
}

export async function serviceAccountAccessToken(file: string, scopes: string[], now: Date = new Date()): Promise<string> {
  const key = JSON.parse(readFileSync(expandPath(file), 'utf8')) as ServiceAccountKey;
  if (!key.client_email || !key.private_key) throw new Error(`${file} is not a service-account key (client_email and private_key needed)`);
  const tokenUri = key.token_uri || GOOGLE_TOKEN_URL;
  const iat = Math.floor(now.getTime() / 1000);
  const header = { alg: 'RS256', typ: 'JWT', ...(key.private_key_id ? { kid: key.private_key_id } : {}) };
  const claims = { iss: key.client_email, scope: scopes.join(' '), aud: tokenUri, iat, exp: iat + 3600 };
  const encode = (part: object): string => Buffer.from(JSON.stringify(part)).toString('base64url');
  const unsigned = `${encode(header)}.${encode(claims)}`;
  const signature = createSign('RSA-SHA256').update(unsigned).sign(key.private_key).toString('base64url');
  const response = await postToken(
    tokenUri,
    new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion: `${unsigned}.${signature}` }),
  );
  if (!response.access_token) throw new Error('service-account token response has no access_token');
  return response.access_token;
}
