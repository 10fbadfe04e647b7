// The wizard's token exchange goes through the shared token endpoint (src/google) but still speaks rclone's words
// when Google (or a proxy in front of it) refuses.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { driveClient, exchangeCode } from '../../src/rclone/oauth.js';
import { LONE_SURROGATE } from '../support/surrogates.js';

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((r) => (server ? server.close(r) : r(undefined)));
  server = undefined;
});

async function tokenEndpoint(status: number, type: string, body: string): Promise<string> {
  server = createServer((_req, res) => res.writeHead(status, { 'content-type': type }).end(body));
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/token`;
}

const client = (tokenUrl: string) => driveClient({ client_id: 'id', client_secret: 'secret', token_url: tokenUrl }, {});

describe('rclone token exchange errors', () => {
  it('an RFC 6749 refusal reads as rclone prints it', async () => {
    const url = await tokenEndpoint(400, 'application/json', JSON.stringify({ error: 'invalid_grant', error_description: 'Bad Request' }));
    await expect(exchangeCode(client(url), 'used-code')).rejects.toThrow('oauth2: cannot fetch token: 400 Bad Request\nResponse: invalid_grant "Bad Request"');
  });

  it("a proxy's page is quoted (its start), with the status", async () => {
    const url = await tokenEndpoint(502, 'text/html', '<html>bad gateway</html>');
    await expect(exchangeCode(client(url), 'code')).rejects.toThrow('oauth2: cannot fetch token: 502 Bad Gateway\nResponse: <html>bad gateway</html>');
  });

  it('a long page is quoted to its first 200 characters, never half of a CJK character at the cut', async () => {
    const url = await tokenEndpoint(502, 'text/html; charset=utf-8', `<p>${'x'.repeat(196)}${'𠀀'.repeat(40)}</p>`);
    const err = (await exchangeCode(client(url), 'code').catch((e: unknown) => e)) as Error;
    expect(err.message).not.toMatch(LONE_SURROGATE);
    expect(err.message).toBe(`oauth2: cannot fetch token: 502 Bad Gateway\nResponse: <p>${'x'.repeat(196)}`);
  });

  it('a successful exchange is the token JSON rclone stores', async () => {
    const url = await tokenEndpoint(200, 'application/json', JSON.stringify({ access_token: 'a', token_type: 'Bearer', refresh_token: 'r', expires_in: 3600 }));
    expect(Object.keys(JSON.parse(await exchangeCode(client(url), 'code')) as object)).toEqual(['access_token', 'token_type', 'refresh_token', 'expiry']);
  });
});
