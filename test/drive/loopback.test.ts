// The one loopback listener both sign-ins use (authorize and the rclone wizard): only the redirect carrying our state
// counts, a refusal ends the attempt with Google's reason, and /auth leads to the consent URL when asked to.
import { afterEach, describe, expect, it } from 'vitest';
import { AuthorizationDenied, startLoopbackListener, type LoopbackListener } from '../../src/google/loopback.js';

let listener: LoopbackListener | undefined;
afterEach(async () => {
  await listener?.close();
  listener = undefined;
});

describe('loopback listener', () => {
  it('a redirect with another state is refused and does not end the attempt; ours then completes it', async () => {
    listener = await startLoopbackListener({ state: 'ours' });
    expect(listener.redirectUri).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    const stray = await fetch(`${listener.redirectUri}?code=theirs&state=other`);
    expect(stray.status).toBe(400);
    const stray2 = await fetch(`${listener.redirectUri}?error=access_denied&state=other`);
    expect(stray2.status).toBe(400);
    const ok = await fetch(`${listener.redirectUri}?code=4%2F0abc&state=ours`);
    expect(ok.status).toBe(200);
    expect(await ok.text()).toContain('You can close this tab');
    await expect(listener.result).resolves.toEqual({ code: '4/0abc', state: 'ours' });
  });

  it("an error redirect with our state rejects with Google's reason", async () => {
    listener = await startLoopbackListener({ state: 's' });
    const res = await fetch(`${listener.redirectUri}?error=access_denied&error_description=user+said+no&state=s`);
    expect(res.status).toBe(400);
    const err = await listener.result.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AuthorizationDenied);
    expect(err).toMatchObject({ error: 'access_denied', description: 'user said no', message: 'Google did not authorize: access_denied' });
  });

  it('/auth with our state redirects to the consent URL, with another state it is refused; without a consent URL it is not served', async () => {
    listener = await startLoopbackListener({ state: 's', consentUrl: 'http://127.0.0.1:9/consent?x=1' });
    const go = await fetch(`${listener.redirectUri}auth?state=s`, { redirect: 'manual' });
    expect(go.status).toBe(307);
    expect(go.headers.get('location')).toBe('http://127.0.0.1:9/consent?x=1');
    expect((await fetch(`${listener.redirectUri}auth?state=x`, { redirect: 'manual' })).status).toBe(403);
    await listener.close();
    listener = await startLoopbackListener({ state: 's' });
    expect((await fetch(`${listener.redirectUri}auth?state=s`, { redirect: 'manual' })).status).toBe(404);
  });
});
