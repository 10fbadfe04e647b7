// Retry-After as RFC 9110 §10.2.3 defines it: delay-seconds or an HTTP-date in any of the three forms a recipient
// must accept (§5.6.7); a value that is neither asks for nothing, so the caller's own backoff applies.
import { describe, expect, it } from 'vitest';
import { httpDate, retryAfterMs } from '../../src/http/retry-after.js';

const now = Date.UTC(2026, 0, 1, 12, 0, 0);

describe('Retry-After', () => {
  it('delay-seconds: whole seconds from now, spaces around them allowed', () => {
    expect(retryAfterMs('20', now)).toBe(20_000);
    expect(retryAfterMs(' 120 ', now)).toBe(120_000);
  });

  it('an HTTP-date in each of the three forms, as UTC', () => {
    const at = Date.UTC(2026, 0, 1, 12, 0, 30);
    expect(retryAfterMs('Thu, 01 Jan 2026 12:00:30 GMT', now)).toBe(30_000);
    expect(retryAfterMs('Thursday, 01-Jan-26 12:00:30 GMT', now)).toBe(30_000);
    expect(retryAfterMs('Thu Jan  1 12:00:30 2026', now)).toBe(30_000);
    expect(httpDate('Sun, 06 Nov 1994 08:49:37 GMT', now)).toBe(Date.UTC(1994, 10, 6, 8, 49, 37));
    expect(httpDate(new Date(at).toUTCString(), now)).toBe(at);
  });

  it("RFC 850's two-digit year is never more than 50 years ahead", () => {
    expect(httpDate('Sunday, 06-Nov-94 08:49:37 GMT', now)).toBe(Date.UTC(1994, 10, 6, 8, 49, 37));
    expect(httpDate('Thursday, 01-Jan-26 00:00:00 GMT', now)).toBe(Date.UTC(2026, 0, 1));
  });

  it('no wait for nothing, zero, a date already past, or anything that is neither form', () => {
    for (const value of [undefined, null, '', '0', 'Thu, 01 Jan 2026 11:59:59 GMT', 'Thu, 01 Jan 2026 12:00:00 GMT']) {
      expect(retryAfterMs(value, now), String(value)).toBeUndefined();
    }
    for (const value of ['soon', '1.5', '-3', '+20', '20s', '2026-01-01T12:00:30Z', 'Thu, 01 Jan 2026 12:00:30 UTC', 'Tue, 31 Feb 2026 00:00:00 GMT', 'Thu, 01 Jan 2026 25:00:00 GMT', 'Thu, 01 Foo 2026 12:00:30 GMT']) {
      expect(retryAfterMs(value, now), value).toBeUndefined();
    }
  });
});
