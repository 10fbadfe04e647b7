// What parsing an answer will cost the heap, counted before it is parsed: JSON.parse of a server's or an app's
// answer builds every value at once, and an answer shaped for it ([{},{},…], [[[…]]]) costs far more heap than its
// bytes: under the byte caps of src/answer-caps.ts such an answer once ran the 512 MB heap out, at every restart.
// One linear pass over the bytes counts the containers, the values and the depth; an answer whose parse would cost
// more than one answer may, or that nests deeper than any server's answer does, is refused unparsed. The weights are
// what V8 builds per value (measured, docs/performance.md), rounded up.

/** The most heap one parsed answer may take: the relay's own data and another answer in flight fit beside it. */
export const ANSWER_HEAP_BUDGET = 160 * 1024 * 1024;
/** No server's or app's answer nests this deep (Plex's: about 8 levels); a deeper one is an attack on the parser. */
export const MAX_ANSWER_DEPTH = 64;

/**
 * Heap bytes per object or array, per value after a comma or colon (its slot, a boxed number), and per byte of text
 * (the decoded text and its strings): the least weights that are at or above V8's cost for every shape measured.
 */
const PER_CONTAINER = 60;
const PER_VALUE = 12;
const PER_BYTE = 2;

const OPEN_OBJECT = 0x7b;
const OPEN_LIST = 0x5b;
const CLOSE_OBJECT = 0x7d;
const CLOSE_LIST = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;

/** An answer whose parse would cost more than ANSWER_HEAP_BUDGET, or that nests deeper than MAX_ANSWER_DEPTH. */
export class AnswerTooCostly extends SyntaxError {
  constructor(readonly why: string) {
    super(why);
    this.name = 'AnswerTooCostly';
  }
}

/** The heap JSON.parse of `bytes` would take at most (bytes); throws AnswerTooCostly past the depth or the budget. */
export function jsonCost(bytes: Uint8Array, budget = ANSWER_HEAP_BUDGET): number {
  let containers = 0;
  let values = 0;
  let depth = 0;
  let inString = false;
  const fixed = bytes.length * PER_BYTE;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i];
    if (inString) {
      if (b === BACKSLASH) i++;
      else if (b === QUOTE) inString = false;
      continue;
    }
    if (b === QUOTE) inString = true;
    else if (b === OPEN_OBJECT || b === OPEN_LIST) {
      containers++;
      if (++depth > MAX_ANSWER_DEPTH) throw new AnswerTooCostly(`it nests deeper than ${MAX_ANSWER_DEPTH} levels`);
    } else if (b === CLOSE_OBJECT || b === CLOSE_LIST) depth--;
    else if (b === COMMA || b === COLON) values++;
  }
  const cost = fixed + containers * PER_CONTAINER + values * PER_VALUE;
  if (cost > budget) throw new AnswerTooCostly(`parsed, it would take more than ${Math.round(budget / 1048576)} MiB of memory`);
  return cost;
}

/** JSON.parse of an answer's bytes (UTF-8, a byte-order mark dropped), once jsonCost has found it affordable. */
export function parseAnswer(bytes: Uint8Array): unknown {
  jsonCost(bytes);
  return JSON.parse(new TextDecoder().decode(bytes));
}

/** What a list answer's reading hands the event loop back after: webhooks and /health wait no longer than this takes. */
const SLICE_BYTES = 256 * 1024;

/**
 * A JSON list answer (an arr app's history or item list) read entry by entry: one linear pass finds each entry and
 * weighs it, each is parsed alone, and every SLICE_BYTES the event loop is given back, so a 32 MiB answer never
 * holds webhooks or /health for longer than a slice takes. The same bounds as parseAnswer: an answer whose entries
 * would cost more than the budget, or nest deeper than MAX_ANSWER_DEPTH, throws AnswerTooCostly; one that is not a
 * JSON list throws a SyntaxError.
 */
export async function parseListAnswer(bytes: Uint8Array, budget = ANSWER_HEAP_BUDGET): Promise<unknown[]> {
  const decoder = new TextDecoder();
  let i = 0;
  // A byte-order mark and white space before the list.
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) i = 3;
  while (i < bytes.length && isSpace(bytes[i])) i++;
  if (bytes[i] !== OPEN_LIST) throw new SyntaxError('not a JSON list');
  const entries: unknown[] = [];
  let cost = bytes.length * PER_BYTE;
  let depth = 1;
  let inString = false;
  let start = i + 1;
  let nextYield = i + SLICE_BYTES;
  for (i++; i < bytes.length; i++) {
    if (i >= nextYield) {
      nextYield = i + SLICE_BYTES;
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    const b = bytes[i];
    if (inString) {
      if (b === BACKSLASH) i++;
      else if (b === QUOTE) inString = false;
      continue;
    }
    if (b === QUOTE) inString = true;
    else if (b === OPEN_OBJECT || b === OPEN_LIST) {
      cost += PER_CONTAINER;
      if (++depth > MAX_ANSWER_DEPTH) throw new AnswerTooCostly(`it nests deeper than ${MAX_ANSWER_DEPTH} levels`);
    } else if ((b === COMMA && depth === 1) || (b === CLOSE_LIST && depth === 1)) {
      cost += PER_VALUE;
      if (cost > budget) throw new AnswerTooCostly(`parsed, it would take more than ${Math.round(budget / 1048576)} MiB of memory`);
      const text = decoder.decode(bytes.subarray(start, i));
      if (b === COMMA || text.trim() !== '' || entries.length > 0) entries.push(JSON.parse(text));
      start = i + 1;
      if (b === CLOSE_LIST) {
        depth = 0;
        for (i++; i < bytes.length; i++) if (!isSpace(bytes[i])) throw new SyntaxError('text after the JSON list');
        return entries;
      }
    } else if (b === CLOSE_OBJECT || b === CLOSE_LIST) depth--;
    else if (b === COMMA || b === COLON) cost += PER_VALUE;
  }
  throw new SyntaxError('the JSON list does not end');
}

const isSpace = (b: number) => b === 0x20 || b === 0x09 || b === 0x0a || b === 0x0d;

/** Whether the answer's first character, past a byte-order mark and white space, opens a list. */
export function startsAsList(bytes: Uint8Array): boolean {
  let i = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  while (i < bytes.length && isSpace(bytes[i])) i++;
  return bytes[i] === OPEN_LIST;
}
