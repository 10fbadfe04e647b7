// A minimal fake of the Drive API's drives.list (shared drives) on 127.0.0.1, serving the shared
// fixture to a caller with any Bearer token and recording the token it was given.
import { createServer } from 'node:http';
import { ownFixture } from '../support/fixtures.js';
import { closeServer, listenLocal } from '../support/net.js';

export interface FakeDriveList {
  /** The API base to put in SCANRELAY_DRIVE_API_URL. */
  url: string;
  drives: Array<{ id: string; name: string }>;
  bearerTokens: string[];
  close(): Promise<void>;
}

export async function startFakeDriveList(fixture = 'drive/drives-list.json'): Promise<FakeDriveList> {
  const body = ownFixture<{ drives: Array<{ id: string; name: string }> }>(fixture);
  const bearerTokens: string[] = [];
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (url.pathname !== '/drive/v3/drives' || req.method !== 'GET') return void res.writeHead(404).end();
    const auth = req.headers.authorization ?? '';
    if (!auth.startsWith('Bearer ')) {
      res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify(ownFixture('drive/error-401.json')));
      return;
    }
    bearerTokens.push(auth.slice('Bearer '.length));
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  });
  const url = await listenLocal(server);
  return {
    url,
    drives: body.drives,
    bearerTokens,
    close: () => closeServer(server),
  };
}
