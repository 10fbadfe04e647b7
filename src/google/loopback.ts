// The loopback redirect of Google's OAuth for a user account (RFC 8252 §7.3): a listener on 127.0.0.1 that takes
// the one redirect carrying our state. `scanrelay authorize` and the rclone wizard both sign in through it.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RedirectResult } from './consent.js';

export const LOOPBACK_HOST = '127.0.0.1';

/** Google sent the browser back without a code (the person declined, or the client is misconfigured). */
export class AuthorizationDenied extends Error {
  constructor(
    readonly error: string,
    readonly description: string,
  ) {
    super(`Google did not authorize: ${error}`);
    this.name = 'AuthorizationDenied';
  }
}

export interface LoopbackOptions {
  state: string;
  /** 0 or absent: any free port. */
  port?: number;
  /** When set, GET /auth?state=<ours> redirects here: a short link to print instead of the long consent URL. */
  consentUrl?: string;
}

export interface LoopbackListener {
  /** http://127.0.0.1:<port>/ */
  redirectUri: string;
  /** Settles with the first redirect that carries our state; rejects with AuthorizationDenied on a refusal. */
  result: Promise<RedirectResult>;
  close(): Promise<void>;
}

/**
 * Listens for Google's redirect. Only a request with our state counts, either way: a stray browser tab can neither
 * finish nor abort the sign-in. Rejects as `listen` does (e.g. EADDRINUSE), for the caller to word.
 */
export async function startLoopbackListener(opts: LoopbackOptions): Promise<LoopbackListener> {
  let settle!: (r: RedirectResult) => void;
  let fail!: (e: Error) => void;
  const result = new Promise<RedirectResult>((res, rej) => {
    settle = res;
    fail = rej;
  });
  result.catch(() => undefined);
  const server = createServer((req, res) => answer(req, res));
  // The listener is closed right after the code arrives; a kept-alive socket would hold the browser's next hop.
  server.keepAliveTimeout = 0;

  function answer(req: IncomingMessage, res: ServerResponse): void {
    res.setHeader('connection', 'close');
    const url = new URL(req.url ?? '/', `http://${LOOPBACK_HOST}`);
    if (opts.consentUrl && url.pathname === '/auth') {
      if (url.searchParams.get('state') !== opts.state) {
        res.writeHead(403, { 'content-type': 'text/plain; charset=utf-8' }).end('State did not match - please try again');
        return;
      }
      res.writeHead(307, { location: opts.consentUrl }).end();
      return;
    }
    if (url.pathname !== '/' || (!url.searchParams.has('code') && !url.searchParams.has('error'))) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    if (url.searchParams.get('state') !== opts.state) {
      page(res, 400, 'Wrong request', 'This link belongs to another authorization attempt.');
      return;
    }
    const code = url.searchParams.get('code');
    const error = url.searchParams.get('error');
    if (error || !code) {
      page(res, 400, 'Not authorized', `Google said: ${escapeHtml(error ?? 'no code')}`);
      fail(new AuthorizationDenied(error ?? '', url.searchParams.get('error_description') ?? ''));
      return;
    }
    page(res, 200, 'Authorized', 'scanrelay received the code. You can close this tab.');
    settle({ code, state: opts.state });
  }

  await new Promise<void>((res, rej) => {
    server.once('error', rej);
    server.listen(opts.port ?? 0, LOOPBACK_HOST, () => res());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    redirectUri: `http://${LOOPBACK_HOST}:${port}/`,
    result,
    close: () =>
      new Promise<void>((res) => {
        server.closeAllConnections();
        server.close(() => res());
      }),
  };
}

function page(res: ServerResponse, status: number, title: string, text: string): void {
  res
    .writeHead(status, { 'content-type': 'text/html; charset=utf-8' })
    .end(`<!doctype html><meta charset="utf-8"><title>scanrelay: ${title}</title><h1>${title}</h1><p>${text}</p>`);
}

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
