// The one way scanrelay cuts a text to a length, whether a notification to its receiver's limit (src/notify/limits.ts)
// or a server's answer, a request's field, a file name or a process's output to what a log line or an error shows:
// on a character boundary, never between the two UTF-16 halves of an emoji or a CJK extension character (half of
// one reaches a log line, an HTTP answer or a notification as U+FFFD or as invalid text), and not inside an emoji
// with its modifiers or a letter with its accents when a boundary is near.

/**
 * Half of a UTF-16 surrogate pair, alone: what a cut at N code units leaves of an emoji or a CJK extension
 * character. (String's isWellFormed is ES2024, past the lib the project compiles against.)
 */
export const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** What a limit counts: UTF-8 bytes, or characters as UTF-16 code units (JavaScript's `length`). */
export type SizeUnit = 'bytes' | 'characters';

/**
 * A character's size in `unit`. Characters are counted as UTF-16 code units, which is never fewer than code
 * points: a text within a limit in units is within it whichever of the two a reader counts (an emoji is 2 here).
 * A lone surrogate counts as the 3 bytes of the U+FFFD it is sent as.
 */
function sizeOf(codePoint: number, unit: SizeUnit): number {
  if (unit === 'characters') return codePoint > 0xffff ? 2 : 1;
  return codePoint < 0x80 ? 1 : codePoint < 0x800 ? 2 : codePoint < 0x10000 ? 3 : 4;
}

export function sizeIn(text: string, unit: SizeUnit): number {
  if (unit === 'characters') return text.length;
  let size = 0;
  for (const c of text) size += sizeOf(c.codePointAt(0)!, unit);
  return size;
}

/** A cluster longer than this (a pile of combining marks) is cut inside rather than dropped whole. */
const LONGEST_CLUSTER = 32;

let graphemes: Intl.Segmenter | undefined;

/**
 * The cluster holding `text[at]`, found in `text[from, to)`: the segmenter copies what it is given, and a cut
 * needs only the characters around it (a refused path may be megabytes long).
 */
function clusterAt(text: string, at: number, from: number, to: number): { index: number; end: number } | undefined {
  graphemes ??= new Intl.Segmenter(undefined, { granularity: 'grapheme' });
  const cluster = graphemes.segment(text.slice(from, to)).containing(at - from);
  return cluster && { index: from + cluster.index, end: from + cluster.index + cluster.segment.length };
}

/**
 * True when `text` has a cluster boundary at `at` that needs no segmenter: between two ASCII characters other than
 * CR LF (UAX #29 joins nothing else there: every mark, joiner and emoji part is outside ASCII). Most cuts are of
 * such text, and the segmenter's first use loads ICU's break data, megabytes a relay would then hold all year.
 */
function plainBoundary(text: string, at: number): boolean {
  if (at <= 0 || at >= text.length) return true;
  const before = text.charCodeAt(at - 1);
  const after = text.charCodeAt(at);
  return before < 0x80 && after < 0x80 && !(before === 13 && after === 10);
}

/**
 * Where the cluster (a letter with its accents, an emoji with its modifiers) holding `end` starts. Whether a
 * cluster ends before `end` turns on the text before it and the one character at `end`, never on what follows.
 */
function clusterStart(text: string, end: number): number {
  if (plainBoundary(text, end)) return end;
  const cluster = clusterAt(text, end, 0, end + 2);
  if (!cluster || cluster.index >= end || end - cluster.index > LONGEST_CLUSTER) return end;
  return cluster.index;
}

/** Where the cluster holding `start` ends, judged with the 64 characters before it as the text it follows. */
function clusterEnd(text: string, start: number): number {
  if (plainBoundary(text, start)) return start;
  const cluster = clusterAt(text, start, Math.max(0, start - 2 * LONGEST_CLUSTER), start + LONGEST_CLUSTER + 2);
  if (!cluster || cluster.index >= start) return start;
  return cluster.end - start > LONGEST_CLUSTER ? start : cluster.end;
}

/** `text` when it is at most `max` long; else its longest start that is, ending on a boundary. */
export function keepStart(text: string, max: number, unit: SizeUnit = 'characters'): string {
  if (sizeIn(text, unit) <= max) return text;
  let end = 0;
  let size = 0;
  for (const c of text) {
    const next = size + sizeOf(c.codePointAt(0)!, unit);
    if (next > max) break;
    size = next;
    end += c.length;
  }
  return text.slice(0, clusterStart(text, end));
}

/** `text` when it is at most `max` long; else its longest end that is, starting on a boundary. */
export function keepEnd(text: string, max: number, unit: SizeUnit = 'characters'): string {
  if (sizeIn(text, unit) <= max) return text;
  let start = text.length;
  let size = 0;
  while (start > 0) {
    const pair = start >= 2 && (text.charCodeAt(start - 1) & 0xfc00) === 0xdc00 && (text.charCodeAt(start - 2) & 0xfc00) === 0xd800;
    const from = start - (pair ? 2 : 1);
    const next = size + sizeOf(text.codePointAt(from)!, unit);
    if (next > max) break;
    size = next;
    start = from;
  }
  return text.slice(clusterEnd(text, start));
}
