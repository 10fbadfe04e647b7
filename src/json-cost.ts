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
