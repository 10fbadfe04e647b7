// SERVER_TRUST_PROXY: by default no client can write its own address into the log with X-Forwarded-For; a
// listed proxy (or `true`) is believed. The key's accepted and refused values.
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { configFiles } from '../support/config-file.js';
import { SECRET, testService, type TestService } from '../support/service.js';

let t: TestService;
afterEach(async () => t?.close());

/** The client address the log recorded for one manual request sent with a forged X-Forwarded-For. */
async function loggedClient(trust: unknown): Promise<string> {
  t = await testService({ config: { SERVER_TRUST_PROXY: trust } as never });
  const base = await t.service.listen(0, '127.0.0.1');
  const res = await fetch(`${base}/${SECRET}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': '203.0.113.66' },
    body: 'eventType=Manual&filepath=/mnt/unionfs/Media/tv/S/e.mkv',
  });
  expect(res.status).toBe(200);
  const line = t.logs.map((l) => JSON.parse(l)).find((l) => l.folder === '/data/media/tv/S');
  const client = line.client as string;
  await t.close();
  return client;
}

describe('SERVER_TRUST_PROXY', () => {
  it('false (the default): X-Forwarded-For is ignored; the socket address is logged', async () => {
    expect(await loggedClient(false)).toBe('127.0.0.1');
    t = await testService();
    expect(t.service.config.SERVER_TRUST_PROXY).toBe(false);
  });

  it('a list holding the proxy: its X-Forwarded-For is believed; a list without it: still ignored', async () => {
    expect(await loggedClient(['127.0.0.1'])).toBe('203.0.113.66');
    expect(await loggedClient(['127.0.0.0/8'])).toBe('203.0.113.66');
    expect(await loggedClient(['10.0.0.1'])).toBe('127.0.0.1');
  });

  it('true: any direct peer is believed', async () => {
    expect(await loggedClient(true)).toBe('203.0.113.66');
  });
});

describe('SERVER_TRUST_PROXY in config.json and the environment', () => {
  const files = configFiles();
  afterAll(() => files.cleanup());

  it('takes false, true, one address, or a list of addresses, CIDR ranges and loopback/linklocal/uniquelocal', () => {
    expect(files.load({}).SERVER_TRUST_PROXY).toBe(false);
    expect(files.load({ SERVER_TRUST_PROXY: true }).SERVER_TRUST_PROXY).toBe(true);
    expect(files.load({ SERVER_TRUST_PROXY: '172.18.0.1' }).SERVER_TRUST_PROXY).toEqual(['172.18.0.1']);
    const list = ['127.0.0.1', '172.18.0.0/16', 'fd00::/8', '::1', 'loopback', 'uniquelocal'];
    expect(files.load({ SERVER_TRUST_PROXY: list }).SERVER_TRUST_PROXY).toEqual(list);
  });

  it('refuses anything else in one line that says what it expects', () => {
    for (const bad of ['yes', ['proxy.lan'], ['10.0.0.0/33'], [], 1, ['10.0.0.1/8/9']]) {
      expect(files.problem({ SERVER_TRUST_PROXY: bad }), JSON.stringify(bad)).toMatch(/^SERVER_TRUST_PROXY: expected false, true, or a list of proxy addresses/);
    }
  });

  it('an environment override is JSON, like every non-string key', () => {
    const { config } = loadConfig('/nonexistent/scanrelay-config.json', { SERVER_TRUST_PROXY: '["10.0.0.2"]' }, { write: false });
    expect(config.SERVER_TRUST_PROXY).toEqual(['10.0.0.2']);
  });
});
