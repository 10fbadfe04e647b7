// The idle trim: one full collection per quiet spell, never while requests come in.
import { describe, expect, it } from 'vitest';
import { fullCollection, IdleTrim } from '../../src/idle-memory.js';

describe('IdleTrim', () => {
  it('collects once after quietMs without a request, and again only after new activity has gone quiet', () => {
    let now = 0;
    let collections = 0;
    const trim = new IdleTrim({ quietMs: 10_000, now: () => now, collect: () => collections++ });
    now = 9_999;
    expect(trim.tick()).toBe(false);
    now = 10_000;
    expect(trim.tick()).toBe(true);
    now = 60_000;
    expect(trim.tick()).toBe(false);
    trim.noteRequest();
    now = 65_000;
    expect(trim.tick()).toBe(false);
    now = 70_000;
    expect(trim.tick()).toBe(true);
    expect(collections).toBe(2);
  });

  it("V8's full collection runs without --expose-gc on the command line", () => {
    expect(process.execArgv).not.toContain('--expose-gc');
    expect(() => fullCollection()()).not.toThrow();
  });
});
