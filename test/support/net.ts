// Ports on 127.0.0.1 for tests that must name one before a server binds it.
import { createServer } from 'node:net';

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
