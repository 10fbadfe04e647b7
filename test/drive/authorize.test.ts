// `scanrelay authorize` against the fake Google sign-in: loopback, pasted code, pasted URL, --oob, preconditions.
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AUTHORIZE_LOG_LINES, authorizeCommand } from '../../src/cli/authorize.js';
import { withGoogleDefaults, type GoogleSettings } from '../../src/drive/settings.js';
import { FakeGoogleAuth } from '../fakes/google-token.js';
import { logCollector } from './harness.js';

let auth: FakeGoogleAuth;
let dir: string;
beforeEach(async () => {
  auth = await new FakeGoogleAuth().start();
  dir = mkdtempSync(join(tmpdir(), 'scanrelay-auth-'));
});
afterEach(async () => {
  await auth.stop();
  rmSync(dir, { recursive: true, force: true });
});

function run(args: string[], google: Partial<GoogleSettings> = {}) {
  const input = new PassThrough();
  const output = new PassThrough();
  let out = '';
  output.on('data', (c) => (out += c.toString()));
  const log = logCollector('info');
  let code: number | undefined;
  const settings = withGoogleDefaults({
    ENABLED: true,
    ...auth.clientKeys,
    ...google,
  });
  const cmd = authorizeCommand({
    loadConfig: () => ({ google: settings, configDir: dir }),
    logger: log.logger,
    input,
    output,
    exit: (c) => (code = c),
  }).exitOverride();
  const done = cmd.parseAsync(args, { from: 'user' });
  return {
    input,
    done: done.then(() => code),
    log,
    output: () => out,
    /** The authorization URL once printed. */
    async authUrl(): Promise<URL> {
      for (let i = 0; i < 500; i++) {
        const m = /(http:\/\/127\.0\.0\.1:\d+\/o\/oauth2\/v2\/auth\?\S+)/.exec(out);
        if (m && out.includes('Enter authorization code:')) return new URL(m[1]);
        await new Promise((r) => setTimeout(r, 5));
      }
      throw new Error(`no URL printed: ${out}`);
    },
  };
}

/** What the user's browser does: open the URL, get redirected by Google. Returns the redirect target. */
async function approveInBrowser(url: URL): Promise<string> {
  const res = await fetch(url, { redirect: 'manual' });
  expect(res.status).toBe(302);
  return res.headers.get('location')!;
}

function expectStoredToken(r: ReturnType<typeof run>) {
  const file = join(dir, 'token.json');
  expect(statSync(file).mode & 0o777).toBe(0o600);
  const token = JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>;
  expect(token.refresh_token).toMatch(/^1\/\/fake-refresh-/);
  expect(auth.isValidAccessToken(token.access_token)).toBe(true);
  const infos = r.log.lines.map((l) => JSON.parse(l) as { level: string; msg: string }).filter((l) => l.level === 'info').map((l) => l.msg);
  expect(infos).toEqual([...AUTHORIZE_LOG_LINES]);
  // Neither the client secret nor any token reaches the terminal or the log.
  const everything = r.output() + r.log.lines.join('\n');
  for (const secret of [auth.clientSecret, token.access_token, token.refresh_token]) expect(everything).not.toContain(secret);
}

describe('scanrelay authorize', () => {
  it("prints Google's consent URL (drive scope, offline access) with a loopback redirect, and completes when the browser comes back by itself", async () => {
    const r = run([]);
    const url = await r.authUrl();
    const q = url.searchParams;
    expect(url.pathname).toBe('/o/oauth2/v2/auth');
    expect(q.get('scope')).toBe('https://www.googleapis.com/auth/drive');
    expect(q.get('response_type')).toBe('code');
    expect(q.get('client_id')).toBe(auth.clientId);
    expect(q.get('access_type')).toBe('offline');
    expect(q.get('redirect_uri')).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    expect(r.output()).toContain('Enter authorization code: ');

    const landing = await fetch(await approveInBrowser(url));
    expect(landing.status).toBe(200);
    expect(await landing.text()).toContain('You can close this tab');
    expect(await r.done).toBe(0);
    expect(auth.grants).toEqual(['authorization_code']);
    expectStoredToken(r);
  });

  it('accepts the code pasted at the prompt (headless server)', async () => {
    const r = run([]);
    const location = await approveInBrowser(await r.authUrl());
    r.input.write(`${new URL(location).searchParams.get('code')}\n`);
    expect(await r.done).toBe(0);
    expectStoredToken(r);
  });

  it('accepts the whole redirected URL pasted from the address bar, after a wrong one is refused', async () => {
    const r = run([]);
    const location = await approveInBrowser(await r.authUrl());
    const wrong = new URL(location);
    wrong.searchParams.set('state', 'someone-else');
    r.input.write(`${wrong}\n`);
    r.input.write(`  ${location}  \n`);
    expect(await r.done).toBe(0);
    expect(r.output()).toContain('state mismatch');
    expectStoredToken(r);
  });

  it('--oob asks for the out-of-band redirect Google retired, with a warning, and takes the pasted code', async () => {
    const r = run(['--oob']);
    const url = await r.authUrl();
    expect(url.searchParams.get('redirect_uri')).toBe('urn:ietf:wg:oauth:2.0:oob');
    for (const k of ['scope', 'response_type', 'client_id', 'access_type']) expect(url.searchParams.has(k)).toBe(true);
    const page = await (await fetch(url)).text();
    const code = /<code>([^<]+)<\/code>/.exec(page)![1];
    r.input.write(`${code}\n`);
    expect(await r.done).toBe(0);
    const warn = r.log.lines.map((l) => JSON.parse(l) as { level: string; msg: string }).find((l) => l.level === 'warn');
    expect(warn?.msg).toContain('31 January 2023');
  });

  it.each([
    [{ ENABLED: false }, 'GOOGLE.ENABLED'],
    [{ CLIENT_ID: '' }, 'GOOGLE.CLIENT_ID'],
    [{ CLIENT_ID: '<CLIENT_ID>' }, 'GOOGLE.CLIENT_ID'],
    [{ CLIENT_SECRET: '' }, 'GOOGLE.CLIENT_SECRET'],
  ] as [Partial<GoogleSettings>, string][])('refuses to start when %o, naming %s', async (google, key) => {
    const r = run([], google);
    expect(await r.done).toBe(1);
    const lines = r.log.lines.map((l) => JSON.parse(l) as { level: string; msg: string });
    expect(lines).toHaveLength(1);
    expect(lines[0].level).toBe('error');
    expect(lines[0].msg.startsWith(key)).toBe(true);
    expect(r.output()).toBe('');
  });

  it('a code Google refuses fails with exit code 1 and a reason', async () => {
    const r = run([]);
    await r.authUrl();
    r.input.write('4/0not-a-real-code\n');
    expect(await r.done).toBe(1);
    expect(r.log.lines.join('\n')).toContain('invalid_grant');
  });
});
