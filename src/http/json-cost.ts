// What parsing an answer will cost the heap, counted before it is parsed, and answers read in bounded pieces:
// JSON.parse of a server's or an app's answer builds every value at once, and an answer shaped for it ([{},{},…],
// [[[…]]]) costs far more heap than its bytes: under the byte caps of src/answer-caps.ts such an answer once ran the
// 512 MB heap out, at every restart, and one JSON.parse of a large answer holds the event loop for as long as it
// takes. One linear walk over the bytes (`walk`, the only one) counts the containers, the values and the depth; an
// answer whose parse would cost more than one answer may, or that nests deeper than any server's answer does, is
// refused unparsed. The weights are what V8 builds per value (measured, docs/performance.md), rounded up.

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

/**
 * A piece read in one JSON.parse: whole entries up to this many bytes, then the event loop is given back. Small,
 * because a piece shaped for the parser ([{},…]) costs V8 far more time than its bytes.
 */
const PIECE_BYTES = 16 * 1024;
/** One entry of a list read in pieces (an item, a record) may take this much heap parsed; no app's entry comes near. */
export const MAX_ENTRY_HEAP = 4 * 1024 * 1024;

const OPEN_OBJECT = 0x7b;
const OPEN_LIST = 0x5b;
const CLOSE_OBJECT = 0x7d;
const CLOSE_LIST = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;

/** An answer whose parse would cost more than its budget, or that nests deeper than MAX_ANSWER_DEPTH. */
export class AnswerTooCostly extends SyntaxError {
  constructor(readonly why: string) {
    super(why);
    this.name = 'AnswerTooCostly';
  }
}

const tooCostly = (budget: number) => new AnswerTooCostly(`parsed, it would take more than ${Math.round(budget / 1048576)} MiB of memory`);

/** Where a walk over an answer's bytes is, what it has counted, and where the last entry of its level ended. */
interface Walk {
  at: number;
  depth: number;
  containers: number;
  values: number;
  /** Where the entry being walked began, and the counts then: its weight is checked at its end. */
  entryAt: number;
  entryContainers: number;
  entryValues: number;
  /** The comma after the last whole entry walked at `level` (-1: none yet). */
  lastEnd: number;
}

const walkFrom = (at: number, depth: number): Walk => ({ at, depth, containers: 0, values: 0, entryAt: at, entryContainers: 0, entryValues: 0, lastEnd: -1 });

/**
 * The one walk over an answer's bytes: from `w.at` to `end` (a string is walked to its end, whatever `end` says), it
 * counts containers and values, and stops on the bracket that closes `level` ('closed', w.at on it), on a comma at
 * `level` when `stopAtComma` ('comma'), or at `end` ('end'). Each entry at `level` heavier than `entryHeap` throws.
 */
function walk(bytes: Uint8Array, w: Walk, end: number, level: number, stopAtComma = false, entryHeap = Infinity): 'closed' | 'comma' | 'end' {
  let { at: i, depth, containers, values, entryAt, entryContainers, entryValues, lastEnd } = w;
  let how: 'closed' | 'comma' | 'end' = 'end';
  const entryWeight = () => (i - entryAt) * PER_BYTE + (containers - entryContainers) * PER_CONTAINER + (values - entryValues) * PER_VALUE;
  for (; i < end; i++) {
    const b = bytes[i];
    if (b === QUOTE) {
      for (i++; i < bytes.length && bytes[i] !== QUOTE; i++) if (bytes[i] === BACKSLASH) i++;
    } else if (b === OPEN_OBJECT || b === OPEN_LIST) {
      containers++;
      if (++depth > MAX_ANSWER_DEPTH) throw new AnswerTooCostly(`it nests deeper than ${MAX_ANSWER_DEPTH} levels`);
    } else if (b === CLOSE_OBJECT || b === CLOSE_LIST) {
      if (depth-- === level) {
        depth++;
        how = 'closed';
        break;
      }
    } else if (b === COMMA || b === COLON) {
      values++;
      if (b === COMMA && depth === level) {
        if (stopAtComma) {
          how = 'comma';
          break;
        }
        if (entryWeight() > entryHeap) throw entryTooCostly(entryHeap);
        lastEnd = i;
        entryAt = i + 1;
        entryContainers = containers;
        entryValues = values;
      }
    }
  }
  if (how === 'closed' && entryWeight() > entryHeap) throw entryTooCostly(entryHeap);
  Object.assign(w, { at: i, depth, containers, values, entryAt, entryContainers, entryValues, lastEnd });
  return how;
}

const entryTooCostly = (heap: number) => new AnswerTooCostly(`an entry of it would take more than ${heap / 1048576} MiB of memory parsed`);

const weight = (w: Walk, bytes: number) => bytes * PER_BYTE + w.containers * PER_CONTAINER + w.values * PER_VALUE;

/** The heap JSON.parse of `bytes` would take at most (bytes); throws AnswerTooCostly past the depth or the budget. */
export function jsonCost(bytes: Uint8Array, budget = ANSWER_HEAP_BUDGET): number {
  const w = walkFrom(0, 0);
  walk(bytes, w, bytes.length, -Infinity);
  const cost = weight(w, bytes.length);
  if (cost > budget) throw tooCostly(budget);
  return cost;
}

/** JSON.parse of an answer's bytes (UTF-8, a byte-order mark dropped), once jsonCost has found it affordable. */
export function parseAnswer(bytes: Uint8Array, budget = ANSWER_HEAP_BUDGET): unknown {
  jsonCost(bytes, budget);
  return JSON.parse(new TextDecoder().decode(bytes));
}

const isSpace = (b: number) => b === 0x20 || b === 0x09 || b === 0x0a || b === 0x0d;
const skipSpace = (bytes: Uint8Array, i: number) => {
  while (i < bytes.length && isSpace(bytes[i])) i++;
  return i;
};
const firstByte = (bytes: Uint8Array) => skipSpace(bytes, bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0);

/** Whether the answer's first character, past a byte-order mark and white space, opens a list or an object. */
export function startsAsContainer(bytes: Uint8Array): boolean {
  const b = bytes[firstByte(bytes)];
  return b === OPEN_LIST || b === OPEN_OBJECT;
}

/** Keeps of an entry what the caller needs (undefined: nothing); the rest is garbage before the next piece. */
export type Keep<T> = (entry: unknown) => T | undefined;

/** The heap what is kept takes, as the weights count it. */
function keptWeight(v: unknown): number {
  if (typeof v === 'string') return PER_VALUE + v.length * PER_BYTE;
  if (typeof v !== 'object' || v === null) return PER_VALUE;
  let w = PER_CONTAINER;
  for (const x of Object.values(v)) w += PER_VALUE + keptWeight(x);
  return w;
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * A JSON list answer (an arr app's item list), or an object whose lists are read so (a page of an app's history:
 * `{page, pageSize, totalRecords, records: […]}`), read in pieces: each list's entries are parsed a few at a time,
 * PIECE_BYTES at most in one JSON.parse, the event loop given back between pieces, and of each entry only what
 * `keep` returns is held. No JSON.parse call and no moment of the reading costs more than a piece and what is kept,
 * so the answer's size bounds neither: an entry heavier than MAX_ENTRY_HEAP, what is kept past `budget`, or a
 * nesting past MAX_ANSWER_DEPTH throws AnswerTooCostly; what is not JSON (or not a list or an object) a SyntaxError.
 */
export async function parseInPieces<T = unknown>(bytes: Uint8Array, keep: Keep<T> = (e) => e as T, budget = ANSWER_HEAP_BUDGET): Promise<unknown> {
  const reading = { kept: 0, decoder: new TextDecoder() };
  const i = firstByte(bytes);
  let read: { value: unknown; end: number };
  if (bytes[i] === OPEN_LIST) read = await readList(bytes, i, keep, budget, reading);
  else if (bytes[i] === OPEN_OBJECT) read = await readObject(bytes, i, keep, budget, reading);
  else throw new SyntaxError('not a JSON list or object');
  if (skipSpace(bytes, read.end) !== bytes.length) throw new SyntaxError('text after the JSON answer');
  return read.value;
}

interface Reading {
  kept: number;
  decoder: TextDecoder;
}

/** The list opening at `start`, its entries kept; `end` is past its closing bracket. */
async function readList<T>(bytes: Uint8Array, start: number, keep: Keep<T>, budget: number, reading: Reading): Promise<{ value: T[]; end: number }> {
  const entries: T[] = [];
  let piece = start + 1;
  const w = walkFrom(piece, 1);
  for (;;) {
    // A piece's worth of bytes walked; what is parsed is the whole entries in it (or the one entry it is part of).
    const how = walk(bytes, w, Math.min(bytes.length, w.at + PIECE_BYTES), 1, false, MAX_ENTRY_HEAP);
    if (how === 'end' && w.at >= bytes.length) throw new SyntaxError('the JSON list does not end');
    const upTo = how === 'closed' ? w.at : w.lastEnd;
    if (upTo > piece || how === 'closed') {
      const text = reading.decoder.decode(bytes.subarray(piece, upTo));
      // "[]" and "[ ]": no entry; "[1,]" stays a SyntaxError, as JSON.parse says.
      if (!(how === 'closed' && piece === start + 1 && text.trim() === '')) {
        for (const entry of JSON.parse(`[${text}]`) as unknown[]) {
          const kept = keep(entry);
          if (kept === undefined) continue;
          reading.kept += keptWeight(kept);
          if (reading.kept > budget) throw tooCostly(budget);
          entries.push(kept);
        }
      }
      if (how === 'closed') return { value: entries, end: w.at + 1 };
      piece = upTo + 1;
    } else if ((w.at - w.entryAt) * PER_BYTE + (w.containers - w.entryContainers) * PER_CONTAINER + (w.values - w.entryValues) * PER_VALUE > MAX_ENTRY_HEAP) {
      // An entry still unfinished after its piece: refused as soon as what it holds so far is too heavy.
      throw entryTooCostly(MAX_ENTRY_HEAP);
    }
    await nextTurn();
  }
}

/** The object opening at `start`: each member whose value is a list read as readList reads one, the others parsed. */
async function readObject<T>(bytes: Uint8Array, start: number, keep: Keep<T>, budget: number, reading: Reading): Promise<{ value: Record<string, unknown>; end: number }> {
  const value: Record<string, unknown> = {};
  let i = skipSpace(bytes, start + 1);
  if (bytes[i] === CLOSE_OBJECT) return { value, end: i + 1 };
  for (;;) {
    if (bytes[i] !== QUOTE) throw new SyntaxError('a JSON object member without a name');
    const nameStart = i;
    for (i++; i < bytes.length && bytes[i] !== QUOTE; i++) if (bytes[i] === BACKSLASH) i++;
    if (i - nameStart > PIECE_BYTES) throw new AnswerTooCostly(`a member's name is longer than ${PIECE_BYTES / 1024} KiB`);
    const name = JSON.parse(reading.decoder.decode(bytes.subarray(nameStart, i + 1))) as string;
    i = skipSpace(bytes, i + 1);
    if (bytes[i] !== COLON) throw new SyntaxError('a JSON object member without a colon');
    i = skipSpace(bytes, i + 1);
    if (bytes[i] === OPEN_LIST) {
      const list = await readList(bytes, i, keep, budget, reading);
      value[name] = list.value;
      i = list.end;
    } else {
      const w = walkFrom(i, 1);
      if (walk(bytes, w, Math.min(bytes.length, i + PIECE_BYTES), 1, true) === 'end') throw new AnswerTooCostly(`a member of it is larger than ${PIECE_BYTES / 1024} KiB`);
      value[name] = JSON.parse(reading.decoder.decode(bytes.subarray(i, w.at)));
      i = w.at;
    }
    i = skipSpace(bytes, i);
    if (bytes[i] === CLOSE_OBJECT) return { value, end: i + 1 };
    if (bytes[i] !== COMMA) throw new SyntaxError('a JSON object member not followed by a comma');
    i = skipSpace(bytes, i + 1);
  }
}
