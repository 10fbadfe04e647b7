// The follow-up words on the dashboard say only what is known: `confirmed` green, `scanned` neutral (a setup
// without Plex's database that works shows no colour of trouble), `not-found` a problem, each explained on hover.
import { describe, expect, it } from 'vitest';
import { badge } from '../../src/server/dashboard-page.js';

describe('outcome words', () => {
  it('confirmed is ok, scanned neutral, not-found bad and unconfirmed a warning, each with its meaning', () => {
    expect(badge('confirmed')).toContain('b-ok');
    expect(badge('scanned')).toContain('b-neutral');
    expect(badge('scanned')).toContain('nothing could tell more');
    expect(badge('not-found')).toContain('b-bad');
    expect(badge('not-found')).toContain('not in the library');
    expect(badge('unconfirmed')).toContain('b-warn');
  });

  it("refused is a warning that says it was a library's own folder", () => {
    expect(badge('refused')).toContain('b-warn');
    expect(badge('refused')).toContain('a library&#39;s own folder');
  });
});
