// The one cut of a text (src/text-cut.ts) and fit(), the cut every carrier makes with it: a text that fits is left
// alone; a longer one is cut on a character boundary (never half a surrogate pair, not inside a letter with its
// accent or an emoji with its modifier), by fit() with the ellipsis inside the limit, in UTF-8 bytes or in characters.
import { describe, expect, it, vi } from 'vitest';
import { ELLIPSIS, fit } from '../../src/notify/limits.js';
import { sizeIn } from '../../src/text-cut.js';
import { keepEnd, keepStart } from '../../src/text-cut.js';

const bytes = (max: number) => ({ max, unit: 'bytes' as const });
const chars = (max: number) => ({ max, unit: 'characters' as const });

describe('fit', () => {
  it('leaves a text that fits exactly as it is; one more byte and it is cut, the ellipsis inside the limit', () => {
    expect(fit('é'.repeat(2048), bytes(4096))).toBe('é'.repeat(2048));
    const cut = fit('é'.repeat(2049), bytes(4096));
    expect(sizeIn(cut, 'bytes')).toBeLessThanOrEqual(4096);
    expect(cut).toBe(`${'é'.repeat(2046)}${ELLIPSIS}`); // 4,092 bytes and 3 of ellipsis
  });

  it('never keeps half of a 4-byte character or of a surrogate pair', () => {
    // 1 + 4 + 4 bytes; 8 leave 5 before the 3-byte ellipsis: the second emoji does not fit whole, so it goes.
    expect(fit('a🎬🎬', bytes(8))).toBe(`a🎬${ELLIPSIS}`);
    // 2 UTF-16 units per emoji: a limit of 4 leaves 3 units, room for one emoji and not half of the next.
    expect(fit('🎬🎬🎬', chars(4))).toBe(`🎬${ELLIPSIS}`);
  });

  it('does not part a letter from its accent or an emoji from its skin tone', () => {
    expect(fit('abe\u0301cd', chars(4))).toBe(`ab${ELLIPSIS}`);
    expect(fit('a👍🏽b', chars(5))).toBe(`a${ELLIPSIS}`);
    // A pile of combining marks longer than any letter is cut inside rather than dropped whole.
    const zalgo = `x${'\u0301'.repeat(100)}`;
    expect(fit(zalgo, chars(50))).toBe(`${zalgo.slice(0, 49)}${ELLIPSIS}`);
  });

  it('never leaves a backslash to escape the ellipsis; an escaped backslash stays whole', () => {
    expect(fit(String.raw`ab\*cd`, chars(4))).toBe(`ab${ELLIPSIS}`);
    expect(fit(String.raw`a\\bcd`, chars(4))).toBe(String.raw`a\\${ELLIPSIS}`);
  });

  it('sends a lone surrogate as U+FFFD and counts its 3 bytes', () => {
    expect(fit('a\ud800b', bytes(5))).toBe('a\ufffdb');
    expect(fit('a\udc00bc', bytes(5))).toBe(`a${ELLIPSIS}`);
  });
});

describe('keepStart and keepEnd: a start or an end of at most N characters, for a log line, an error or an answer', () => {
  it('leave a text that fits as it is, lone surrogates and all', () => {
    expect(keepStart('a😀b', 4)).toBe('a😀b');
    expect(keepEnd('a\ud800b', 3)).toBe('a\ud800b');
  });

  it('never keep half of a surrogate pair, where slice(0, N) and slice(-N) would', () => {
    const text = `${'a'.repeat(199)}😀${'b'.repeat(10)}`;
    expect(text.slice(0, 200).at(-1)).toBe('\ud83d');
    expect(keepStart(text, 200)).toBe('a'.repeat(199));
    expect(keepStart('𠀀𠀀𠀀', 5)).toBe('𠀀𠀀');
    const tail = `${'b'.repeat(10)}😀${'a'.repeat(199)}`;
    expect(tail.slice(-200)[0]).toBe('\ude00');
    expect(keepEnd(tail, 200)).toBe('a'.repeat(199));
    expect(keepEnd('𠀀𠀀𠀀', 5)).toBe('𠀀𠀀');
  });

  it('do not part a letter from its accent or an emoji from its skin tone; a pile of marks is cut inside', () => {
    expect(keepStart('abe\u0301cd', 3)).toBe('ab');
    expect(keepStart('a👍🏽b', 4)).toBe('a');
    expect(keepEnd('a👍🏽b', 3)).toBe('b');
    expect(keepEnd('ae\u0301b', 2)).toBe('b');
    const zalgo = `x${'\u0301'.repeat(100)}`;
    expect(keepStart(zalgo, 50)).toBe(zalgo.slice(0, 50));
    expect(keepEnd(zalgo, 50)).toBe(zalgo.slice(-50));
  });

  it('count in UTF-8 bytes when asked', () => {
    expect(keepStart('é😀x', 5, 'bytes')).toBe('é');
    expect(keepEnd('é😀x', 5, 'bytes')).toBe('😀x');
  });

  it('keep CR LF together, and cut plain ASCII without loading the grapheme segmenter (ICU break data, megabytes)', async () => {
    // A fresh copy of the module, so its segmenter is not one an earlier test already made.
    vi.resetModules();
    const fresh = await import('../../src/text-cut.js');
    const Original = Intl.Segmenter;
    let made = 0;
    const intl = Intl as { Segmenter: typeof Original };
    intl.Segmenter = class extends Original {
      constructor(...args: ConstructorParameters<typeof Original>) {
        super(...args);
        made++;
      }
    };
    try {
      const body = `Plex answered: ${'x'.repeat(300)} end`;
      expect(fresh.keepStart(body, 200)).toBe(body.slice(0, 200));
      expect(fresh.keepEnd(body, 200)).toBe(body.slice(-200));
      expect(made).toBe(0);
      // Between CR and LF there is no boundary: the cut moves before the CR (the segmenter decides that one).
      expect(fresh.keepStart('ab\r\ncd', 3)).toBe('ab');
      expect(fresh.keepEnd('ab\r\ncd', 3)).toBe('cd');
      expect(made).toBe(1);
    } finally {
      intl.Segmenter = Original;
    }
  });
});
