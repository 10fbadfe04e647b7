// How long a receiver lets a text be, and the one way every carrier cuts a text to fit: on a character boundary
// (never half a UTF-16 surrogate pair, so never invalid UTF-8 on the wire, and not inside an emoji or a letter
// with its accents when a boundary is near), ending with an ellipsis that counts inside the limit.

/** A receiver's documented limit: UTF-8 bytes (ntfy) or characters (Discord). */
export interface Limit {
  max: number;
  unit: 'bytes' | 'characters';
}

/** Ends a text that was cut, so a reader knows there was more. */
export const ELLIPSIS = '…';

/**
 * A character's size in the limit's unit. Characters are counted as UTF-16 code units, which is never fewer than
 * code points: a text within the limit in units is within it whichever of the two a receiver counts (an emoji
 * is 2 here). A lone surrogate counts as the 3 bytes of the U+FFFD it is sent as.
 */
function sizeOf(codePoint: number, unit: Limit['unit']): number {
  if (unit === 'characters') return codePoint > 0xffff ? 2 : 1;
  return codePoint < 0x80 ? 1 : codePoint < 0x800 ? 2 : codePoint < 0x10000 ? 3 : 4;
}

export function sizeIn(text: string, unit: Limit['unit']): number {
  if (unit === 'characters') return text.length;
  let size = 0;
  for (const c of text) size += sizeOf(c.codePointAt(0)!, unit);
  return size;
}

/** A cluster longer than this (a pile of combining marks) is cut inside rather than dropped whole. */
const LONGEST_CLUSTER = 32;

let graphemes: Intl.Segmenter | undefined;

/** Where the cluster (a letter with its accents, an emoji with its modifiers) holding `end` starts. */
function clusterStart(text: string, end: number): number {
  graphemes ??= new Intl.Segmenter(undefined, { granularity: 'grapheme' });
  const cluster = graphemes.segment(text).containing(end);
  if (!cluster || cluster.index >= end || end - cluster.index > LONGEST_CLUSTER) return end;
  return cluster.index;
}

/**
 * `text` as it is when it fits `limit`; else its longest start that fits with the ellipsis after it. Lone
 * surrogates become U+FFFD, as they would on the wire. The start never ends in an odd run of backslashes: in a
 * text with markdown escapes (src/notify/markdown.ts) such a backslash would escape the ellipsis, and a
 * backslash alone before it tells a reader nothing.
 */
export function fit(text: string, limit: Limit): string {
  const whole = text.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd');
  if (sizeIn(whole, limit.unit) <= limit.max) return whole;
  const budget = limit.max - sizeIn(ELLIPSIS, limit.unit);
  if (budget < 0) return '';
  let end = 0;
  let size = 0;
  for (const c of whole) {
    const next = size + sizeOf(c.codePointAt(0)!, limit.unit);
    if (next > budget) break;
    size = next;
    end += c.length;
  }
  end = clusterStart(whole, end);
  let kept = whole.slice(0, end);
  const backslashes = /\\+$/.exec(kept)?.[0].length ?? 0;
  if (backslashes % 2 === 1) kept = kept.slice(0, -1);
  return kept + ELLIPSIS;
}
