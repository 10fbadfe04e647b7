// Signs in as a Google service account: reads the key file, signs an RS256 JWT with its private key and trades it
// at the token endpoint (jwt-bearer grant, RFC 7523). There is no refresh token: a new JWT is signed each time.
import { createPrivateKey, createSign, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { postGrant, type GrantOptions, type TokenResponse } from './token-endpoint.js';

export const JWT_BEARER_GRANT = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

export interface ServiceAccountKey {
  type: 'service_account';
  client_email: string;
  private_key: string;
  private_key_id?: string;
  token_uri?: string;
}

/** Reads and checks a key file; `label` names where the path came from (a config key) in every error. */
export function readServiceAccountKey(path: string, label: string): ServiceAccountKey {
  let parsed: Partial<ServiceAccountKey>;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8')) as Partial<ServiceAccountKey>;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new Error(`${label} ${path}: ${code === 'ENOENT' ? 'file not found' : code ?? 'not valid JSON'}`);
  }
  if (parsed.type !== 'service_account' || !parsed.client_email || !parsed.private_key) {
    throw new Error(`${label} ${path} is not a service-account key (needs type "service_account", client_email, private_key)`);
  }
  return parsed as ServiceAccountKey;
}

const b64url = (v: unknown) => Buffer.from(typeof v === 'string' ? v : JSON.stringify(v)).toString('base64url');

/** The signed assertion (https://developers.google.com/identity/protocols/oauth2/service-account#authorizingrequests). */
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

/** Signs an assertion for `tokenUrl` (its audience) and trades it there for an access token. */
export function serviceAccountGrant(
  key: ServiceAccountKey,
  opts: GrantOptions & { tokenUrl: string; scope: string; nowMs: number; privateKey?: KeyObject },
): Promise<TokenResponse> {
  const assertion = signServiceAccountJwt(key, { scope: opts.scope, audience: opts.tokenUrl, nowMs: opts.nowMs, privateKey: opts.privateKey });
  return postGrant(opts.tokenUrl, { grant_type: JWT_BEARER_GRANT, assertion }, { fetch: opts.fetch });
}
