// 127.0.0.1 for tests: the fakes' HTTP servers on a port of their own, and ports named before a server binds them.
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createServer, type AddressInfo } from 'node:net';

/** Starts `server` on a free port of 127.0.0.1 and resolves with its base URL, http://127.0.0.1:<port>. */
export async function listenLocal(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Closes `server` at once, keep-alive connections included (nothing when it was never started). */
export async function closeServer(server: Server | undefined): Promise<void> {
  if (!server) return;
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

/** A port nobody listens on right now (bound and released at once, so a connection to it is refused). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/** Whether `port` on 127.0.0.1 can be bound right now (nothing listens on it). */
export async function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createServer();
    s.once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });
}

/**
 * A request listener for a fake server: the whole body read first, then `handle` with the URL and the body as JSON
 * (the text when it is not JSON, undefined when empty).
 */
export function withBody(handle: (req: IncomingMessage, res: ServerResponse, url: URL, body: unknown) => void) {
  return (req: IncomingMessage, res: ServerResponse): void => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let body: unknown;
      try {
        body = text ? JSON.parse(text) : undefined;
      } catch {
        body = text;
      }
      handle(req, res, new URL(req.url ?? '/', 'http://x'), body);
    });
  };
}
