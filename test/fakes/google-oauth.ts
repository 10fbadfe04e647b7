// A fake Google OAuth provider on 127.0.0.1 for browser-less tests: its consent URL redirects straight
// back to the caller's redirect_uri with a code, and its token URL exchanges codes, refresh tokens and
// service-account assertions for the shared fixture token responses.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { googleAnswer } from './google-answers.js';
import { closeServer, listenLocal } from '../support/net.js';

export interface RecordedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  form: Record<string, string>;
}

export interface FakeGoogleOAuth {
  authUrl: string;
  tokenUrl: string;
  requests: RecordedRequest[];
  /** The token response JSON returned for a successful code exchange. */
  tokenResponse: Record<string, unknown>;
  close(): Promise<void>;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => resolve(body));
    req.on('error', reject);
  });
}

export async function startFakeGoogleOAuth(): Promise<FakeGoogleOAuth> {
  const tokenResponse = googleAnswer('token');
  const refreshResponse = googleAnswer('refresh');
  const serviceAccountResponse = googleAnswer('serviceAccount');
  const invalidGrant = googleAnswer('invalidGrant');
  const requests: RecordedRequest[] = [];
  // code -> the redirect_uri it was issued for, which the exchange must repeat (as Google checks).
  const codes = new Map<string, string>();
  let next = 0;

  const server: Server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const body = req.method === 'POST' ? await readBody(req) : '';
    const record: RecordedRequest = {
      method: req.method ?? 'GET',
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      form: Object.fromEntries(new URLSearchParams(body)),
    };
    requests.push(record);
    const json = (status: number, payload: unknown): void => {
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(payload));
    };

    if (url.pathname === '/auth') {
      const redirect = url.searchParams.get('redirect_uri');
      if (!redirect || url.searchParams.get('response_type') !== 'code' || !url.searchParams.get('client_id')) {
        res.writeHead(400).end('bad consent request');
        return;
      }
      const code = `4/fake-code-${++next}`;
      codes.set(code, redirect);
      const back = new URL(redirect);
      back.searchParams.set('code', code);
      back.searchParams.set('state', url.searchParams.get('state') ?? '');
      back.searchParams.set('scope', url.searchParams.get('scope') ?? '');
      res.writeHead(302, { location: back.toString() }).end();
      return;
    }
    if (url.pathname === '/token' && req.method === 'POST') {
      const form = record.form;
      if (form.grant_type === 'authorization_code') {
        if (!form.code || codes.get(form.code) !== form.redirect_uri) return json(400, invalidGrant);
        codes.delete(form.code);
        return json(200, tokenResponse);
      }
      if (form.grant_type === 'refresh_token') return form.refresh_token ? json(200, refreshResponse) : json(400, invalidGrant);
      if (form.grant_type === 'urn:ietf:params:oauth:grant-type:jwt-bearer') {
        return form.assertion?.split('.').length === 3 ? json(200, serviceAccountResponse) : json(400, invalidGrant);
      }
      return json(400, { error: 'unsupported_grant_type' });
    }
    res.writeHead(404).end();
  });
  const base = await listenLocal(server);
  return {
    authUrl: `${base}/auth`,
    tokenUrl: `${base}/token`,
    requests,
    tokenResponse,
    close: () => closeServer(server),
  };
}
