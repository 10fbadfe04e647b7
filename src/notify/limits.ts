// How long a receiver lets a text be, and how every carrier cuts a text to fit: on a character boundary (never half
// a UTF-16 surrogate pair, so never invalid UTF-8 on the wire, and not inside an emoji or a letter with its accents
// when a boundary is near: src/text-cut.ts, the cut every part of scanrelay makes), ending with an ellipsis that
// counts inside the limit.
import { keepStart, LONE_SURROGATE, sizeIn, type SizeUnit } from '../text-cut.js';

const LONE_SURROGATES = new RegExp(LONE_SURROGATE.source, 'g');

/** A receiver's documented limit: UTF-8 bytes (ntfy) or characters (Discord). */
export interface Limit {
  max: number;
  unit: SizeUnit;
}

/** Ends a text that was cut, so a reader knows there was more. */
export const ELLIPSIS = '…';

/**
 * `text` as it is when it fits `limit`; else its longest start that fits with the ellipsis after it. Lone
 * surrogates become U+FFFD, as they would on the wire. The start never ends in an odd run of backslashes: in a
 * text with markdown escapes (src/notify/markdown.ts) such a backslash would escape the ellipsis, and a
 * backslash alone before it tells a reader nothing.
 */
export function fit(text: string, limit: Limit): string {
  const whole = text.replace(LONE_SURROGATES, '\ufffd');
  if (sizeIn(whole, limit.unit) <= limit.max) return whole;
  const budget = limit.max - sizeIn(ELLIPSIS, limit.unit);
  if (budget < 0) return '';
  let kept = keepStart(whole, budget, limit.unit);
  const backslashes = /\\+$/.exec(kept)?.[0].length ?? 0;
  if (backslashes % 2 === 1) kept = kept.slice(0, -1);
  return kept + ELLIPSIS;
}
