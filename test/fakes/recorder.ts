// A small HTTP server on 127.0.0.1 that records every request and answers through a route function; the base of
// the Audiobookshelf, Tdarr, Sonarr/Radarr and relay fakes.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { closeServer, listenLocal } from '../support/net.js';

export interface Recorded {
  method: string;
  path: string;
  query: Record<string, string[]>;
  headers: IncomingMessage['headers'];
  body: unknown;
  /** The body's bytes as they arrived (a byte limit, or UTF-8 validity, is judged on these). */
  raw: Buffer;
}

export interface Answer {
  status: number;
  body?: unknown;
}

export interface Recorder {
  url: string;
  requests: Recorded[];
  /** Every request answers this status (or the socket is dropped for 'down') until fail(null). */
  fail(failure: number | 'down' | null): void;
  close(): Promise<void>;
}

export async function startRecorder(route: (r: Recorded) => Answer): Promise<Recorder> {
  const requests: Recorded[] = [];
  let failure: number | 'down' | null = null;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const u = new URL(req.url ?? '/', 'http://x');
      const raw = Buffer.concat(chunks);
      const text = raw.toString('utf8');
      let body: unknown = text === '' ? undefined : text;
      try {
        body = text ? JSON.parse(text) : undefined;
      } catch {
        // kept as text
      }
      const query: Record<string, string[]> = {};
      for (const [k, v] of u.searchParams) (query[k] ??= []).push(v);
      const r: Recorded = { method: req.method ?? '', path: u.pathname, query, headers: req.headers, body, raw };
      requests.push(r);
      if (failure === 'down') return void req.socket.destroy();
      const answer = failure !== null ? { status: failure, body: { message: `injected ${failure}` } } : route(r);
      if (answer.body === undefined) return void res.writeHead(answer.status).end();
      res.writeHead(answer.status, { 'content-type': 'application/json' }).end(JSON.stringify(answer.body));
    });
  });
  const url = await listenLocal(server);
  return {
    url,
    requests,
    fail: (f) => void (failure = f),
    close: () => closeServer(server),
  };
}

export const basicAuth = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
